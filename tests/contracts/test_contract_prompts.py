"""The contract builder's prompt states every action's fields (from ACTION_SPECS, the schema's one
list), its example contract is valid, and a re-ask after a wrong field names the right one."""

from __future__ import annotations

import copy
import json

from contracts.test_contract_build import TASK, TODO, model, stage_replies
from llm.llm_fixtures import server  # noqa: F401 (the server fixture)
from llm.llm_server import chat_reply

from webmend.contracts.build import _assemble, build_contract
from webmend.contracts.prompts import EXAMPLE, SYSTEM, stage_messages
from webmend.contracts.validate import validate_contract
from webmend.schemas.contract import ACTION_SPECS, Step


def test_the_transitions_request_names_every_field_of_every_action():
    system = stage_messages("graph", TASK, {})[0]["content"]
    lines = {line.split(":")[0][2:]: line for line in system.splitlines() if line.startswith("- ")}
    for action, spec in ACTION_SPECS.items():
        assert all(f in lines[action] for f in spec.fields()[1:]), (action, lines[action])
        Step.model_validate(spec.example)  # every example is a valid step of its action
    for field in ("expression", "text_pattern", "selector", "target"):
        assert f'"{field}"' in system or f" {field}" in system
    assert '"change"' in system and '"after"' in system and "promise" in system


def test_the_example_contract_in_the_prompt_is_valid():
    assert validate_contract(_assemble({"id": "counter", "prompt": "A counter"}, EXAMPLE)) == []
    assert json.dumps(EXAMPLE) in SYSTEM


def test_a_wrong_field_is_named_with_the_right_ones_and_the_corrected_contract_is_kept(server, tmp_path):  # noqa: F811
    wrong = copy.deepcopy(TODO)
    check = wrong["transitions"][0]["assertions"][0]
    check["check"] = {"type": "assert_js_value", "js": "document.querySelectorAll('li').length >= 1"}
    right = copy.deepcopy(TODO)
    right["transitions"][0]["assertions"][0]["check"] = {
        "action": "assert_js_value", "expression": "document.querySelectorAll('li').length >= 1", "expected": True}
    n = len(server.requests)
    server.script(*stage_replies(wrong), chat_reply(json.dumps({"contract": right})))
    result = build_contract(TASK, model(tmp_path))
    fix = server.requests[n + 4].user_text
    assert "the action's name goes in \"action\", not 'type'" in fix
    assert "'js' is not a field of assert_js_value; its fields: action, expression, expected, timeout" in fix
    assert result.kept and result.sent_back
    assert result.contract["transitions"][0]["assertions"][0]["check"]["expression"].startswith("document")


def test_the_prompt_explains_observations_and_how_a_contract_runs():
    system = stage_messages("initial_contract", TASK, {})[0]["content"]
    for name in ("assert_drawn_text", "assert_colors", "assert_coverage", "assert_animates", "assert_still"):
        assert f"- {name}: needs" in system
    for said in ("observed.drawnText", "observed.storageAtStart", '"helpers"', '"init_script"', "replaying from S0",
                 "confirm() with\nfalse", "selected option", "1280x720", '"never"', '"row"'):
        assert said in system, said


def test_helpers_given_in_a_stage_answer_reach_the_kept_contract(server, tmp_path):  # noqa: F811
    helpers = "function count() { return document.querySelectorAll('li').length; }"
    with_helpers = copy.deepcopy(TODO)
    with_helpers["transitions"][0]["assertions"][0]["check"] = {
        "action": "assert_js_value", "expression": "count() >= 1", "expected": True}
    replies = stage_replies(with_helpers)
    graph = {"states": with_helpers["states"], "transitions": with_helpers["transitions"], "helpers": helpers}
    server.script(*replies[:2], chat_reply(json.dumps(graph)), replies[3])
    result = build_contract(TASK, model(tmp_path))
    assert result.kept and result.contract["helpers"] == helpers


def test_a_later_stages_helpers_are_added_after_the_earlier_ones():
    from webmend.contracts.build import _joined

    assert _joined(None, "function a() {}") == "function a() {}"
    assert _joined("function a() {}", "function b() {}") == "function a() {}\nfunction b() {}"
    assert _joined("function a() {}", "function a() {}\nfunction b() {}") == "function a() {}\nfunction b() {}"
