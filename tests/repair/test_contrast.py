"""Which keyframes the visual comparison pairs (webmend/repair/contrast.py)."""

from __future__ import annotations

from webmend.repair.contrast import frame_pairs


def frames(tmp_path, *specs):
    out = []
    for layer, annotation, name in specs:
        (tmp_path / name).write_bytes(name.encode())
        out.append({"layer": layer, "annotation": annotation, "file": name})
    return {"keyframes": out}


def test_frames_are_paired_by_protocol_point_not_by_position(tmp_path):
    # a real case: the candidate took a tablet frame the checkpoint did not, so by position its
    # second frame (tablet) met the checkpoint's phone view
    before = frames(tmp_path, (1, "first paint", "b0"), (1, "mobile 375x667", "b1"),
                    (2, 'after click on button "Add" (did nothing)', "b2"))
    after = frames(tmp_path, (1, "first paint", "a0"), (1, "tablet 768x1024", "a1"), (1, "mobile 375x667", "a2"),
                   (2, 'after click on button "Add" (responded)', "a3"))
    pairs = frame_pairs(before, after, [tmp_path])
    assert [(b, a) for b, a, _ in pairs] == [(b"b0", b"a0"), (b"b1", b"a2"), (b"b2", b"a3")]
    assert pairs[1][2] == "layer 1: mobile 375x667"
    assert pairs[2][2] == 'layer 2: after click on button "Add" (before: did nothing; after: responded)'


def test_an_unchanged_frame_and_a_frame_only_one_version_took_are_left_out(tmp_path):
    before = frames(tmp_path, (1, "first paint", "same"), (2, 'after click on "Go" (responded)', "b1"))
    after = frames(tmp_path, (1, "first paint", "same"), (3, "after play", "a1"))
    assert frame_pairs(before, after, [tmp_path]) == []
