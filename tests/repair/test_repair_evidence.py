"""What a repair prompt shows a model: every failed check with its definition and what was observed,
checks no page can pass apart, and earlier attempts with what they changed and why they were rejected.

The notes fixture (data/fixtures/repair_evidence/) is evaluated once in real Chromium; the model is
the scripted server on 127.0.0.1, reached through litellm.
"""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES
from llm.llm_fixtures import make_client, server  # noqa: F401 (the server fixture)
from llm.llm_server import chat_reply

from webmend.config import RepairConfig
from webmend.evaluate.inputs import load_items
from webmend.llm.cache import ResponseCache
from webmend.repair.diagnosis import diagnose
from webmend.repair.evaluation import evaluate_html
from webmend.repair.evidence import as_text, fit
from webmend.repair.loop import Checkpoint, _terms_moved, repair_page
from webmend.repair.model import RepairModel, llm_proposer
from webmend.repair.router import route
from webmend.schemas.repair import RouteDecision

HERE = FIXTURES / "repair_evidence"
ITEM = load_items(HERE / "items.jsonl")["notes"]
NOTES = (HERE / "notes.html").read_text()
FIX_ADD = {"patches": [{"old_str": "getElementById('status').value", "new_str": "getElementById('note').value"}]}
BREAK_COUNT = {"patches": [{"old_str": '<p id="status">0 notes</p>', "new_str": '<p id="status">No notes yet</p>'}]}
CFG = RepairConfig(operators=False, candidates_per_round=1, patience=5, target=99.9)


@pytest.fixture(scope="module")
def original(worker):
    return evaluate_html(NOTES, ITEM, CFG.evaluation, worker, "notes")


@pytest.fixture(scope="module")
def text(original):
    return as_text(diagnose(original, CFG.evaluation, item=ITEM))


def test_a_failed_assert_js_value_shows_its_expression_and_the_value_it_got(text):
    assert "FAILED test js_value (Adding stores the note, weight 2) at step 2 (assert_js_value)" in text
    assert '"expression": "document.getElementById(\'notes\').textContent.includes(\'milk\')"' in text
    assert "<- FAILED here: assert_js_value: got false, expected true" in text
    assert '1. {"action": "click", "selector": "#add"}' in text  # the steps that led there


def test_a_failed_click_and_click_text_show_their_locator_and_what_matched(text):
    assert '0. {"action": "click", "selector": "#notes .remove"}' in text
    assert "'#notes .remove' matches 0 elements, 0 visible" in text
    assert '"text_pattern": "(?i)^delete everything$"' in text and "no visible element matches" in text


def test_a_failed_screenshot_comparison_names_the_capture_it_compared_with(text):
    assert "compares the viewport now with the capture at step 2 (label 'with a note')" in text
    assert "run since that capture: click, wait" in text and "diff 0.0000" in text


def test_checks_no_page_can_pass_are_flagged_apart_and_left_out_of_the_targets(original):
    d = diagnose(original, CFG.evaluation, item=ITEM)
    flagged = {t.id: t.rule for t in d.unpassable_tests}
    assert flagged == {"self_motion": "change_without_action", "no_capture": "no_reference_capture",
                       "bad_selector": "invalid_selector"}
    assert {t.id for t in d.failed_tests} == {"js_value", "click_missing", "click_text", "shot"}  # "shot" acts: passable
    assert d.passing_tests == ["count"] and original["tests"][-1]["passed"]
    assert "not a page defect: do not change the page for it" in as_text(d)
    # the verdict is unchanged: flagged cases still fail and count in the score
    assert sum(not t["passed"] for t in original["tests"]) == 7
    # a page whose only failures no page can pass has nothing for the router to target
    only_flagged = {**original, "tests": [t if t["id"] in flagged else {**t, "passed": True, "failed_step": None}
                                          for t in original["tests"]]}
    d2 = diagnose(only_flagged, CFG.evaluation, item=ITEM)
    assert d2.failed_tests == [] and len(d2.unpassable_tests) == 3
    assert route(d2, CFG, 1).rule == route(diagnose({**only_flagged, "tests": []}, CFG.evaluation), CFG, 1).rule


