"""Layer 3 on fixture games (data/fixtures/games): it must start play, change the score or the
position, and detect game over, with nothing specific to any one game.

`dev/` games were used while developing layer 3; `holdout/` games were kept aside until the end,
to check that it generalises (docs/experience.md).
"""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES

from webmend.evaluate.inputs import RawInput
from webmend.evaluate.records import evaluate_input

EXPECTED = json.loads((FIXTURES / "games" / "expected.json").read_text())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_rollout_starts_plays_and_sees_game_over(worker, cfg, tmp_path, name):
    raw = RawInput(index=0, id=name, source=name, raw=(FIXTURES / "games" / name).read_bytes())
    rec = evaluate_input(raw, None, cfg, worker, tmp_path)
    summary, play = rec["trace_summary"], rec["evidence"]["probe"]["play"]
    assert rec["status"] == "ok", rec["reason"]
    assert 3 in rec["layers"], rec["evidence"]["experience"]["layers_why"]
    assert summary["start_action"] and summary["start_action"] != "none (already running)", play
    assert summary["score_changed"] or summary["position_changed"], play
    assert summary["game_over_detected"], play
    # Within the fixture's bound from the start, give or take one observation (every 5 steps).
    assert play["game_over_at_ms"] - play["started_at_ms"] <= EXPECTED[name]["game_over_within_ms"] + 1_000
    assert summary["layer3_outcome"] == "played"
    assert any(k["annotation"] == "game over" for k in rec["keyframes"])
