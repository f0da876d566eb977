"""Input reading: every input yields one RawInput, bad ones carry their reject reason."""

from __future__ import annotations

import json

import pytest

from webmend.evaluate.inputs import iter_pages, iter_responses, load_items, match_item


def test_folder_ids_are_relative_paths_without_extension(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.html").write_text("<html></html>")
    (tmp_path / "b.htm").write_text("<html></html>")
    (tmp_path / "notes.txt").write_text("ignored")
    got = [(r.index, r.id) for r in iter_pages([tmp_path])]
    assert got == [(0, "a/x"), (1, "b")]


def test_missing_path_is_a_recorded_reject(tmp_path):
    [raw] = list(iter_pages([tmp_path / "nope.html"]))
    assert raw.reject == ("unreadable", "no such file or folder")


def test_responses_stream_with_rejects_in_order(tmp_path):
    path = tmp_path / "r.jsonl"
    lines = [
        json.dumps({"id": "ok", "prompt": "p", "response": "<html>x</html>"}),
        "{not json",
        json.dumps([1, 2]),
        json.dumps({"id": "noresp"}),
        "",
        json.dumps({"id": "num", "response": 5}),
        json.dumps({"response": "<p>anon</p>"}),
    ]
    path.write_text("\n".join(lines) + "\n")
    got = list(iter_responses(path, start=10))
    assert [r.index for r in got] == [10, 11, 12, 13, 14, 15]
    assert [r.id for r in got] == ["ok", "line-2", "line-3", "noresp", "num", "line-7"]
    assert [r.reject[0] if r.reject else None for r in got] == [None, "malformed_input", "malformed_input", "malformed_input", "malformed_input", None]
    assert got[0].prompt == "p" and got[1].source.endswith(":2")


def test_items_match_exact_sample_and_basename():
    items = {"game_snake": {"id": "game_snake"}}
    assert match_item(items, "game_snake")["id"] == "game_snake"
    assert match_item(items, "game_snake#2")["id"] == "game_snake"
    assert match_item(items, "pages/game_snake")["id"] == "game_snake"
    assert match_item(items, "other") is None


def test_malformed_items_are_an_error(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text('{"id": "a", "test_cases": []}\n{oops\n')
    with pytest.raises(ValueError, match=":2: invalid JSON"):
        load_items(path)
