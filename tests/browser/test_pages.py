"""Behaviour fixtures: each page produces the evidence and verdicts its defect implies."""

from __future__ import annotations

import pytest
from conftest import case, fixture_html

from webmend.evaluate.scoring import score


def ev_of(evaluate, name, *cases, item_extra=None):
    item = {"id": name, "has_interaction": True, "test_cases": list(cases), **(item_extra or {})}
    return evaluate(fixture_html(f"pages/{name}.html"), item)


def test_good_app_scores_high_and_clean(evaluate, cfg):
    ev = ev_of(evaluate, "good_app",
               case({"action": "type", "selector": "#new-todo", "text": "milk"}, {"action": "click", "selector": "#add"},
                    {"action": "assert_count", "selector": ".todo-item", "eq": 1}, id="add"),
               case({"action": "assert_a11y_basic"}, {"action": "assert_console_clean"}, id="clean"),
               case({"action": "resize", "width": 375, "height": 667}, {"action": "assert_no_horizontal_scroll"}, id="mobile"))
    assert ev["status"] == "ok" and ev["flags"] == []
    assert all(t["passed"] for t in ev["tests"]), ev["tests"]
    probe = ev["probe"]
    assert not probe["blank"] and not probe["overflow_mobile"]["overflowing"]
    assert any(c["responded"] for c in probe["controls"])
    s = score(ev, cfg, interactive=True)
    assert s["total"] >= 80, s


def test_dead_buttons_are_found_by_the_probe(evaluate):
    ev = ev_of(evaluate, "dead_buttons")
    by_sel = {c["selector"]: c["responded"] for c in ev["probe"]["controls"]}
    assert by_sel["#save"] is False and by_sel["#load"] is False and by_sel["#reset"] is False
    assert by_sel["#ok"] is True


def test_stalled_game_loop_stops_moving(evaluate):
    ev = ev_of(evaluate, "stalled_game",
               case({"action": "wait", "ms": 1500}, {"action": "screenshot"}, {"action": "wait", "ms": 2000},
                    {"action": "assert_screenshot_changed", "threshold": 0.99}))
    # The loop stops after ~1 s of page time: later frames no longer change.
    assert ev["probe"]["motion_late_diff"] < 0.01
    assert not ev["tests"][0]["passed"]


def test_mobile_overflow(evaluate):
    ev = ev_of(evaluate, "mobile_overflow", case({"action": "resize", "width": 375, "height": 667}, {"action": "assert_no_horizontal_scroll"}))
    assert not ev["probe"]["overflow_desktop"]["overflowing"]
    assert ev["probe"]["overflow_mobile"]["overflowing"]
    assert not ev["tests"][0]["passed"]


def test_console_errors_are_counted(evaluate):
    ev = ev_of(evaluate, "console_errors", case({"action": "wait", "ms": 500}, {"action": "assert_console_clean"}))
    assert any("boom-1" in e for e in ev["events"]["console_errors"])
    assert any("TypeError" in e for e in ev["events"]["page_errors"])
    assert not ev["tests"][0]["passed"]


def test_missing_viewport_costs_design_and_code_quality(evaluate, cfg):
    ev = ev_of(evaluate, "no_viewport")
    assert ev["static"]["has_viewport_meta"] is False
    s = score(ev, cfg, interactive=True)
    ev["static"] = {**ev["static"], "has_viewport_meta": True}
    fixed = score(ev, cfg, interactive=True)
    assert fixed["visual_design"] > s["visual_design"] and fixed["code_quality"] > s["code_quality"]


@pytest.mark.parametrize("name", ["three_cdn", "three_module"])
def test_three_js_from_a_cdn_renders_offline(evaluate, name):
    ev = ev_of(evaluate, name, case({"action": "wait", "ms": 500}, {"action": "assert_js_value", "expression": "window.sceneReady === true", "expected": True}))
    assert ev["tests"][0]["passed"], ev["tests"][0]
    assert not ev["probe"]["blank"]
    assert ev["network"]["cdn"], "three.js came from the mirror"
    assert ev["network"]["cdn_misses"] == []
    assert ev["events"]["page_error_count"] == 0


def test_visual_design_estimate_ranks_the_design_fixtures(evaluate, cfg):
    from webmend.evaluate.scoring import visual_design_estimate

    names = ["design_1_polished", "design_2_good", "design_3_plain", "design_4_unstyled", "design_5_broken"]
    estimates = [visual_design_estimate(evaluate(fixture_html(f"pages/design/{n}.html"), None)) for n in names]
    assert estimates == sorted(estimates, reverse=True), dict(zip(names, estimates))
    assert len(set(estimates)) == len(estimates)
    assert estimates[0] - estimates[-1] > 0.4  # not a near-constant
