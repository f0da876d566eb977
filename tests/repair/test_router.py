"""D(h) from a stored record and the router's rules, without a browser; the loop on a High page."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES

from webmend.config import EvalConfig, RepairConfig
from webmend.repair.diagnosis import as_text, diagnose
from webmend.repair.loop import repair_page
from webmend.repair.router import game_layer, mode_of, route
from webmend.schemas.repair import Diagnosis

CFG = EvalConfig()


def record(total: float, state: str, *, tests=(), dead=(), page_errors=(), summary=None, static=None) -> dict:
    """A minimal stored result record: what diagnose reads."""
    ts = {"rendered": True, "controls_total": 4, "controls_tested": 4, "controls_responsive": 4 - len(dead),
          "dead_controls": list(dead), "game_detected": False, "layer3_outcome": "not_run", "keys_worked": [],
          "blank_canvases": 0, "animation_stalled": False, **(summary or {})}
    controls = [{"selector": s, "text": "Go", "responded": False, "listeners": []} for s in dead]
    return {
        "id": "p", "index": 0, "status": "ok", "state": state, "interactive": True, "flags": [],
        "config_hash": RepairConfig().evaluation.config_hash(),
        "score": {"total": total, "rendering": 10.0, "visual_design": 18.0, "functionality": total - 33,
                  "interaction": 10.0, "code_quality": 5.0},
        "tests": [{"id": t, "name": t, "passed": ok, "weight": 1.0, "failed_step": None if ok else 1,
                   "failed_action": None if ok else "click", "error": None if ok else "nothing happened"}
                  for t, ok in tests],
        "blocked_requests": [], "trace_summary": ts, "keyframes": [],
        "evidence": {"probe": {"controls": controls, "keyboard_listeners": ts.get("listeners", [])},
                     "events": {"page_errors": [{"text": e} for e in page_errors], "console_errors": []},
                     "network": {"cdn_misses": []},
                     "static": {"has_viewport_meta": True, "charset_declared": True, "lang": "en", "title": "T",
                                "uses_canvas": False, **(static or {})}},
    }


def test_diagnosis_reads_the_record_and_validates():
    d = diagnose(record(55, "Mid", tests=[("a", True), ("b", False)], dead=["#go"], page_errors=["x is not defined"]),
                 CFG)
    assert d.passing_tests == ["a"] and [t.id for t in d.failed_tests] == ["b"]
    assert d.controls.dead[0].selector == "#go" and d.page_errors == ["x is not defined"]
    assert d.limiting_dimension == "functionality"
    Diagnosis.model_validate_json(d.model_dump_json())
    text = as_text(d)
    assert "FAILED test b" in text and "#go" in text and "x is not defined" in text


def test_the_fixture_records_all_diagnose():
    for line in (FIXTURES / "traces" / "results.jsonl").read_text().splitlines():
        d = diagnose(json.loads(line), CFG)
        assert route(d, RepairConfig(), 1).rule


@pytest.mark.parametrize("total,state,kw,rule,strategies", [
    (20, "Low", {}, "low:", ["holistic_rewrite", "feature_completion"]),
    (55, "Mid", {"dead": ["#go"]}, "mid: broken controls", ["interaction_repair", "feature_completion"]),
    (55, "Mid", {"page_errors": ["boom"]}, "mid: uncaught", ["bug_fix", "holistic_rewrite"]),
    (55, "Mid", {"tests": [("a", False)]}, "mid: broken controls", ["interaction_repair", "feature_completion"]),
    (55, "Mid", {"summary": {"game_detected": True, "layer3_outcome": "did_not_start"}}, "mid: game layer overlay",
     ["game_repair", "holistic_rewrite"]),
    (90, "High", {}, "high: preserve", []),
    (90, "High", {"dead": ["#go"]}, "high: localised defect", ["high_state_refinement"]),
])
def test_router_rules(total, state, kw, rule, strategies):
    decision = route(diagnose(record(total, state, **kw), CFG), RepairConfig(), 1)
    assert decision.rule.startswith(rule) and decision.strategies == strategies


def test_high_pages_never_get_a_rewrite():
    for kw in ({}, {"dead": ["#a"]}, {"page_errors": ["e"]}, {"tests": [("t", False)]}):
        d = diagnose(record(85, "High", **kw), CFG)
        strategies = route(d, RepairConfig(), 1).strategies
        assert all(mode_of(s, "High") == "patch" for s in strategies), strategies


def test_game_layers_from_probe_evidence():
    def layer(**summary):
        return game_layer(diagnose(record(55, "Mid", summary={"game_detected": True, "layer3_outcome": "played",
                                                              **summary}), CFG))

    assert layer(layer3_outcome="did_not_start") == "overlay"
    assert layer(blank_canvases=1) == "canvas"
    assert layer(animation_stalled=True) == "loop"
    assert layer(listeners=["window"]) == "input"
    assert layer(score_changed=False, position_changed=False) == "gameplay"


def test_bands_not_repaired_and_unscored_pages_stop_at_once():
    assert route(diagnose(record(90, "High"), CFG), RepairConfig(bands=("Low",)), 1).rule.startswith("band High")
    rejected = {**record(0, "Low"), "status": "no_html", "score": None, "state": None}
    assert route(diagnose(rejected, CFG), RepairConfig(), 1).rule.startswith("unscored")


class NoModel:
    """A proposer that must not be asked: the High page has nothing the router admits."""

    calls = 0

    def __call__(self, *args):
        self.calls += 1
        raise AssertionError("the model was asked on a preserved High page")


def test_a_high_page_is_preserved_without_a_browser_or_a_model():
    model = NoModel()
    trace = repair_page("<html>...</html>", None, record(92, "High"), RepairConfig(), model, worker=object())
    assert model.calls == 0 and trace.record["stop_reason"] == "no_candidates"
    assert trace.record["routes"][0]["rule"].startswith("high: preserve")
    assert trace.best.html == "<html>...</html>" and trace.record["final_score"] == 92


def test_contrast_names_controls_that_came_alive_died_or_stayed_dead():
    from webmend.repair.loop import _control_flips

    before = record(55, "Mid", dead=["#a", "#b"])
    after = record(60, "Mid", dead=["#b", "#c"])
    for r, tested in ((before, ["#a", "#b", "#c"]), (after, ["#a", "#b", "#c"])):
        r["evidence"]["probe"]["controls"] = [{"selector": s} for s in tested]
    assert _control_flips(before, after) == (["#a"], ["#c"], ["#b"])
