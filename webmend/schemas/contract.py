"""Executable interaction contracts (ICG): one JSON document per task (docs/icg-format.md).

The models here are the format other tools read and write; `contract.schema.json` beside this
module is generated from them. Structural rules that span fields (reachability, coverage, well
formed steps) live in webmend/contracts/validate.py.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from webmend.schemas.hashing import sha256_hex
from webmend.schemas.vocab import FAMILIES

CONTRACT_VERSION = "1"
INITIAL_STATE = "S0"  # the state every document starts in

# The test-case actions (docs/testcase-format.md) a step may use ...
STEP_ACTIONS = (
    "click", "click_text", "type", "press_key", "hover", "focus", "contextmenu", "scroll", "drag", "resize",
    "wait", "wait_for", "eval_js", "screenshot", "select_option", "check", "reload",
)
# ... and the checks an assertion may make (assert_js_value is the JS predicate).
CHECK_ACTIONS = (
    "assert_text_contains", "assert_text_not_contains", "assert_count", "assert_visible", "assert_not_visible",
    "assert_js_value", "assert_screenshot_changed", "assert_screenshot_not_blank", "assert_no_horizontal_scroll",
    "assert_console_clean", "assert_style", "assert_attribute", "assert_value", "assert_a11y_basic", "assert_semantic_html",
)
REQUIREMENT_KINDS = ("explicit", "implicit")
WHEN = ("change", "after")
ROLES = ("button", "link", "textbox", "checkbox", "radio", "combobox", "listbox", "option", "heading", "list",
         "listitem", "row", "cell", "tab", "dialog", "slider", "spinbutton", "switch", "img", "menuitem", "region")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Locator(_Model):
    """How a user finds an element: exactly one of role (with an optional accessible name), label,
    placeholder or text (Playwright's get_by_role / get_by_label / get_by_placeholder / get_by_text).
    `nth` picks among several visible matches (0-based); `exact` asks for whole-string matches."""

    role: Literal[ROLES] | None = None
    name: str | None = Field(default=None, description="accessible name (with role)")
    label: str | None = None
    placeholder: str | None = None
    text: str | None = None
    exact: bool = False
    nth: int = Field(default=0, ge=0)


Point = dict[str, float] | list[float]  # {"x", "y"} or [x, y], as the test-case format takes them


class Step(_Model):
    """One action or check: the test-case vocabulary with every parameter the runner reads (so a
    test case converts without loss), plus `target` (a user-facing locator) beside the CSS
    `selector` (tags and attributes only in a contract: no id or class of one implementation)."""

    action: Literal[STEP_ACTIONS + CHECK_ACTIONS]
    target: Locator | None = None
    selector: str | None = None
    text: str | None = None  # type, assert_text_contains / _not_contains (a case-insensitive regex)
    text_pattern: str | None = None  # click_text
    key: str | None = None
    repeat: int | None = Field(default=None, ge=1)
    ms: float | None = Field(default=None, ge=0)
    duration: float | None = Field(default=None, ge=0)  # wait: read when ms is absent
    timeout: int | None = Field(default=None, ge=0)
    expression: str | None = None  # eval_js, assert_js_value
    expected: Any = None
    value: str | None = None  # select_option, assert_style, assert_attribute, assert_value
    property: str | None = None  # assert_style
    attribute: str | None = None  # assert_attribute
    width: int | None = None
    height: int | None = None
    direction: Literal["up", "down", "left", "right"] | None = None
    amount: float | None = None
    dx: float | None = None  # scroll, drag
    dy: float | None = None
    from_pos: Point | None = None  # drag
    to_pos: Point | None = None
    from_: Point | None = Field(default=None, alias="from")
    to: Point | None = None
    from_selector: str | None = None
    from_offset: Point | None = None
    to_selector: str | None = None
    gte: int | None = None
    lte: int | None = None
    eq: int | None = None
    label: str | None = None  # screenshot
    threshold: float | None = None
    tags: list[str] | str | None = None  # assert_semantic_html


class Assertion(_Model):
    id: str
    when: Literal[WHEN] = Field(description="change: true at some point during the transition; after: true at its end")
    check: Step | None = Field(default=None, description="a check action; null only for a judged assertion")
    text: str | None = Field(default=None, description="what it means, in words (required when judged)")
    judged: bool = Field(default=False, description="natural language only: the visual judge decides, else not run")
    requirement: str | None = Field(default=None, description="the requirement id it checks")


class Requirement(_Model):
    id: str
    kind: Literal[REQUIREMENT_KINDS]
    text: str


class State(_Model):
    id: str
    description: str
    predicate: str | None = Field(default=None, description="JS expression true in this state (optional)")


class Transition(_Model):
    id: str
    from_: str = Field(alias="from")
    to: str
    intent: str = Field(description="one concrete user intent, with its values")
    steps: list[Step]
    assertions: list[Assertion] = []
    requirements: list[str] = Field(default=[], description="requirement ids this transition exercises")


class TestItem(_Model):
    id: str
    requirements: list[str] = Field(min_length=1, max_length=3)
    transitions: list[str] = Field(min_length=1)


class InitialContract(_Model):
    text: str = Field(description="what the page must hold when it loads, in words")
    checks: list[Assertion] = Field(default=[], description="checked in S0 right after load (when: after)")


class Task(_Model):
    id: str
    prompt: str
    family: Literal[FAMILIES] | None = None


class Contract(_Model):
    contract_version: str = CONTRACT_VERSION
    task: Task
    requirements: list[Requirement]
    initial_contract: InitialContract
    states: list[State]
    transitions: list[Transition]
    test_items: list[TestItem] = []

    def requirement(self, rid: str) -> Requirement | None:
        return next((r for r in self.requirements if r.id == rid), None)


def requirement_links(c: Contract) -> dict[str, dict[str, list[str]]]:
    """Per requirement: the assertions tagged with it and the transitions mapped to it (its own
    list, or through test items)."""
    links = {r.id: {"assertions": [], "transitions": []} for r in c.requirements}
    for t in c.transitions:
        for a in t.assertions:
            if a.requirement in links:
                links[a.requirement]["assertions"].append(a.id)
        for rid in t.requirements:
            if rid in links and t.id not in links[rid]["transitions"]:
                links[rid]["transitions"].append(t.id)
    for item in c.test_items:
        for rid in item.requirements:
            for tid in item.transitions:
                if rid in links and tid not in links[rid]["transitions"]:
                    links[rid]["transitions"].append(tid)
    for a in c.initial_contract.checks:
        if a.requirement in links:
            links[a.requirement]["assertions"].append(a.id)
    return links


def contract_hash(c: Contract) -> str:
    """sha256 of the contract's canonical JSON: the same contract, however it was spelt, one hash."""
    text = json.dumps(c.model_dump(mode="json", by_alias=True, exclude_none=True), sort_keys=True, separators=(",", ":"))
    return sha256_hex(text)
