"""Scoring from evidence: budgets, profiles, bands and monotonic rules (no browser)."""

from __future__ import annotations

import pytest

from webmend.config import EvalConfig
from webmend.tasks.scoring import score, state_band, weighted_pass_rate

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
