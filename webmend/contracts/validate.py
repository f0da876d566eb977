"""Structural validation of a contract before it is kept (docs/icg-format.md, "Validation").

`validate_contract(data)` returns the problems found, each `(code, where, message)`; an empty list
means the contract may be executed. The codes are a closed list (PROBLEMS), so a builder can send
them back to the model and a reject can be counted by reason.
"""

from __future__ import annotations

import json
import re
from collections import deque
from dataclasses import dataclass

from cssselect import SelectorError, parse as parse_css
from pydantic import ValidationError

from webmend.evaluate.pixels import parse_color
from webmend.evaluate.step_args import js_regex
from webmend.schemas.contract import (ACTION_SPECS, CHECK_ACTIONS, INITIAL_STATE, STEP_ACTIONS, Contract, Step,
                                      requirement_links)

PROBLEMS = (
    "schema", "duplicate_id", "no_initial_state", "unknown_state", "unknown_transition", "unreachable_state", "orphan_state",
    "unknown_requirement", "uncovered_requirement", "no_explicit_requirement", "no_composed_transition",
    "bad_step", "bad_selector", "implementation_selector", "bad_pattern", "bad_assertion", "empty_transition",
)

@dataclass(frozen=True)
class Problem:
    code: str  # PROBLEMS
    where: str  # e.g. transitions[T2].steps[0]
    message: str

    def __str__(self) -> str:
        return f"{self.code} at {self.where}: {self.message}"


def validate_contract(data: dict | Contract) -> list[Problem]:
    if not isinstance(data, Contract):
        try:
            data = Contract.model_validate(data)
        except ValidationError as exc:
            return _schema_problems(exc, data)
    c = data
    problems = _ids(c) + _graph(c) + _coverage(c)
    for t in c.transitions:
        if not t.steps:
            problems.append(Problem("empty_transition", f"transitions[{t.id}]", "a transition needs at least one step"))
        problems += [p for i, s in enumerate(t.steps) for p in _step(s, f"transitions[{t.id}].steps[{i}]")]
        problems += [p for a in t.assertions for p in _assertion(a, f"transitions[{t.id}].assertions[{a.id}]")]
    problems += [p for a in c.initial_contract.checks for p in _assertion(a, f"initial_contract.checks[{a.id}]")]
    return problems


def _ids(c: Contract) -> list[Problem]:
    out = []
    groups = {"requirements": [r.id for r in c.requirements], "states": [s.id for s in c.states],
              "transitions": [t.id for t in c.transitions], "test_items": [i.id for i in c.test_items],
              "assertions": [a.id for t in c.transitions for a in t.assertions] + [a.id for a in c.initial_contract.checks]}
    for group, ids in groups.items():
        out += [Problem("duplicate_id", group, f"{i} appears {ids.count(i)} times") for i in sorted(set(ids)) if ids.count(i) > 1]
    return out


def _graph(c: Contract) -> list[Problem]:
    states = {s.id for s in c.states}
    if INITIAL_STATE not in states:
        return [Problem("no_initial_state", "states", f"no initial state {INITIAL_STATE}")]
    out = [Problem("unknown_state", f"transitions[{t.id}]", f"{end} is not a state")
           for t in c.transitions for end in (t.from_, t.to) if end not in states]
    edges: dict[str, set[str]] = {}
    touched = {INITIAL_STATE}
    for t in c.transitions:
        edges.setdefault(t.from_, set()).add(t.to)
        touched |= {t.from_, t.to}
    seen, queue = {INITIAL_STATE}, deque([INITIAL_STATE])
    while queue:
        for nxt in sorted(edges.get(queue.popleft(), ())):
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    for s in c.states:
        if s.id not in touched:
            out.append(Problem("orphan_state", f"states[{s.id}]", "no transition enters or leaves it"))
        elif s.id not in seen:
            out.append(Problem("unreachable_state", f"states[{s.id}]", f"no path of transitions from {INITIAL_STATE}"))
    return out


def _coverage(c: Contract) -> list[Problem]:
    known, transitions = {r.id for r in c.requirements}, {t.id for t in c.transitions}
    out = []
    refs = [(f"transitions[{t.id}]", rid) for t in c.transitions for rid in t.requirements]
    refs += [(f"transitions[{t.id}].assertions[{a.id}]", a.requirement) for t in c.transitions for a in t.assertions if a.requirement]
    refs += [(f"initial_contract.checks[{a.id}]", a.requirement) for a in c.initial_contract.checks if a.requirement]
    refs += [(f"test_items[{i.id}]", rid) for i in c.test_items for rid in i.requirements]
    out += [Problem("unknown_requirement", where, f"{rid} is not a requirement") for where, rid in refs if rid not in known]
    out += [Problem("unknown_transition", f"test_items[{i.id}]", f"{tid} is not a transition")
            for i in c.test_items for tid in i.transitions if tid not in transitions]
    at_load = {a.requirement for a in c.initial_contract.checks if a.requirement}
    out += [Problem("uncovered_requirement", f"test_items[{i.id}]", f"{rid}: an item with no transitions is for "
                    "requirements checked only at load, and no initial check is tagged with it")
            for i in c.test_items if not i.transitions for rid in i.requirements if rid not in at_load]
    for rid, link in requirement_links(c).items():
        if not link["assertions"] and not link["transitions"]:
            out.append(Problem("uncovered_requirement", f"requirements[{rid}]", "no assertion or transition checks it"))
    if not any(r.kind == "explicit" for r in c.requirements):
        out.append(Problem("no_explicit_requirement", "requirements", "a task asks for something: no explicit requirement"))
    if not any(len(_requirements_of(t)) >= 2 for t in c.transitions):
        out.append(Problem("no_composed_transition", "transitions", "no transition exercises two requirements or more"))
    return out


