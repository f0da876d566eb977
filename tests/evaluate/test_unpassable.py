"""Checks no correct page can pass, recognised from the test case (webmend/evaluate/unpassable.py)."""

from __future__ import annotations

from webmend.evaluate.unpassable import unpassable_step

STATIC = {"category": "apps_tools", "prompt": "A notes page with an Add button and a list."}
SELF_CHANGE = [{"action": "screenshot"}, {"action": "wait", "ms": 500}, {"action": "assert_screenshot_changed"}]


def case(*steps):
    return {"id": "c", "steps": list(steps)}


def test_a_change_check_with_nothing_acting_since_its_capture_is_flagged_in_a_still_task():
    flag = unpassable_step(case(*SELF_CHANGE), STATIC)
    assert (flag.step, flag.rule) == (2, "change_without_action") and "capture at step 0" in flag.reason


def test_a_change_check_is_passable_after_an_action_or_when_the_task_asks_for_motion():
    acted = case({"action": "screenshot"}, {"action": "click", "selector": "#add"}, {"action": "assert_screenshot_changed"})
    assert unpassable_step(acted, STATIC) is None
    assert unpassable_step(case(*SELF_CHANGE), {"category": "visual_art_animation", "prompt": "A calm scene"}) is None
    # the one bench case the rule first flagged: a force layout moves while it settles (a correct page passes)
    force = {"category": "data_visualization", "prompt": "Build a D3 force-directed network of contributors"}
    assert unpassable_step(case(*SELF_CHANGE), force) is None
    # a new capture after the action resets what "since" means
    recaptured = case({"action": "click", "selector": "#add"}, *SELF_CHANGE)
    assert unpassable_step(recaptured, STATIC).rule == "change_without_action"


def test_format_errors_are_flagged():
    assert unpassable_step(case({"action": "assert_screenshot_changed"}), STATIC).rule == "no_reference_capture"
    assert unpassable_step(case({"action": "wiggle"}), STATIC).rule == "unknown_action"
    assert unpassable_step(case({"action": "click"}, ["not a step"]), STATIC).rule == "unknown_action"


def test_selector_and_pattern_errors_are_flagged_only_at_the_step_that_failed_with_them():
    bad = case({"action": "click", "selector": "#a[["})
    error = 'click: Locator.click: Unexpected token "" while parsing css selector "#a[[".'
    assert unpassable_step(bad, STATIC, error, 0).rule == "invalid_selector"
    pattern = case({"action": "click_text", "text_pattern": "(unclosed"})
    assert unpassable_step(pattern, STATIC, "bad pattern '(unclosed': missing )", 0).rule == "invalid_pattern"
    # a missing element is the page's business, not the check's
    missing = "click: Locator.click: Timeout 1500ms exceeded. ('#a' matches 0 elements, 0 visible)"
    assert unpassable_step(case({"action": "click", "selector": "#a"}), STATIC, missing, 0) is None