def test_lists_are_cut_by_whole_items():
    items = [json.dumps({"selector": f"div:nth-of-type({i}) > b", "width": 400 + i}) for i in range(40)]
    kept = fit(items, 300)
    assert kept[:-1] == items[:len(kept) - 1] and kept[-1] == f"({40 - len(kept) + 1} more not shown)"
    assert all(json.loads(k) for k in kept[:-1])  # every kept item is whole


def test_a_rejection_names_the_scoring_terms_that_moved():
    def with_design(backgrounds):
        design = {"textElements": 10, "cssRules": 40, "defaultFont": False, "backgrounds": backgrounds, "fontSizes": 4,
                  "hoverRules": 2, "lowContrast": 0, "smallText": 0, "overlaps": 0}
        return {"status": "ok", "interactive": False, "tests": [],
                "evidence": {"probe": {"blank": False, "doc": {"textChars": 100}, "design": design},
                             "static": {"has_viewport_meta": True}, "events": {}}}

    moved = _terms_moved(with_design(5), with_design(1), CFG)
    assert [(t.dimension, t.term, t.before, t.after) for t in moved] == [("visual_design", "palette", 1.0, 0.4)]


def test_attempts_say_what_they_changed_which_tests_moved_and_why_they_were_rejected(server, original, worker, tmp_path):  # noqa: F811
    n = len(server.requests)
    server.script(chat_reply(json.dumps(FIX_ADD)), chat_reply(json.dumps(BREAK_COUNT)), chat_reply("no idea"))
    model = RepairModel(make_client(), CFG, ResponseCache(tmp_path / "cache"))
    cfg = CFG.model_copy(update={"max_rounds": 3})
    trace = repair_page(NOTES, ITEM, original, cfg, llm_proposer(model, cfg, ITEM["prompt"]), worker=worker)
    fixed, broke = trace.record["attempts"][:2]
    assert fixed["accepted"] and fixed["tests_fixed"] == ["js_value"]
    assert fixed["changes"].startswith("+1/-1 lines in 1 place: line ") and "getElementById('note').value" in fixed["changes"]
    assert {"dimension": "functionality", "term": "tests_passed"} == {k: fixed["terms_moved"][0][k] for k in ("dimension", "term")}
    assert not broke["accepted"] and broke["early_rejected"] and broke["tests_broken"] == ["count"]
    assert broke["reason"].startswith("regression (early): passing test case count now fails at step 0 (assert_text_contains)")
    assert "No notes yet" in broke["changes"]
    later = server.requests[n + 2].user_text
    assert "round 1, candidate 1: interaction_repair (patch): ACCEPTED" in later
    assert "tests fixed: js_value (Adding stores the note)" in later
    assert "round 2, candidate 1: interaction_repair (patch): REJECTED: regression (early): passing test case count" in later
    assert "it changed: +1/-1 lines in 1 place" in later and "tests broken: count (Status line shows the count)" in later
    assert 'the steps of count, which the checkpoint passes: 0. {"action": "assert_text_contains"' in later
    assert "- passing test case count (Status line shows the count)" in later


def test_a_round_tells_its_second_strategy_what_the_first_changed(server, original, tmp_path):  # noqa: F811
    n = len(server.requests)
    server.script(chat_reply(json.dumps(FIX_ADD)), chat_reply(json.dumps(BREAK_COUNT)))
    model = RepairModel(make_client(), CFG, ResponseCache(tmp_path / "cache"))
    propose = llm_proposer(model, CFG, ITEM["prompt"])
    d = diagnose(original, CFG.evaluation, item=ITEM)
    decision = RouteDecision(round=1, state="Mid", strategies=["interaction_repair", "feature_completion"],
                             game_layer=None, rule="mid: test")
    first = propose(decision, Checkpoint(0, NOTES, original), d, [])
    assert [c.llm_call for c in first] == [True, True]
    assert "## Other candidates this round" not in server.requests[n].user_text
    assert "- interaction_repair: +1/-1 lines in 1 place" in server.requests[n + 1].user_text
    # the same requests again: answered from the cache, nothing is sent, the same pages come back
    again = propose(decision, Checkpoint(0, NOTES, original), d, [])
    assert len(server.requests) == n + 2 and [c.llm_call for c in again] == [False, False]
    assert [c.html for c in again] == [c.html for c in first]
