"""comparable() drops only wall-clock timings; first_difference() names where two runs part."""

from __future__ import annotations

from webmend.evaluate.replay_check import comparable, first_difference


class Frame:
    def __init__(self, png: bytes, annotation: str):
        self.png, self.annotation = png, annotation


def test_timings_are_ignored_and_keyframes_compared_by_content():
    a = comparable({"elapsed_s": 1.5, "status": "ok", "keyframes": [Frame(b"x", "first paint")]})
    b = comparable({"elapsed_s": 9.0, "status": "ok", "keyframes": [Frame(b"x", "first paint")]})
    c = comparable({"elapsed_s": 1.5, "status": "ok", "keyframes": [Frame(b"y", "first paint")]})
    assert first_difference(a, b) is None
    assert first_difference(a, c).startswith(".keyframes[0]: ")


def test_the_first_difference_is_named_by_its_path():
    a = {"trace": [{"action": "scroll", "change": True}], "scores": {"x": 1}}
    assert first_difference(a, {"trace": [{"action": "scroll", "change": False}], "scores": {"x": 1}}) == ".trace[0].change: true vs false"
    assert first_difference(a, {"trace": [], "scores": {"x": 1}}) == ".trace (length 1 vs 0)"
    assert first_difference(a, {"trace": a["trace"]}) == ".scores (only in first)"
