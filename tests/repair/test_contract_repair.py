"""Repair with a task contract: the diagnosis lists failed transitions and unmet requirements, and a
candidate that breaks a transition the checkpoint passes is rejected like one that breaks a test."""

from __future__ import annotations

from test_router import CFG, record

from webmend.config import RepairConfig
from webmend.repair.acceptance import judge, transition_flips
from webmend.repair.diagnosis import as_text, diagnose


def with_contract(rec: dict, **status) -> dict:
    transitions = {tid: {"status": s, "failed_step": None if s == "passed" else 0,
                         "reason": "" if s == "passed" else f"{tid} went wrong", "assertions": {}}
                   for tid, s in status.items()}
    unmet = [{"id": "R2", "kind": "implicit", "text": "an empty task is not added"}] if "failed" in status.values() else []
    rec["contract"] = {"task_id": "todo_list", "contract_hash": "h", "transitions": transitions,
                       "requirements": {"R1": 1.0, "R2": 0.0 if unmet else 1.0}, "labels": {"R1": 1, "R2": 0 if unmet else 1},
                       "unmet": unmet, "transition_validity": 0.5, "req_explicit": 1.0, "req_implicit": 0.0, "reward": 0.5}
    return rec


def test_the_diagnosis_lists_failed_transitions_and_unmet_requirements():
    d = diagnose(with_contract(record(55, "Mid"), T1="passed", T2="failed", T3="blocked"), CFG)
    assert d.passing_transitions == ["T1"]
    assert [(t.id, t.status) for t in d.failed_transitions] == [("T2", "failed"), ("T3", "blocked")]
    assert [(r.id, r.kind, r.score) for r in d.unmet_requirements] == [("R2", "implicit", 0.0)]
    text = as_text(d)
    assert "FAILED contract transition T2" in text and "BLOCKED contract transition T3" in text
    assert "unmet implicit requirement R2: an empty task is not added" in text


def test_a_candidate_that_breaks_a_passing_transition_is_rejected():
    checkpoint = with_contract(record(55, "Mid"), T1="passed", T2="failed")
    better_but_broken = with_contract(record(70, "Mid"), T1="blocked", T2="passed")
    assert transition_flips(checkpoint, better_but_broken) == ("T1",)
    verdict = judge(better_but_broken, checkpoint, RepairConfig())
    assert not verdict.accepted and "contract transitions now fail: T1" in verdict.reason
    fixed = with_contract(record(70, "Mid"), T1="passed", T2="passed")
    assert transition_flips(checkpoint, fixed) == () and judge(fixed, checkpoint, RepairConfig()).accepted
