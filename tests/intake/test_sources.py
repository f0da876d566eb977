"""File sources: forum dumps (JSONL/Parquet), prompt lists, HTMLBench items, the three.js examples index."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from webmend.intake.sources import iter_sources

ROOT = Path(__file__).resolve().parents[2]


def test_htmlbench_items_keep_id_family_and_flag():
    raws = list(iter_sources([ROOT / "data" / "samples" / "items.jsonl"]))
    assert len(raws) == 12 and all(r.kind == "benchmark_item" and not r.needs_rewrite for r in raws)
    coffee = next(r for r in raws if r.id == "content_coffee_story")
    assert coffee.hints == {"family": "content_marketing", "subtype": "brand_story", "interactive": False}
    assert coffee.file.endswith("items.jsonl:4") and coffee.fetched_at  # file mtime when the record has no time


def test_forum_dump_jsonl_and_parquet(tmp_path):
    posts = [
        {"id": "t3_a", "subreddit": "webdev", "title": "Snake game", "selftext": "Make a snake game &amp; a score.",
         "author": "real_person", "permalink": "/r/webdev/comments/a", "created_utc": 1767225600},
        {"id": "q1", "title": "Chart", "body": "<p>A <b>bar chart</b> of sales</p>", "license": "CC BY-SA 4.0"},
        {"id": "empty", "title": "", "selftext": ""},
    ]
    jsonl = tmp_path / "dump.jsonl"
    jsonl.write_text("".join(json.dumps(p) + "\n" for p in posts) + "{not json\n")
    parquet = tmp_path / "dump.parquet"
    keys = sorted({k for p in posts[:2] for k in p})
    pq.write_table(pa.Table.from_pylist([{k: p.get(k) for k in keys} for p in posts[:2]]), parquet)
    for path, n in ((jsonl, 4), (parquet, 2)):
        raws = list(iter_sources([path]))
        assert len(raws) == n
        a, b = raws[0], raws[1]
        assert a.kind == "forum_post" and a.needs_rewrite and a.source == "reddit/r/webdev"
        assert a.text == "Snake game\n\nMake a snake game & a score." and a.url == "/r/webdev/comments/a"
        assert a.fetched_at == "1767225600" and "real_person" not in repr(a)
        assert b.text == "Chart\n\nA bar chart of sales" and b.licence == "CC BY-SA 4.0"
    raws = list(iter_sources([jsonl]))
    assert raws[2].problem == "no prompt, title or body text"
    assert raws[3].problem.startswith("invalid JSON")


def test_plain_list_and_missing_file(tmp_path):
    plain = tmp_path / "list.txt"
    plain.write_text("Make a pong game.\n\n  Build a todo app.  \n")
    raws = list(iter_sources([plain, tmp_path / "missing.jsonl"]))
    assert [(r.id, r.text) for r in raws[:2]] == [("list-1", "Make a pong game."), ("list-3", "Build a todo app.")]
    assert raws[2].problem == "no such file"


def test_threejs_examples_index(tmp_path):
    index = tmp_path / "files.json"
    index.write_text(json.dumps({"webgl": ["webgl_animation_keyframes", "webgl_geometry_terrain"], "css3d": ["css3d_periodictable"]}))
    raws = list(iter_sources([index]))
    assert [r.id for r in raws] == ["threejs-webgl_animation_keyframes", "threejs-webgl_geometry_terrain", "threejs-css3d_periodictable"]
    first = raws[0]
    assert first.kind == "library_example" and first.hints["family"] == "three_d_webgl"
    assert "animation keyframes" in first.text and first.url == "https://threejs.org/examples/#webgl_animation_keyframes"
    assert first.licence.startswith("MIT")
