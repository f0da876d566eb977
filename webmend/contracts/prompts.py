"""The messages that ask a model for a contract, one stage at a time (docs/icg-format.md "Building").

Each stage sees the task and what the earlier stages produced, and answers one JSON object.
"""

from __future__ import annotations

import json

from webmend.config import EvalConfig
from webmend.schemas.contract import ACTION_SPECS, CHECK_ACTIONS, ROLES, STEP_ACTIONS

STAGES = ("requirements", "initial_contract", "graph", "test_items")
_RUN = EvalConfig()  # the viewport and settle time the executor uses by default, stated in the prompt

# One complete small contract, shown to the model (a test keeps it valid).
EXAMPLE = {
    "requirements": [
        {"id": "R1", "kind": "explicit", "text": "'Add one' increases the shown count by one"},
        {"id": "R2", "kind": "explicit", "text": "'Reset' sets the count back to 0"},
        {"id": "R3", "kind": "implicit", "text": "the count survives a reload"},
    ],
    "initial_contract": {"text": "A count of 0 with an 'Add one' and a 'Reset' button.", "checks": [
        {"id": "I1", "when": "after", "requirement": "R1",
         "check": {"action": "assert_visible", "target": {"role": "button", "name": "add one"}}}]},
    "states": [{"id": "S0", "description": "count 0"}, {"id": "S1", "description": "count 2"}],
    "transitions": [
        {"id": "T1", "from": "S0", "to": "S1", "intent": "add one twice", "requirements": ["R1"],
         "steps": [{"action": "click", "target": {"role": "button", "name": "add one"}},
                   {"action": "click", "target": {"role": "button", "name": "add one"}}],
         "assertions": [{"id": "A1", "when": "change", "requirement": "R1",
                         "check": {"action": "assert_text_contains", "selector": "body", "text": "\\b1\\b"}},
                        {"id": "A2", "when": "after", "requirement": "R1",
                         "check": {"action": "assert_text_contains", "selector": "body", "text": "\\b2\\b"}}]},
        {"id": "T2", "from": "S1", "to": "S1", "intent": "reload the page with the count at 2", "requirements": ["R3"],
         "steps": [{"action": "reload"}],
         "assertions": [{"id": "A3", "when": "after", "requirement": "R3",
                         "check": {"action": "assert_text_contains", "selector": "body", "text": "\\b2\\b"}}]},
        {"id": "T3", "from": "S1", "to": "S0", "intent": "add one more, then reset", "requirements": ["R1", "R2"],
         "steps": [{"action": "click", "target": {"role": "button", "name": "add one"}},
                   {"action": "click", "target": {"role": "button", "name": "reset"}}],
         "assertions": [{"id": "A4", "when": "change", "requirement": "R1",
                         "check": {"action": "assert_text_contains", "selector": "body", "text": "\\b3\\b"}},
                        {"id": "A5", "when": "after", "requirement": "R2",
                         "check": {"action": "assert_js_value",
                                   "expression": "!/\\b[1-9]\\d*\\b/.test(document.body.innerText)", "expected": True}}]},
    ],
    "test_items": [{"id": "TI1", "requirements": ["R1", "R2"], "transitions": ["T1", "T3"]},
                   {"id": "TI2", "requirements": ["R3"], "transitions": ["T2"]}],
}


def _action_lines(actions: tuple[str, ...]) -> str:
    lines = []
    for name in actions:
        spec = ACTION_SPECS[name]
        needs = "; ".join(" or ".join(n) for n in spec.needs) or "no field"
        optional = f"; optional {', '.join(spec.optional)}" if spec.optional else ""
        lines.append(f"- {name}: needs {needs}{optional}. {spec.does}. e.g. {json.dumps(spec.example)}")
    return "\n".join(lines)


