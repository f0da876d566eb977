"""Scoring from evidence: budgets, profiles, bands and monotonic rules (no browser)."""

from __future__ import annotations

import pytest

from webmend.config import EvalConfig
from webmend.evaluate.scoring import score, state_band, weighted_pass_rate

CFG = EvalConfig()


def evidence(**over):
    probe = {
        "blank": False, "doc": {"textChars": 500}, "canvases": [],
        "design": {"textElements": 20, "lowContrast": 0, "smallText": 0, "fontFamilies": 2, "defaultFont": False,
                   "fontSizes": 4, "backgrounds": 4, "overlaps": 0, "cssRules": 60, "hoverRules": 4, "mediaRules": 1, "bodyMargin": 0},
        "overflow_desktop": {"overflowing": False}, "overflow_mobile": {"overflowing": False},
        "motion_diff": 0.0, "motion_late_diff": 0.0,
        "controls": [{"responded": True}, {"responded": True}], "keys_responsive": [],
    }
    static = {"doctype": True, "lang": "en", "title": "t", "has_viewport_meta": True, "charset_declared": True,
              "semantic_tags": {"header": 1, "main": 1}, "images_without_alt": 0, "size_bytes": 9000, "inline_event_handlers": 0}
    ev = {"status": "ok", "probe": probe, "static": static, "events": {"page_error_count": 0, "console_error_count": 0, "hangs": []}, "tests": []}
    ev.update(over)
    return ev


def test_budgets_and_a_perfect_page():
    s = score(evidence(tests=[{"weight": 2, "passed": True}]), CFG, interactive=True)
    assert s["visual_design"] == 20 and s["interaction"] == 10 and s["total"] == 100
    assert s["rendering"] == 10 and s["functionality"] == 55 and s["code_quality"] == 5


def test_functionality_is_linear_in_weighted_pass_rate():
    tests = [{"weight": 2, "passed": True}, {"weight": 6, "passed": False}]
    assert weighted_pass_rate(tests) == 0.25
    assert score(evidence(tests=tests), CFG, interactive=True)["functionality"] == pytest.approx(55 * 0.25)


def test_static_prompts_move_interaction_budget_to_functionality():
    s = score(evidence(tests=[{"weight": 1, "passed": True}]), CFG, interactive=False)
    assert s["interaction"] is None and s["functionality"] == 65


def test_rejects_have_no_score():
    assert score(evidence(status="no_html"), CFG, interactive=True) is None
    assert score(evidence(status="timeout"), CFG, interactive=True) is None


def test_bands_follow_config():
    assert [state_band(x, CFG) for x in (39.99, 40, 79.99, 80)] == ["Low", "Mid", "Mid", "High"]
    strict = CFG.model_copy(update={"bands": CFG.bands.model_copy(update={"high_from": 90.0})})
    assert state_band(85, strict) == "Mid"


def test_defects_lower_their_dimension():
    base = score(evidence(), CFG, interactive=True)
    blank = score(evidence(probe={**evidence()["probe"], "blank": True}), CFG, interactive=True)
    errors = score(evidence(events={"page_error_count": 2, "console_error_count": 0, "hangs": []}), CFG, interactive=True)
    dead = score(evidence(probe={**evidence()["probe"], "controls": [{"responded": False}, {"responded": False}]}), CFG, interactive=True)
    overflow = score(evidence(probe={**evidence()["probe"], "overflow_mobile": {"overflowing": True}}), CFG, interactive=True)
    assert blank["rendering"] < base["rendering"] and blank["visual_design"] == 0
    assert errors["rendering"] < base["rendering"] and errors["code_quality"] < base["code_quality"]
    assert dead["interaction"] < base["interaction"] and dead["functionality"] < base["functionality"]
    assert overflow["rendering"] < base["rendering"] and overflow["visual_design"] < base["visual_design"]


def _with_play(outcome: str, reasons: list[str], **probe_over) -> dict:
    ev = evidence()
    ev["probe"] = {**ev["probe"], "play": {"outcome": outcome}, **probe_over}
    ev["experience"] = {"layers": [1, 2, 3, 4], "layers_why": {"3": reasons}}
    return ev


def test_layer3_outcome_scores_games_but_not_multi_step_uis():
    game, why = "canvas with an animation loop", "multi-step UI (a control revealed new controls)"
    played = score(_with_play("played", [game]), CFG, interactive=True)
    broken = score(_with_play("did_not_start", [game]), CFG, interactive=True)
    assert broken["functionality"] < played["functionality"] and broken["interaction"] < played["interaction"]
    wizard = score(_with_play("did_not_start", [why]), CFG, interactive=True)
    assert wizard == score(evidence(), CFG, interactive=True)  # evidence for repair, not a verdict


def test_experience_layout_stalls_blank_canvases_and_neutral_fields():
    views = {v: {"overflow": False, "offscreen_controls": 0, "overlapping_controls": 0, "unreadable_text": False}
             for v in ("desktop", "tablet", "mobile")}
    clean = score(evidence(probe={**evidence()["probe"], "viewports": views}), CFG, interactive=True)
    broken_views = {**views, "mobile": {**views["mobile"], "overflow": True, "offscreen_controls": 2}}
    broken = score(evidence(probe={**evidence()["probe"], "viewports": broken_views}), CFG, interactive=True)
    assert broken["rendering"] < clean["rendering"]
    stalled = score(evidence(probe={**evidence()["probe"], "motion": {"stalled": True}}), CFG, interactive=True)
    assert stalled["rendering"] < clean["rendering"] and stalled["functionality"] < clean["functionality"]
    canvas_only = {**evidence()["probe"], "doc": {"textChars": 0}, "canvases": [{"visible": True, "width": 300, "height": 200}]}
    drawn = score(evidence(probe={**canvas_only, "canvas_pixels": [{"blank": False}]}), CFG, interactive=True)
    blank = score(evidence(probe={**canvas_only, "canvas_pixels": [{"blank": True}]}), CFG, interactive=True)
    assert blank["rendering"] < drawn["rendering"]
    # A text field that only showed what was typed is neither responsive nor dead.
    fields = {**evidence()["probe"], "controls": [{"responded": True}, {"responded": None}]}
    assert score(evidence(probe=fields), CFG, interactive=True)["interaction"] == clean["interaction"]
