"""Structural validation of contracts: the hand-written one is valid, and each kind of defect is
reported with its code and where it is."""

from __future__ import annotations

import copy
import json

import jsonschema
import pytest
from conftest import ROOT

from webmend.contracts.validate import PROBLEMS, validate_contract
from webmend.schemas.contract import Contract

TODO = json.loads((ROOT / "data" / "contracts" / "todo_list" / "contract.json").read_text())
SCHEMA = json.loads((ROOT / "webmend" / "schemas" / "contract.schema.json").read_text())


def codes(data) -> set[str]:
    return {p.code for p in validate_contract(data)}


def test_the_hand_written_contract_is_valid_against_schema_and_rules():
    jsonschema.validate(TODO, SCHEMA)
    assert validate_contract(TODO) == []
    assert Contract.model_validate(TODO).model_dump(mode="json", by_alias=True, exclude_defaults=True)["transitions"][0]["from"] == "S0"


def _mutated(change):
    data = copy.deepcopy(TODO)
    change(data)
    return data


def _t(data, tid):
    return next(t for t in data["transitions"] if t["id"] == tid)


DEFECTS = {
    "unreachable_state": lambda d: d["transitions"].append({**_t(d, "T5"), "id": "T6", "from": "S9", "to": "S9"})
    or d["states"].append({"id": "S9", "description": "only reached from itself"}),
    "orphan_state": lambda d: d["states"].append({"id": "S7", "description": "nothing leads here"}),
    "unknown_state": lambda d: _t(d, "T3").update({"to": "S8"}),
    "no_initial_state": lambda d: d.update({"states": [s for s in d["states"] if s["id"] != "S0"]}),
    "uncovered_requirement": lambda d: d["requirements"].append({"id": "R7", "kind": "implicit", "text": "no check"}),
    "unknown_requirement": lambda d: _t(d, "T4")["assertions"][0].update({"requirement": "R42"}),
    "no_composed_transition": lambda d: [t.update({"requirements": t["requirements"][:1]}) or
                                         [a.update({"requirement": t["requirements"][0]}) for a in t["assertions"]]
                                         for t in d["transitions"]],
    "no_explicit_requirement": lambda d: [r.update({"kind": "implicit"}) for r in d["requirements"]],
    "duplicate_id": lambda d: _t(d, "T2").update({"id": "T1"}),
    "bad_step": lambda d: _t(d, "T1")["steps"][0].pop("text"),
    "bad_selector": lambda d: _t(d, "T3")["assertions"][0]["check"].update({"selector": "li["}),
    "implementation_selector": lambda d: _t(d, "T3")["steps"][0].update({"target": None, "selector": "#delete-btn"}),
    "bad_pattern": lambda d: _t(d, "T1")["assertions"][0]["check"].update({"text": "Buy (milk"}),
    "bad_assertion": lambda d: _t(d, "T1")["assertions"][1].update({"judged": True}),
    "empty_transition": lambda d: _t(d, "T4").update({"steps": []}),
    "unknown_transition": lambda d: d["test_items"][0].update({"transitions": ["T99"]}),
    "schema": lambda d: _t(d, "T1")["steps"].append({"action": "teleport"}),
}


@pytest.mark.parametrize("code", sorted(DEFECTS))
def test_each_defect_is_reported_with_its_code(code):
    found = validate_contract(_mutated(DEFECTS[code]))
    assert code in {p.code for p in found}, [str(p) for p in found]
    assert all(p.where and p.message for p in found)


def test_every_problem_code_is_exercised():
    assert set(DEFECTS) == set(PROBLEMS)


def test_a_target_names_exactly_one_way_to_find_the_element():
    data = _mutated(lambda d: _t(d, "T1")["steps"][1]["target"].update({"label": "Add"}))
    (problem,) = validate_contract(data)
    assert problem.code == "bad_step" and "exactly one" in problem.message and problem.where == "transitions[T1].steps[1]"


def test_a_judged_assertion_needs_text_and_no_check():
    ok = _mutated(lambda d: _t(d, "T1")["assertions"].append(
        {"id": "A9", "when": "after", "judged": True, "text": "the list looks tidy", "requirement": "R1"}))
    assert validate_contract(ok) == []
    assert codes(_mutated(lambda d: _t(d, "T1")["assertions"][0].update({"check": {"action": "click", "selector": "li"}}))) == {"bad_assertion"}


def test_a_requirement_checked_only_at_load_has_a_test_item_without_transitions():
    c = copy.deepcopy(TODO)
    c["requirements"].append({"id": "R_load", "kind": "implicit", "text": "the list area shows at load"})
    c["initial_contract"]["checks"].append({"id": "I_load", "when": "after", "requirement": "R_load",
                                            "check": {"action": "assert_visible", "selector": "ul"}})
    c["test_items"].append({"id": "TI_load", "requirements": ["R_load"], "transitions": []})
    assert validate_contract(c) == []
    c["initial_contract"]["checks"].pop()  # nothing checks it at load any more
    assert [(p.code, p.where) for p in validate_contract(c)][:1] == [("uncovered_requirement", "test_items[TI_load]")]
