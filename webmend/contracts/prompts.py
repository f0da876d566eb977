"""The messages that ask a model for a contract, one stage at a time (docs/icg-format.md "Building").

Each stage sees the task and what the earlier stages produced, and answers one JSON object.
"""

from __future__ import annotations

import json

from webmend.schemas.contract import CHECK_ACTIONS, ROLES, STEP_ACTIONS

STAGES = ("requirements", "initial_contract", "graph", "test_items")

SYSTEM = f"""You write executable interaction contracts for single-file web pages. A contract is written
against the task, so it must hold for every page that does the task, whoever wrote it.
- Steps use these actions: {", ".join(STEP_ACTIONS)}.
- Checks use these: {", ".join(CHECK_ACTIONS)}.
- Locate elements the way a user does: "target": {{"role": R, "name": regex}} (R one of {", ".join(ROLES)}),
  or {{"label": ...}}, {{"placeholder": ...}} or {{"text": ...}}; a CSS "selector" only with tags and
  attributes (li, input[type=checkbox]:checked), never an #id or .class of one implementation.
- Check what a user can observe: visible text, counts of visible items, values shown, what survives a reload.
- An assertion is {{"id", "when": "change"|"after", "check": {{...}}, "requirement": id}}.
Answer with one JSON object and nothing else."""

_ASK = {
    "requirements": 'List the requirements: {"requirements": [{"id": "R1", "kind": "explicit"|"implicit", "text": ...}]}. '
                    "Explicit: what the prompt asks for. Implicit: what any user expects anyway.",
    "initial_contract": 'Say what the page must hold when it loads: {"initial_contract": {"text": ..., "checks": '
                        '[assertions with when "after"]}}.',
    "graph": 'Write the states and transitions: {"states": [{"id": "S0", "description": ...}, ...], "transitions": '
             '[{"id": "T1", "from": "S0", "to": ..., "intent": one concrete user intent with values, "steps": [...], '
             '"assertions": [...], "requirements": [ids]}]}. S0 is the page as loaded; every state reachable from S0; '
             "at least one transition exercises two requirements or more.",
    "test_items": 'Group the requirements into test items of at most 3, each mapped to the transitions that check them: '
                  '{"test_items": [{"id": "TI1", "requirements": [...], "transitions": [...]}]}. Cover every requirement.',
}


def stage_messages(stage: str, task: dict, so_far: dict) -> list[dict]:
    user = f"Task ({task['id']}, family {task.get('family')}):\n{task['prompt']}\n"
    if so_far:
        user += f"\nThe contract so far:\n{json.dumps(so_far, indent=1)}\n"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user + "\n" + _ASK[stage]}]


def fix_messages(task: dict, contract: dict, problems: list[str]) -> list[dict]:
    user = (f"Task ({task['id']}):\n{task['prompt']}\n\nThis contract fails validation:\n{json.dumps(contract, indent=1)}\n\n"
            "Problems:\n" + "\n".join(f"- {p}" for p in problems)
            + '\n\nAnswer the whole corrected contract: {"requirements": ..., "initial_contract": ..., "states": ..., '
              '"transitions": ..., "test_items": ...}.')
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
