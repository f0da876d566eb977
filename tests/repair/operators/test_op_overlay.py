"""rebind_start_handler: a start button bound under the wrong id, on its fixture in Chromium, and
the matching rules on source alone."""

from __future__ import annotations

import pytest
from repair_op_cases import assert_nothing_broken, diag, firing, repair_round

from webmend.repair.operators.overlay import REBIND_START, match, words

NULL_ERROR = "TypeError: Cannot read properties of null (reading 'addEventListener')"


@pytest.fixture(scope="module")
def overlay_round(cfg, worker):
    return repair_round([REBIND_START], "start_overlay", cfg, worker)


def test_start_overlay_fixture_shows_only_its_defect(overlay_round):
    r = overlay_round
    assert NULL_ERROR + " (at line 145:40)" in r.d0.page_errors  # where it was thrown, too, on any document
    assert r.finding == {"rebind": {"startBtn": "start-button"}}
    assert firing(r.d0, r.html) == ["rebind_start_handler"]


def test_start_button_starts_the_game_after_the_edit(overlay_round):
    r = overlay_round
    assert r.d1.page_errors == [] and r.after["evidence"]["events"]["page_error_count"] == 0
    assert not r.passed("tc_start", after=False) and r.passed("tc_start", after=True)
    assert r.d1.game.start_action == "click #start-button" and r.d1.game.outcome == "played"
    assert "getElementById('start-button').addEventListener('click', startGame)" in r.fixed
    assert REBIND_START.detect(r.d1, r.fixed) is None
    assert firing(r.d1, r.fixed) == []
    assert_nothing_broken(r)


# -- source-only edge cases ------------------------------------------------------------------

def page(buttons: str, js: str) -> str:
    return f"<html><body><div id='start-screen'>{buttons}</div><script>{js}</script></body></html>"


BIND = "document.getElementById('startBtn').addEventListener('click', start);"
ERR = diag(page_errors=[NULL_ERROR])


def test_words_and_matching():
    assert words("startGameBtn") == words("start-game-button") == words("start_game_btn") == ["start", "game", "button"]
    assert match("startBtn", ["start-button", "restart-button"]) == "start-button"  # same words win
    assert match("playBtn", ["play-game-btn", "help-btn"]) == "play-game-btn"  # one fuzzy match
    assert match("btn", ["start-btn", "stop-btn"]) is None  # two equally close: no plain reading
    assert match("startBtn", ["settings", "close"]) is None


def test_fires_only_on_the_error_a_missing_id_and_one_close_clickable():
    html = page("<button id='start-button'>Start</button>", BIND)
    assert REBIND_START.detect(ERR, html) == {"rebind": {"startBtn": "start-button"}}
    assert REBIND_START.detect(diag(), html) is None  # no page error
    assert REBIND_START.detect(ERR, html.replace("id='start-button'", "id='startBtn'")) is None  # it exists
    assert REBIND_START.detect(ERR, page("<button id='settings'>Settings</button>", BIND)) is None  # no close id
    # Close ids of elements that are not clickable (the overlay's own div) are not candidates.
    assert REBIND_START.detect(ERR, page("<span id='start-btn'>Start</span>", BIND)) is None
    assert REBIND_START.detect(ERR, page("<span id='start-btn' role='button'>Start</span>", BIND)) is not None
    # An id the script itself creates, or the page styles, is not plainly missing.
    made = page("<button id='start-button'>Start</button>", "b.id = 'startBtn';" + BIND)
    assert REBIND_START.detect(ERR, made) is None
    # A reference that only reads text is no handler binding.
    reads = page("<button id='start-button'>Start</button>", "document.getElementById('startBtn').textContent = 'Go';")
    assert REBIND_START.detect(ERR, reads) is None
    # An id already bound by the script is not what a missing one meant.
    both = page("<button id='start-button'>Start</button>",
                "document.getElementById('start-button').onclick = go;" + BIND)
    assert REBIND_START.detect(ERR, both) is None


def test_variable_binding_and_the_edit():
    js = "const startBtn = document.getElementById('startBtn');\nstartBtn.addEventListener('click', start);"
    html = page("<button id='start-game-btn'>Start</button><button id='restart-game-btn'>Again</button>", js)
    f = REBIND_START.detect(ERR, html)
    assert f == {"rebind": {"startBtn": "start-game-btn"}}
    out = REBIND_START.apply(html, f)
    assert "getElementById('start-game-btn')" in out and "const startBtn =" in out  # only the id changed
    q = page("<button id='start-button'>Start</button>", "document.querySelector('#startBtn').onclick = go;")
    assert "querySelector('#start-button')" in REBIND_START.apply(q, REBIND_START.detect(ERR, q))
