"""Keyboard games: focusable_game_canvas and keys_dont_scroll_game, on their fixtures in Chromium,
plus edge cases of the detectors and edits on page source alone."""

from __future__ import annotations

import pytest
from repair_op_cases import assert_nothing_broken, diag, firing, repair_round

from webmend.config import RepairConfig
from webmend.repair.acceptance import judge
from webmend.repair.operators.game import FOCUSABLE_CANVAS, KEYS_DONT_SCROLL, _detect_canvas, _detect_scroll


@pytest.fixture(scope="module")
def canvas_round(cfg, worker):
    return repair_round([FOCUSABLE_CANVAS], "canvas_keys", cfg, worker)


@pytest.fixture(scope="module")
def scroll_round(cfg, worker):
    return repair_round([KEYS_DONT_SCROLL], "scroll_keys", cfg, worker)


def test_canvas_keys_fixture_shows_only_its_defect(canvas_round):
    r = canvas_round
    assert r.d0.game.keyboard_listeners == ["canvas 0"]
    assert r.finding == {"canvases": [0]}
    assert firing(r.d0, r.html) == ["focusable_game_canvas"]


def test_focusable_canvas_lets_the_keys_reach_the_game(canvas_round):
    r = canvas_round
    # A user clicks the game and presses the right arrow: before, the basket stayed put.
    assert not r.passed("tc_move", after=False) and r.passed("tc_move", after=True)
    # The rollout's keys now move the basket (before: nothing it did changed the game's state).
    assert r.d0.game.outcome == "stalled" and r.d1.game.outcome == "played"
    assert r.after["trace_summary"]["position_changed"]
    assert FOCUSABLE_CANVAS.detect(r.d1, r.fixed) is None
    assert firing(r.d1, r.fixed) == []
    assert_nothing_broken(r)


def test_the_focusable_canvas_candidate_is_accepted(canvas_round):
    """A focusable canvas is not a control the census clicks (it would read as dead and cost the
    candidate interaction points): the repair is accepted as a verified operator fix."""
    r = canvas_round
    assert not any(c["tag"] == "canvas" for c in r.after["evidence"]["probe"]["controls"])
    verdict = judge(r.after, r.before, RepairConfig(), fix_verified=True)
    assert verdict.accepted, verdict.reason


def test_scroll_keys_fixture_shows_only_its_defect(scroll_round):
    r = scroll_round
    assert r.d0.layout["desktop"]["page_height"] > r.d0.layout["desktop"]["viewport_height"]
    assert r.finding["keys"] == ["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", " "]
    assert firing(r.d0, r.html) == ["keys_dont_scroll_game"]


def test_game_keys_no_longer_scroll_the_page(scroll_round):
    r = scroll_round
    # The probes do not record where a key press left the scroll position, so the evidence is
    # the item's test case: ArrowDown x3 and Space, then window.scrollY must still be 0.
    assert not r.passed("tc_no_scroll", after=False) and r.passed("tc_no_scroll", after=True)
    assert r.passed("tc_steer", after=True)  # the game still hears its keys
    assert KEYS_DONT_SCROLL.detect(r.d1, r.fixed) is None
    assert firing(r.d1, r.fixed) == []
    assert_nothing_broken(r)


# -- source-only edge cases (no browser) ---------------------------------------------------

GAME = "<html><body><canvas id=a></canvas><canvas id=b width=300></canvas><script>{js}</script></body></html>"
KEYS = "b.addEventListener('keydown', e => {{ if (e.key === 'ArrowUp') y--; }});"


def test_canvas_detector_reads_the_listeners_and_the_canvas_source():
    html = GAME.format(js=KEYS.format())
    assert _detect_canvas(diag(["canvas 1"]), html) == {"canvases": [1]}
    assert _detect_canvas(diag(["canvas 1", "window"]), html) is None  # the page hears the keys anyway
    assert _detect_canvas(diag([]), html) is None
    assert _detect_canvas(diag(["canvas 1"]), html.replace("<canvas id=b", '<canvas tabindex="-1" id=b')) is None
    assert _detect_canvas(diag(["canvas 1"]), html.replace("y--;", "y--; b.tabIndex = 0;")) is None
    made = GAME.format(js="document.body.prepend(document.createElement('canvas'));" + KEYS.format())
    assert _detect_canvas(diag(["canvas 1"]), made) is None  # runtime index != source index
    assert _detect_canvas(diag(["canvas 3"]), html) is None  # no such canvas in the source


def test_canvas_edit_marks_only_the_listed_canvas_and_is_idempotent_by_detection():
    html = GAME.format(js=KEYS.format())
    out = FOCUSABLE_CANVAS.apply(html, {"canvases": [1]})
    assert '<canvas id=a>' in out and '<canvas tabindex="0" id=b width=300>' in out
    assert out.index("webmend: the game canvas") < out.index("</body>")
    assert "[1].map" in out and "preventScroll: true" in out
    assert _detect_canvas(diag(["canvas 1"]), out) is None


SCROLLER = ("<html><body><canvas></canvas><script>document.addEventListener('keydown', (e) => {{ {body} }});"
            "</script></body></html>")


def test_scroll_detector_needs_a_game_a_page_to_scroll_and_no_prevent_default():
    arrows = SCROLLER.format(body="if (e.key === 'ArrowDown') y++; if (e.key === ' ') fire();")
    assert _detect_scroll(diag(["document"], page_height=1800), arrows)["keys"] == [
        "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", " "]
    assert _detect_scroll(diag(["document"], page_height=720), arrows) is None  # fits the viewport
    assert _detect_scroll(diag([], page_height=1800), arrows) is None  # no key listeners
    assert _detect_scroll(diag(["document"], page_height=1800, detected=False), arrows) is None  # not a game
    kept = SCROLLER.format(body="if (e.key === 'ArrowDown') { e.preventDefault(); y++; }")
    assert _detect_scroll(diag(["document"], page_height=1800), kept) is None
    hidden = arrows.replace("<body>", "<body><style>body { margin: 0; overflow: hidden; }</style>")
    assert _detect_scroll(diag(["document"], page_height=1800), hidden) is None
    letters = SCROLLER.format(body="if (e.key === 'a') left();")
    assert _detect_scroll(diag(["document"], page_height=1800), letters) is None  # keys that never scroll
    codes = SCROLLER.format(body="if (e.keyCode === 38) up(); if (e.keyCode == 32) fire();")
    assert _detect_scroll(diag(["document"], page_height=1800), codes)["keys"][-1] == " "


def test_scroll_detector_leaves_space_alone_for_keypress_games():
    html = SCROLLER.format(body="if (e.key === 'ArrowLeft') x--;") + "<script>onkeypress = e => { if (e.key === ' ') jump(); };</script>"
    assert _detect_scroll(diag(["document", "window"], page_height=1800), html)["keys"] == list(
        ("ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"))


def test_no_scroll_edit_is_one_capturing_listener_that_spares_fields():
    html = SCROLLER.format(body="if (e.key === 'ArrowDown') y++;")
    out = KEYS_DONT_SCROLL.apply(html, {"keys": ["ArrowDown", " "]})
    assert out.count("addEventListener('keydown'") == 2 and "}, true);" in out
    assert "['ArrowDown', ' ']" in out and "INPUT|TEXTAREA|SELECT" in out and "isContentEditable" in out
    assert out.index("webmend: keys the game") < out.index("</body>")
