"""Conversion both ways between HTMLBench items (test cases) and contracts (docs/icg-format.md,
"Test cases and contracts"), so that a round trip keeps verdicts.

- An item's test case becomes a transition from S0 to a state of its own: its steps up to the last
  action stay steps (checks among them included: a failing one fails the transition as it failed
  the case) and the trailing checks become `after` assertions, tagged with the case's requirement.
- A contract's transition becomes a test case: the steps of the chain that reaches its from-state
  in the executor's walk (each prefix transition in full: steps, after checks, to-state predicate),
  `S0`'s predicate first, then its own steps and after checks. `change` assertions have no
  test-case form: they are left out and listed. The initial contract's checks become one more case.
"""

from __future__ import annotations

from pydantic import ValidationError

from webmend.schemas.contract import CHECK_ACTIONS, INITIAL_STATE, Contract, Transition
from webmend.schemas.vocab import FAMILIES

INITIAL_CASE = "initial"


def contract_from_item(item: dict) -> Contract:
    """A contract with one explicit requirement, one state and one transition per test case."""
    cases = [c for c in item.get("test_cases") or [] if isinstance(c, dict)]
    requirements, states, transitions = [], [{"id": INITIAL_STATE, "description": "the page as loaded"}], []
    for i, case in enumerate(cases, 1):
        cid = str(case.get("id") or f"tc{i}")
        name = str(case.get("name") or cid)
        steps = [s for s in case.get("steps") or [] if isinstance(s, dict)]
        # A case of checks only keeps them all as steps (a transition needs one); checks are steps too.
        last_action = max((k for k, s in enumerate(steps) if s.get("action") not in CHECK_ACTIONS), default=len(steps) - 1)
        rid, sid = f"R{i}", f"S{i}"
        requirements.append({"id": rid, "kind": "explicit", "text": name})
        states.append({"id": sid, "description": f"after test case {cid}"})
        transitions.append({
            "id": cid, "from": INITIAL_STATE, "to": sid, "intent": name,
            "steps": steps[:last_action + 1] or [{"action": "wait", "ms": 0}],  # a case without steps
            "assertions": [{"id": f"{cid}.a{k}", "when": "after", "check": s, "requirement": rid}
                           for k, s in enumerate(steps[last_action + 1:], 1)],
            "requirements": [rid],
        })
    family = item.get("category") if item.get("category") in FAMILIES else None
    task = {"id": str(item.get("id", "")), "prompt": str(item.get("prompt", "")), "family": family}
    try:
        return Contract.model_validate({"task": task, "requirements": requirements,
                                        "initial_contract": {"text": "", "checks": []},
                                        "states": states, "transitions": transitions})
    except ValidationError as exc:  # a step outside the test-case vocabulary
        where = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:5])
        raise ValueError(f"item {task['id']}: its test cases do not convert: {where}") from None


def contract_to_testcases(contract: Contract | dict) -> tuple[list[dict], list[str]]:
    """Test cases for every transition (plus the initial checks), and the ids of the `change`
    assertions that could not be carried over."""
    c = contract if isinstance(contract, Contract) else Contract.model_validate(contract)
    predicates = {s.id: s.predicate for s in c.states if s.predicate}
    chains = walk_chains(c)
    cases, dropped = [], []
    if c.initial_contract.checks:
        cases.append({"id": INITIAL_CASE, "name": c.initial_contract.text or "initial contract",
                      "steps": [_dump(a.check) for a in c.initial_contract.checks if not a.judged]})
    by_id = {t.id: t for t in c.transitions}
    for t in c.transitions:
        if t.from_ not in chains:
            continue  # no path from S0: the executor blocks it, and no test case can start it
        steps = _predicate_step(predicates.get(INITIAL_STATE))
        for tid in chains[t.from_] + [t.id]:
            steps += _transition_steps(by_id[tid], predicates)
        dropped += [a.id for a in t.assertions if a.when in ("change", "never") and not a.judged]
        cases.append({"id": t.id, "name": t.intent, "steps": steps})
    return cases, dropped


def walk_chains(c: Contract) -> dict[str, list[str]]:
    """State -> the transitions that reach it first in the executor's depth-first walk when every
    transition passes (execute._Walk, which takes the same order)."""
    by_from: dict[str, list[Transition]] = {}
    for t in c.transitions:
        by_from.setdefault(t.from_, []).append(t)
    chains = {INITIAL_STATE: []}

    def explore(state: str) -> None:
        for t in by_from.get(state, []):
            if t.to not in chains:
                chains[t.to] = chains[state] + [t.id]
                explore(t.to)

    explore(INITIAL_STATE)
    return chains


def _transition_steps(t: Transition, predicates: dict[str, str]) -> list[dict]:
    after = [_dump(a.check) for a in t.assertions if a.when == "after" and not a.judged]
    return [_dump(s) for s in t.steps] + after + _predicate_step(predicates.get(t.to))


def _predicate_step(expression: str | None) -> list[dict]:
    return [{"action": "assert_js_value", "expression": expression, "expected": True}] if expression else []


def _dump(step) -> dict:
    return step.model_dump(by_alias=True, exclude_unset=True)
