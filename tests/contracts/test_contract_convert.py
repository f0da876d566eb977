"""Test cases <-> contracts: the round trip keeps the steps and, in the browser, the verdicts."""

from __future__ import annotations

import json
from pathlib import Path

from webmend.contracts.convert import INITIAL_CASE, contract_from_item, contract_to_testcases
from webmend.evaluate.contract_run import execute_contract
from webmend.schemas.contract import Step

ROOT = Path(__file__).resolve().parents[2]
ITEMS = [json.loads(line) for line in (ROOT / "data" / "samples" / "items.jsonl").read_text().splitlines() if line.strip()]
TODO = ROOT / "data" / "contracts" / "todo_list"


def _steps(cases: list[dict]) -> list[list[dict]]:
    # numbers given as strings ("ms": "500") come back as numbers: the same step to the runner
    return [[Step.model_validate(s).model_dump(by_alias=True, exclude_unset=True) for s in c["steps"]] for c in cases]


def test_every_sample_item_round_trips_its_test_cases():
    for item in ITEMS:
        contract = contract_from_item(item)
        assert [t.id for t in contract.transitions] == [c["id"] for c in item["test_cases"]]
        assert all(t.from_ == "S0" for t in contract.transitions)
        back, dropped = contract_to_testcases(contract)
        assert _steps(back) == _steps(item["test_cases"]) and dropped == [], item["id"]


def test_trailing_checks_become_after_assertions_of_the_case_requirement():
    item = {"id": "x", "prompt": "p", "test_cases": [{"id": "tc", "name": "adds", "steps": [
        {"action": "click", "selector": "button"}, {"action": "assert_count", "selector": "li", "eq": 1},
        {"action": "type", "selector": "input", "text": "a"}, {"action": "assert_visible", "selector": "li"}]}]}
    t = contract_from_item(item).transitions[0]
    assert [s.action for s in t.steps] == ["click", "assert_count", "type"]  # a mid-way check stays a step
    assert [(a.when, a.check.action, a.requirement) for a in t.assertions] == [("after", "assert_visible", "R1")]


def test_a_step_outside_the_vocabulary_is_a_clear_error():
    item = {"id": "bad", "test_cases": [{"id": "tc", "steps": [{"action": "click", "selector": "a", "force": True}]}]}
    try:
        contract_from_item(item)
    except ValueError as exc:
        assert "bad" in str(exc) and "force" in str(exc)
    else:
        raise AssertionError("converted a step the runner does not know")


def test_a_contract_becomes_cases_that_replay_the_chain_to_each_from_state():
    contract = json.loads((TODO / "contract.json").read_text())
    cases, dropped = contract_to_testcases(contract)
    by_id = {c["id"]: c for c in cases}
    assert list(by_id) == [INITIAL_CASE, "T1", "T2", "T3", "T4", "T5"] and dropped == []
    t1 = [s["action"] for s in by_id["T1"]["steps"]]
    assert t1 == ["type", "click", "assert_text_contains", "assert_value"]
    assert [s["action"] for s in by_id["T5"]["steps"]][:len(t1)] == t1  # T5 starts from S2: T1, T2, then reload
    assert by_id["T5"]["steps"][-3]["action"] == "reload"


def test_verdicts_survive_both_directions(evaluate, worker, cfg):
    """The contract's transitions as test cases pass exactly where the transitions pass, on a
    correct page and on one whose defect blocks a chain; an item's test cases as a contract
    pass where the test cases pass."""
    contract = json.loads((TODO / "contract.json").read_text())
    cases, _ = contract_to_testcases(contract)
    for page in ("refs/ref_a.html", "defects/explicit_add_broken.html"):
        html = (TODO / page).read_text()
        run = execute_contract(html, contract, cfg, worker=worker)
        tests = {t["id"]: t["passed"] for t in evaluate(html, {"id": "todo_list", "test_cases": cases})["tests"]}
        assert tests.pop(INITIAL_CASE) == all(run.initial.values())
        assert tests == {tid: o.status == "passed" for tid, o in run.transitions.items()}, page
    item = next(i for i in ITEMS if i["id"] == "apps_expense_tracker")
    html = (ROOT / "data" / "samples" / "pages" / "apps_expense_tracker.html").read_text()
    tests = {t["id"]: t["passed"] for t in evaluate(html, item)["tests"]}
    run = execute_contract(html, contract_from_item(item), cfg, worker=worker)
    assert {tid: o.status == "passed" for tid, o in run.transitions.items()} == tests
