"""Layer 3 on fixture games (data/fixtures/games): it must start play, change the score or the
position, and detect game over, with nothing specific to any one game.

`dev/` games were used while developing layer 3; `holdout/` games were kept aside until the end,
to check that it generalises (docs/experience.md).
"""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES, drive_session

from webmend.evaluate.experience.play import _do
from webmend.evaluate.inputs import RawInput
from webmend.evaluate.records import evaluate_input

EXPECTED = json.loads((FIXTURES / "games" / "expected.json").read_text())


ARROWS = ("ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown")
# Known gap: the rollout does not take a number named `distance` for a score (state.SCORE), so it
# never reads cave_runner's score at window.runner.distance (it sees play through pixels only).
KNOWN_SCORE_GAPS = {"holdout/cave_runner.html"}


def started_by(expected: str) -> set[str]:
    """The rollout's names (play.start_attempts) for the fixture's recorded start action."""
    return set(ARROWS) if expected == "any arrow key" else {expected}


def score_key(location: str) -> str | None:
    """expected.json's score_location as the rollout's state key; None for a score shown in the DOM."""
    if location.startswith("dom "):
        return None
    if location.startswith("global let "):
        return location.removeprefix("global let ")
    assert location.startswith("window."), location
    return location.removeprefix("window.")


def cases():
    for name in sorted(EXPECTED):
        marks = [pytest.mark.xfail(strict=True, reason="rollout does not read window.runner.distance as the score")] \
            if name in KNOWN_SCORE_GAPS else []
        yield pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", cases())
def test_rollout_starts_plays_and_sees_game_over(worker, cfg, tmp_path, name):
    expected = EXPECTED[name]
    raw = RawInput(index=0, id=name, source=name, raw=(FIXTURES / "games" / name).read_bytes())
    rec = evaluate_input(raw, None, cfg, worker, tmp_path)
    summary, play = rec["trace_summary"], rec["evidence"]["probe"]["play"]
    assert rec["status"] == "ok", rec["reason"]
    assert 3 in rec["layers"], rec["evidence"]["experience"]["layers_why"]
    trace = [e for e in rec["evidence"]["experience"]["trace"] if e["layer"] == 3 and e["doc"] == "play"]
    # Started by the fixture's own start action: the one start attempt that changed the page,
    # after every earlier attempt changed nothing (nothing moves before the start).
    assert summary["start_action"] in started_by(expected["start_action"]), play
    attempts = [e for e in trace if e["action"] == "start attempt"]
    assert attempts and attempts[-1]["target"] == summary["start_action"] and attempts[-1]["change"] is True, attempts
    assert not any(e["change"] for e in attempts[:-1]), attempts
    # The score read where the fixture keeps it: the named variable among the state the rollout
    # watches (and, when it changed, reported by that name), or the score shown in the page's text.
    changed = [k for e in trace if e["action"] == "play" for k in ((e.get("evidence") or {}).get("changes") or {}).get("score", [])]
    key = score_key(expected["score_location"])
    if key is None:
        assert summary["score_changed"] and "shown score" in changed, (expected["score_location"], changed)
    else:
        assert key in play["roles"]["score"], (expected["score_location"], play["roles"])
        assert not summary["score_changed"] or key in changed, (key, changed)
    assert summary["score_changed"] or summary["position_changed"], play
    assert summary["game_over_detected"], play
    # Within the fixture's bound from the start, give or take one observation (every 5 steps).
    assert play["game_over_at_ms"] - play["started_at_ms"] <= expected["game_over_within_ms"] + 1_000
    assert summary["layer3_outcome"] == "played"
    assert any(k["annotation"] == "game over" for k in rec["keyframes"])


SCENE = """<!doctype html><html lang=en><body><h1>Spinner</h1><canvas id=c width=320 height=200></canvas>
<script>
const ctx = document.getElementById('c').getContext('2d');
let angle = 0, spin = 0.02;
addEventListener('keydown', e => { if (e.key.startsWith('Arrow')) spin += 0.01; });
function draw() {
  angle += spin;
  ctx.fillStyle = '#113'; ctx.fillRect(0, 0, 320, 200);
  ctx.save(); ctx.translate(160, 100); ctx.rotate(angle); ctx.fillStyle = '#fc3'; ctx.fillRect(-40, -40, 80, 80); ctx.restore();
  requestAnimationFrame(draw);
}
requestAnimationFrame(draw);
%s
</script></body></html>"""
# The same scene that starts counting a score 2 s into the page: a game after all.
LATE_SCORE = """setTimeout(() => {
  const p = document.createElement('p'); p.textContent = 'Score: 0'; document.body.append(p);
  let score = 0; addEventListener('keydown', () => { p.textContent = 'Score: ' + (++score); });
}, 2000);"""


@pytest.mark.parametrize("extra, budget_ms", [("", 6_000), (LATE_SCORE, 30_000)], ids=["scene", "score-appears"])
def test_a_page_without_progress_state_is_played_as_a_scene(worker, cfg, tmp_path, extra, budget_ms):
    raw = RawInput(index=0, id="scene", source="scene", raw=(SCENE % extra).encode())
    rec = evaluate_input(raw, None, cfg, worker, tmp_path)
    play = rec["evidence"]["probe"]["play"]
    assert rec["status"] == "ok", rec["reason"]
    assert "keyboard-driven play" in rec["evidence"]["experience"]["layers_why"]["3"]
    assert play["budget_ms"] == budget_ms, play
    assert play["steps"] == budget_ms // cfg.experience.play_step_ms, play  # nothing ends it sooner
    assert play["outcome"] == "played", play


HOVERED = """<!doctype html><html lang=en><head><title>hover</title><style>
#b { position:absolute; left:100px; top:100px; width:120px; height:60px; background:rgb(0,0,0);
     transition: background-color 400ms linear; }
#b:hover { background:rgb(200,200,200); }
</style></head><body><button id="b">go</button></body></html>"""


def test_a_rollout_pointer_move_has_landed_before_page_time_runs(worker, cfg):
    # Chromium applies a move, and the :hover restyle that starts a transition, in its next real
    # frame. Before the rollout waited for it, that frame could fall inside the hold, so the
    # transition had run for a different share of it: on a loaded machine landing_saas_001 differed
    # between runs (bench/determinism_sweep.py --busy 1, 3 runs). An idle machine mostly gets the
    # frame in before the hold anyway, so the order of the two calls is checked as well: it is
    # what fails if the wait goes.
    async def steps(s):
        calls, landed, advance = [], s.pointer_landed, s.advance

        async def landed_then_note():
            await landed()
            calls.append("landed")

        async def advance_and_note(ms):
            calls.append("advance")
            await advance(ms)

        seen = []
        for k in range(10):
            await s.load(k + 2)
            s.pointer_landed, s.advance = landed_then_note, advance_and_note
            await _do(s, "move", {"x": 160, "y": 130}, hold_ms=100)
            s.pointer_landed, s.advance = landed, advance
            seen.append(await s.main_eval("getComputedStyle(b).backgroundColor"))
        return seen, calls

    (seen, calls), _ = drive_session(worker, cfg, HOVERED, steps)
    assert calls == ["landed", "advance"] * 10
    assert seen == ["rgb(50, 50, 50)"] * 10  # the transition ran for exactly the 100 ms hold of 400