SYSTEM = f"""You write executable interaction contracts for single-file web pages. A contract is written
against the task, so it must hold for every page that does the task, whoever wrote it.

## Steps and checks
A step or a check is one JSON object: "action" and only the fields listed for that action (no
other key: not "type", "js", "script" or "selector" inside "target").
Finding an element: "target" is how a user finds it, exactly one of {{"role": R, "name": regex}} (R one of
{", ".join(ROLES)}; "name" is the accessible name, optional), {{"label": regex}}, {{"placeholder": regex}} or
{{"text": regex}}, plus optional "nth" (0-based among visible matches), "exact": true (whole-string match)
and "row": regex (look inside the list item or table row whose text matches: the checkbox of "Buy milk");
or "selector", a CSS selector beside "target" (not inside it) made of tags and attributes only (li,
input[type=checkbox]:checked, canvas), never an #id or .class of one implementation. Text in a
target, "text" of the text checks and "text_pattern" are regular expressions searched
case-insensitively (a target with "exact": true matches the whole string instead).

Steps (what a user does), in a transition's "steps":
{_action_lines(STEP_ACTIONS)}

Checks (what must be true), in an assertion's "check":
{_action_lines(CHECK_ACTIONS)}

## Assertions
{{"id": "A1", "when": "change", "after" or "never", "check": {{a check}}, "requirement": "R1"}}. "after": the
check must hold when the transition's steps have all run. "change": it must become true at some point
during the transition (it is checked after every step). "never": it must be false after every step
(e.g. an invalid form never shows "Sending"). Assertions are checked in the order listed. An
assertion a check cannot express may be {{"id", "when", "judged": true, "text": what a person would see,
"requirement"}} with no check (initial checks too): a visual judge decides it from one screenshot taken then.
JavaScript ("expression" of eval_js, assert_js_value and click_at) runs in the page's own window: it
sees the page's globals and DOM; it may be statements, and the value of the last one is its value;
its own const/let stay its own; a returned promise is awaited while page time advances (up to
"timeout" ms of page time, default 5000); assert_js_value compares the resulting value with
"expected" exactly.
Check what a user can observe: visible text, counts of visible items, values shown, what survives a reload.
assert_value reads a form field's current value (a select's: the value of its selected option).

## Canvas pages, and what happens at load
What a page draws on a canvas is not in the DOM: check it with assert_drawn_text (text drawn with
fillText/strokeText, recorded from before the page's first script, offscreen canvases included),
assert_colors, assert_coverage, assert_animates and assert_still (pixels of the element's box, or of
the viewport). assert_animates and assert_still let page time pass: use them in "after" assertions.
Expressions and helpers can read `observed`, what the evaluator recorded in the document since it
started loading (each read is fresh, also while a promise waits): observed.now (page ms),
observed.drawnText ([{{text, first, last, count, x, y}}], most recent last; x, y: viewport px of the
text's centre, null for offscreen canvases), observed.circles ([{{x, y, r, fill, stroke}}]: the arcs and
ellipses of the latest frame, viewport px; fill/stroke: the colour (e.g. "#ff8800"), "gradient" or
"pattern" its path was filled/stroked with, else null: find "a planet" or "the ball" by shape),
observed.frames (animation frames run), observed.workers ([{{url, messagesIn, messagesOut, errors}}]),
observed.storageAtStart (localStorage as the document found it), observed.storageWrites
([{{op, key, at}}]). click_drawn_text clicks a text drawn on a canvas; click_at clicks a point you
compute (e.g. where a planet is now). Any stage's answer may add, at its top level beside the keys it
is asked for, "helpers": JavaScript (functions) in scope for every expression of the contract,
written once instead of pasted into each check, and "init_script": JavaScript run in every document
before the page's own scripts, for instrumentation these lack. Both apply to the whole contract
(initial checks included); a later stage's "helpers" or "init_script" is added after the earlier
one, so give only what you add (a function defined again replaces the earlier one). Page time is
virtual and the same on every run; Math.random is seeded; Workers run on the page clock.

## How a contract runs
The viewport is {_RUN.viewport.width}x{_RUN.viewport.height} until a resize step. Each document is loaded fresh (empty storage), then
the initial checks run and S0's predicate, if any, must hold. A transition runs from its from-state,
reached by replaying from S0 the passed transitions that first reached it, each in full (steps and
assertions) on one document, so window variables they set are there: write each transition's steps
from that state, not from a fresh page. Each step is followed by {_RUN.limits.settle_ms} ms of page time. Clicks land on the element's centre; keys go to the
focused element (the page's body until something is focused), so window and document listeners get
them. reload keeps localStorage and sessionStorage. alert() is answered at once, confirm() with
false (cancel) and prompt() with null; when the task needs a confirmation, replace window.confirm in
an eval_js step first. A requirement's score is the share of the assertions tagged with it that
pass; only a requirement with no tagged assertion is scored by its transitions passing. Test items
group requirements and list the transitions whose assertions check them (not the ones that only set
up a state). Implicit requirements are what any user expects of every page doing the task (no
console errors, usable on a phone), never a choice the prompt leaves open.

## A complete small contract (a counter with 'Add one' and 'Reset')
{json.dumps(EXAMPLE)}

Answer with one JSON object and nothing else."""

_ASK = {
    "requirements": 'List the requirements: {"requirements": [{"id": "R1", "kind": "explicit"|"implicit", "text": ...}]}. '
                    "Explicit: what the prompt asks for. Implicit: what any user expects anyway.",
    "initial_contract": 'Say what the page must hold when it loads: {"initial_contract": {"text": ..., "checks": '
                        '[assertions with when "after"]}} (and "helpers", "init_script" when you need them).',
    "graph": 'Write the states and transitions: {"states": [{"id": "S0", "description": ...}, ...], "transitions": '
             '[{"id": "T1", "from": "S0", "to": ..., "intent": one concrete user intent with values, "steps": [steps], '
             '"assertions": [assertions], "requirements": [ids]}]}. S0 is the page as loaded; every state reachable '
             "from S0; at least one transition exercises two requirements or more. Every step and check uses only the "
             'fields its action lists in the system message. Add "helpers" / "init_script" (whole, replacing earlier '
             "ones) when you need them.",
    "test_items": 'Group the requirements into test items of at most 3, each mapped to the transitions that check them: '
                  '{"test_items": [{"id": "TI1", "requirements": [...], "transitions": [...]}]}. Cover every requirement. '
                  'A requirement checked only when the page loads (by initial checks tagged with it) goes in an item '
                  'with "transitions": [].',
}


def stage_messages(stage: str, task: dict, so_far: dict) -> list[dict]:
    user = f"Task ({task['id']}, family {task.get('family')}):\n{task['prompt']}\n"
    if so_far:
        user += f"\nThe contract so far:\n{json.dumps(so_far, separators=(',', ':'))}\n"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user + "\n" + _ASK[stage]}]


def fix_messages(task: dict, contract: dict, problems: list[str]) -> list[dict]:
    user = (f"Task ({task['id']}):\n{task['prompt']}\n\nThis contract fails validation:\n"
            f"{json.dumps(contract, separators=(',', ':'))}\n\n"
            "Problems:\n" + "\n".join(f"- {p}" for p in problems)
            + '\n\nAnswer the whole corrected contract: {"requirements": ..., "initial_contract": ..., "states": ..., '
              '"transitions": ..., "test_items": ..., and "helpers"/"init_script" when it has them}.')
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