def _requirements_of(t) -> set[str]:
    return set(t.requirements) | {a.requirement for a in t.assertions if a.requirement}


def _assertion(a, where: str) -> list[Problem]:
    if a.judged:
        if not a.text or a.check is not None:
            return [Problem("bad_assertion", where, "a judged assertion has text and no check")]
        return []
    if a.check is None:
        return [Problem("bad_assertion", where, "needs a check (or judged: true with text)")]
    if a.check.action not in CHECK_ACTIONS:
        return [Problem("bad_assertion", where, f"{a.check.action} is an action, not a check")]
    return _step(a.check, f"{where}.check")


def _step(step: Step, where: str) -> list[Problem]:
    out = []
    spec = ACTION_SPECS[step.action]
    for need in spec.needs:
        if all(getattr(step, "from_" if name == "from" else name) is None for name in need):
            out.append(Problem("bad_step", where, f"{step.action} needs {' or '.join(need)}; {_fields(step.action)}"))
    if step.target is not None:
        given = [k for k in ("role", "label", "placeholder", "text") if getattr(step.target, k) is not None]
        if len(given) != 1:
            out.append(Problem("bad_step", where, f"a target names exactly one of role, label, placeholder, text (got {given})"))
        if not step.target.exact:
            for name in ("name", "label", "placeholder", "text"):
                out += _pattern(getattr(step.target, name), f"target.{name}", where)
        out += _pattern(step.target.row, "target.row", where)
    for selector in (step.selector, step.from_selector, step.to_selector):
        if selector is not None:
            out += _selector(selector, where)
    for name in ("text", "text_pattern"):
        if step.action != "type":
            out += _pattern(getattr(step, name), name, where)
    for color in [*(step.colors or []), *([step.background] if step.background else [])]:
        try:
            parse_color(color)
        except ValueError:
            out.append(Problem("bad_step", where, f"not a CSS colour: {color!r} (e.g. '#ff8800', 'rgb(255, 136, 0)', 'black')"))
    return out


def _fields(action: str) -> str:
    spec = ACTION_SPECS[action]
    return f"its fields: {', '.join(spec.fields())}; e.g. {json.dumps(spec.example)}"


def _schema_problems(exc: ValidationError, data) -> list[Problem]:
    """Pydantic's errors, and for a step or check the fields its action takes and an example: a
    model that wrote `js` where `expression` goes learns the right name from the re-ask."""
    out = []
    for e in exc.errors():
        where = ".".join(str(p) for p in e["loc"]) or "$"
        message = e["msg"]
        obj = _parent(data, e["loc"])
        action = _action_of(obj)
        field = e["loc"][-1] if e["loc"] else None
        if e["type"] == "extra_forbidden" and action is not None and isinstance(obj, dict) and obj.get(field) == action:
            message = f"the action's name goes in \"action\", not {field!r}; {_fields(action)}"
        elif e["type"] == "extra_forbidden" and action is not None:
            message = f"{field!r} is not a field of {action}; {_fields(action)}"
        elif e["loc"][-1:] == ("action",) and isinstance(obj, dict):
            message = (f"{message}: a step or check is {{\"action\": NAME, ...its fields}}; steps: "
                       f"{', '.join(STEP_ACTIONS)}; checks: {', '.join(CHECK_ACTIONS)}")
        out.append(Problem("schema", where, message))
    return out


def _action_of(obj) -> str | None:
    """The action a raw step names: its "action", else a value that is an action's name (a model
    that wrote {"type": "assert_js_value"} meant that action)."""
    if not isinstance(obj, dict):
        return None
    if obj.get("action") in ACTION_SPECS:
        return obj["action"]
    return next((v for v in obj.values() if isinstance(v, str) and v in ACTION_SPECS), None)


def _parent(data, loc: tuple):
    """The object holding the field at `loc` in the raw data (None where the path breaks)."""
    obj = data
    for key in loc[:-1]:
        try:
            obj = obj[key]
        except (KeyError, IndexError, TypeError):
            return None
    return obj


def _pattern(pattern: str | None, name: str, where: str) -> list[Problem]:
    if pattern is None:
        return []
    try:
        re.compile(js_regex(pattern)[0])  # the runner's split of leading inline flags
    except re.error as exc:
        return [Problem("bad_pattern", where, f"{name} {pattern!r}: {exc}")]
    return []


def _selector(selector: str, where: str) -> list[Problem]:
    # cssselect parses CSS 3 selectors: a maintained parser instead of our own.
    try:
        trees = [repr(s.parsed_tree) for s in parse_css(selector)]
    except SelectorError as exc:
        return [Problem("bad_selector", where, f"{selector!r}: {exc}")]
    if any("Hash[" in t or "Class[" in t for t in trees):
        return [Problem("implementation_selector", where,
                        f"{selector!r} names an id or class of one implementation: locate by role, label, text or tag")]
    return []
