"""Guardrails: budget clamps, visual caps per probe finding, the functionality band."""

import pytest
from judge_fixtures import metrics

from webmend.config import JudgeConfig
from webmend.evaluate.judge.guardrails import bound_functionality, bound_visual, functionality_band
from webmend.evaluate.judge.inputs import ObjectiveMetrics

CFG = JudgeConfig()


def m(**over) -> ObjectiveMetrics:
    return ObjectiveMetrics.model_validate(metrics(**over))


@pytest.mark.parametrize("over, expected, rule", [
    ({}, 18.0, None),
    ({"blank_page": True}, 0.0, "blank_page"),
    ({"styled": False}, 6.0, "unstyled"),
    ({"blank_canvas": True}, 8.0, "blank_canvas"),
    ({"overflow_mobile": True}, 12.0, "overflow_mobile"),
    ({"has_viewport_meta": False}, 14.0, "no_viewport"),
    ({"has_viewport_meta": False, "overflow_mobile": True, "styled": False}, 6.0, "unstyled"),  # the tightest
])
def test_visual_caps(over, expected, rule):
    hits = []
    assert bound_visual(18, m(**over), CFG, hits) == expected
    assert [h.rule for h in hits] == ([rule] if rule else [])


def test_visual_budget_clamp_and_low_scores_untouched():
    hits = []
    assert bound_visual(35, m(), CFG, hits) == 20.0 and hits[0].rule == "budget"
    hits = []
    assert bound_visual(-3, m(), CFG, hits) == 0.0 and hits[0].after == 0.0
    hits = []
    assert bound_visual(5, m(overflow_mobile=True), CFG, hits) == 5.0 and hits == []  # under the cap
    assert bound_visual(18, m(overflow_mobile=True), JudgeConfig(cap_overflow_mobile=0.8), []) == 16.0


def test_functionality_band_around_probe_estimate():
    assert functionality_band(m(), CFG) == (29.0, 51.0, "probe_band")
    hits = []
    assert bound_functionality(10, m(), CFG, hits) == 29.0 and hits[0].rule == "probe_band"
    assert bound_functionality(45, m(), CFG, []) == 45.0
    assert bound_functionality(99, m(), CFG, []) == 51.0


def test_no_raise_without_probe_evidence():
    dead = m(controls_responsive=0, keys_responsive=False, animating=False)
    assert functionality_band(dead, CFG)[1:] == (40.0, "probe_band_nothing_responded")
    assert functionality_band(m(blank_page=True), CFG)[1:] == (40.0, "probe_band_blank_page")
    static = m(interactive=False, controls_responsive=0, functionality_budget=65)
    assert functionality_band(static, CFG)[1] == 53.0  # a static page is not asked to respond
