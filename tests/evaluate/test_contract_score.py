"""Contract scores from transition outcomes: T, requirement scores, labels z, Re, Ri, r_web."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from webmend.evaluate.contract_score import TransitionOutcome, score_contract
from webmend.schemas.contract import Contract

TODO = Contract.model_validate(json.loads((ROOT / "data" / "contracts" / "todo_list" / "contract.json").read_text()))
ALL = {"A1": True, "A2": True, "A3": True, "A4": True, "A5": True, "A6": True, "A7": True, "A8": True}


def outcomes(**status) -> dict[str, TransitionOutcome]:
    out = {}
    for t in TODO.transitions:
        verdicts = {a.id: ALL[a.id] for a in t.assertions}
        out[t.id] = TransitionOutcome(status.get(t.id, "passed"), verdicts)
    return out


def test_a_page_that_passes_everything_scores_one():
    s = score_contract(TODO, outcomes(), {"I1": True, "I2": True})
    assert (s.transition_validity, s.req_explicit, s.req_implicit, s.reward) == (1.0, 1.0, 1.0, 1.0)
    assert set(s.labels.values()) == {1}


def test_a_page_that_forgets_on_reload():
    out = outcomes()
    out["T5"] = TransitionOutcome("failed", {"A7": False, "A8": False}, failed_step=None, reason="A7 false after")
    s = score_contract(TODO, out, {"I1": True, "I2": True})
    assert s.transition_validity == pytest.approx(4 / 5)
    assert s.requirements["R4"] == 0.0 and s.labels["R4"] == 0
    assert s.labels["R2"] == 1  # R2's own assertion (A3) passed; T5 only maps it through a test item
    assert s.req_explicit == pytest.approx(3 / 4) and s.req_implicit == 1.0
    assert s.reward == pytest.approx(0.5 * 0.8 + 0.25 * 0.75 + 0.25 * 1.0)


def test_a_blocked_chain_fails_everything_past_it():
    # Adding fails, so S1 and S2 cannot be reached: T2, T3 and T5 are blocked.
    out = outcomes(T2="blocked", T3="blocked", T5="blocked")
    out["T1"] = TransitionOutcome("failed", {"A1": False, "A2": True}, failed_step=1, reason="no button named add")
    s = score_contract(TODO, out, {"I1": False, "I2": True})
    assert s.transition_validity == pytest.approx(1 / 5)
    assert s.requirements["R1"] == 0.0  # I1, A1 and A4 (blocked) all failed
    assert s.requirements["R6"] == 1.0 and s.requirements["R5"] == 1.0
    assert {r: s.labels[r] for r in ("R1", "R2", "R3", "R4", "R5", "R6")} == {
        "R1": 0, "R2": 0, "R3": 0, "R4": 0, "R5": 1, "R6": 1}
    assert s.req_explicit == 0.0 and s.req_implicit == 1.0 and s.reward == pytest.approx(0.1 + 0.25)


def test_a_judged_assertion_without_a_judge_counts_for_nothing():
    data = json.loads((ROOT / "data" / "contracts" / "todo_list" / "contract.json").read_text())
    data["transitions"][0]["assertions"].append({"id": "A9", "when": "after", "judged": True, "text": "tidy", "requirement": "R6"})
    contract = Contract.model_validate(data)
    out = outcomes()
    out["T1"] = TransitionOutcome("passed", {"A1": True, "A2": True, "A9": None})
    s = score_contract(contract, out, {"I1": True, "I2": True})
    assert s.requirements["R6"] == 1.0 and s.labels["R6"] == 1


def test_a_missing_outcome_counts_as_blocked():
    out = outcomes()
    del out["T4"]
    s = score_contract(TODO, out, {"I1": True, "I2": True})
    assert s.transition_validity == pytest.approx(4 / 5) and s.labels["R5"] == 0
