"""Keyframe storage of result records: content-addressed, written once, local or fsspec."""

from __future__ import annotations

import fsspec

from webmend.evaluate.experience.trace import Keyframe
from webmend.evaluate.records import store_keyframes

PNG_A, PNG_B = b"\x89PNG\r\n\x1a\nA", b"\x89PNG\r\n\x1a\nB"


def _frames():
    refs = [{"n": 0, "annotation": "first paint", "layer": 1, "page_ms": 500, "event": 0},
            {"n": 1, "annotation": "same again", "layer": 1, "page_ms": 900, "event": 1},
            {"n": 2, "annotation": "other", "layer": 2, "page_ms": 1200, "event": 2}]
    return refs, [Keyframe(PNG_A, "", 1, 500, 0), Keyframe(PNG_A, "", 1, 900, 1), Keyframe(PNG_B, "", 2, 1200, 2)]


def test_local_keyframes_are_named_by_content_and_written_once(tmp_path):
    refs, frames = _frames()
    out = store_keyframes(refs, frames, tmp_path)
    assert out[0]["file"] == out[1]["file"] != out[2]["file"]
    assert (tmp_path / out[0]["file"]).read_bytes() == PNG_A and (tmp_path / out[2]["file"]).read_bytes() == PNG_B
    assert sorted(p.name for p in (tmp_path / "keyframes").iterdir()) == sorted({o["file"].split("/")[1] for o in out})
    assert store_keyframes(refs, frames, None)[0]["file"] is None  # no folder: refs only


def test_keyframes_go_to_an_fsspec_data_root():
    refs, frames = _frames()
    out = store_keyframes(refs, frames, "memory://kf-root")
    fs = fsspec.filesystem("memory")
    assert fs.cat_file(f"/kf-root/{out[2]['file']}") == PNG_B
    assert len(fs.ls("/kf-root/keyframes")) == 2
