"""Executable interaction contracts (ICG): one JSON document per task (docs/icg-format.md).

The models here are the format other tools read and write; `contract.schema.json` beside this
module is generated from them. Structural rules that span fields (reachability, coverage, well
formed steps) live in webmend/contracts/validate.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from webmend.schemas.hashing import sha256_hex
from webmend.schemas.vocab import FAMILIES

CONTRACT_VERSION = "1"
INITIAL_STATE = "S0"  # the state every document starts in

# The test-case actions (docs/testcase-format.md) a step may use ...
STEP_ACTIONS = (
    "click", "click_text", "type", "press_key", "hover", "focus", "contextmenu", "scroll", "drag", "resize",
    "wait", "wait_for", "eval_js", "screenshot", "select_option", "check", "reload", "click_drawn_text",
    "click_at",
)
# ... and the checks an assertion may make (assert_js_value is the JS predicate).
CHECK_ACTIONS = (
    "assert_text_contains", "assert_text_not_contains", "assert_count", "assert_visible", "assert_not_visible",
    "assert_js_value", "assert_screenshot_changed", "assert_screenshot_matches", "assert_screenshot_not_blank", "assert_no_horizontal_scroll",
    "assert_console_clean", "assert_style", "assert_attribute", "assert_value", "assert_a11y_basic", "assert_semantic_html",
    "assert_drawn_text", "assert_colors", "assert_coverage", "assert_animates", "assert_still",
)
LOCATE = ("target", "selector")  # a locating action takes a user-facing target or a CSS selector


@dataclass(frozen=True)
class ActionSpec:
    """The fields one action reads: `needs` (one field of each inner tuple), `optional`, an example
    and what it does. Defined once: the validator checks `needs`, the builder's prompt and re-asks
    state every action's fields from here (docs/icg-format.md)."""

    needs: tuple[tuple[str, ...], ...]
    optional: tuple[str, ...]
    example: dict
    does: str

    def fields(self) -> list[str]:
        return ["action", *dict.fromkeys(f for need in self.needs for f in need), *self.optional]


def _spec(needs, optional, does, **example) -> ActionSpec:
    return ActionSpec(tuple(needs), tuple(optional), example, does)


ACTION_SPECS: dict[str, ActionSpec] = {
    "click": _spec([LOCATE], [], "click the first visible match", action="click", target={"role": "button", "name": "^Add$"}),
    "click_text": _spec([("text_pattern",)], [], "click the one visible element whose text matches the regex",
                        action="click_text", text_pattern="^clear all$"),
    "type": _spec([LOCATE, ("text",)], [], "fill the field with text (its value is replaced)",
                  action="type", target={"label": "New task"}, text="Buy milk"),
    "press_key": _spec([("key",)], ["repeat"], "press a key (Playwright names: Enter, ArrowLeft, Space, Control+K)",
                       action="press_key", key="Enter"),
    "hover": _spec([LOCATE], [], "move the pointer over it", action="hover", target={"role": "img"}),
    "focus": _spec([LOCATE], [], "focus it", action="focus", target={"placeholder": "Search"}),
    "contextmenu": _spec([], ["target", "selector"], "right-click it (the page when neither is given)",
                         action="contextmenu", selector="canvas"),
    "scroll": _spec([], ["direction", "amount", "dx", "dy"], "scroll the window (direction up/down/left/right, amount px)",
                    action="scroll", direction="down", amount=600),
    "drag": _spec([("from_pos", "from", "from_selector"), ("to_pos", "to", "to_selector", "dx", "dy")], ["from_offset"],
                  "press, move and release the pointer (points are [x, y] in CSS px of the viewport)",
                  action="drag", from_pos=[200, 300], to_pos=[420, 300]),
    "resize": _spec([("width",), ("height",)], [], "set the viewport size", action="resize", width=375, height=667),
    "wait": _spec([("ms", "duration")], [], "let page time pass (virtual time: animations and timers advance)",
                  action="wait", ms=500),
    "wait_for": _spec([LOCATE], ["timeout"], "wait until a match is visible (timeout in ms of page time, default 5000)",
                      action="wait_for", target={"role": "dialog"}, timeout=3000),
    "eval_js": _spec([("expression",)], ["timeout"], "run JavaScript in the page and ignore its value; a returned promise is awaited in page "
                     "time (timeout ms, 5000); a thrown error or a rejected promise fails the step",
                     action="eval_js", expression="localStorage.clear()"),
    "screenshot": _spec([], ["label"], "capture the viewport: the reference of the next assert_screenshot_changed; "
                        "with a label, also for assert_screenshot_matches later in the document",
                        action="screenshot", label="before"),
    "select_option": _spec([LOCATE, ("value",)], [], "choose an option of a select by its value or label",
                           action="select_option", target={"label": "Sort by"}, value="date"),
    "check": _spec([LOCATE], [], "tick a checkbox or radio", action="check", target={"role": "checkbox", "name": "Buy milk"}),
    "reload": _spec([], [], "reload the document (storage is kept)", action="reload"),
    "assert_text_contains": _spec([LOCATE, ("text",)], [], "the element's visible text matches the case-insensitive regex",
                                  action="assert_text_contains", selector="ul", text="Buy milk"),
    "assert_text_not_contains": _spec([LOCATE, ("text",)], [], "the element's visible text does not match the regex",
                                      action="assert_text_not_contains", selector="body", text="error"),
    "assert_count": _spec([LOCATE, ("gte", "lte", "eq")], [], "number of matches against gte/lte/eq: a selector counts every match, visible or not; "
                          "a target counts what the accessibility tree shows (hidden elements excluded)",
                          action="assert_count", selector="li", eq=3),
    "assert_visible": _spec([LOCATE], [], "some match is visible", action="assert_visible", target={"role": "dialog"}),
    "assert_not_visible": _spec([LOCATE], [], "no match is visible", action="assert_not_visible", target={"role": "dialog"}),
    "assert_js_value": _spec([("expression",)], ["expected", "timeout"],
                             "evaluate the expression in the page; its value must equal expected (default true) "
                             "exactly; a returned promise is awaited while page time advances, up to timeout ms (5000)",
                             action="assert_js_value", expression="document.querySelectorAll('li').length === 3",
                             expected=True),
    "assert_screenshot_changed": _spec([], ["threshold"], "the viewport differs from the last screenshot step: "
                                       "1 - mean SSIM of 160x90 grayscale thumbnails >= 1 - threshold (default 0.95: "
                                       "5% of the view; a redrawn chart or one small widget changes 1-4%, use 0.99)",
                                       action="assert_screenshot_changed", threshold=0.99),
    "assert_screenshot_matches": _spec([("label",)], ["threshold"], "the viewport looks like it did at the screenshot "
                                       "step with this label, earlier in this document (a reset view, a palette "
                                       "switched back): 1 - mean SSIM of thumbnails <= 1 - threshold (default 0.97)",
                                       action="assert_screenshot_matches", label="start"),
    "assert_screenshot_not_blank": _spec([], [], "the viewport is not blank", action="assert_screenshot_not_blank"),
    "assert_no_horizontal_scroll": _spec([], [], "the document is not wider than the viewport",
                                         action="assert_no_horizontal_scroll"),
    "assert_console_clean": _spec([], [], "no console error and no uncaught exception since the document loaded",
                                  action="assert_console_clean"),
    "assert_style": _spec([("selector",), ("property",), ("value",)], [], "a computed style equals value (CSS selector only)",
                          action="assert_style", selector="body", property="overflow-x", value="hidden"),
    "assert_attribute": _spec([LOCATE, ("attribute",), ("value",)], [], "an attribute of the first match equals value",
                              action="assert_attribute", target={"role": "button", "name": "Play"},
                              attribute="aria-pressed", value="true"),
    "assert_value": _spec([LOCATE, ("value",)], [], "the value of a form field equals value",
                          action="assert_value", target={"label": "Amount"}, value="12.50"),
    "assert_a11y_basic": _spec([], [], "every img has alt text, there is an h1, html has lang", action="assert_a11y_basic"),
    "assert_semantic_html": _spec([("tags",)], [], "each tag occurs at least once",
                                  action="assert_semantic_html", tags=["main", "nav"]),
    # Observations (docs/icg-format.md): what a canvas shows, read from pixels or drawn text.
    "click_at": _spec([("pos", "expression")], ["button", "modifiers"], "a real mouse click at a point of the viewport "
                      "(CSS px, [x, y]): pos, or what the JavaScript expression returns (e.g. where a planet is now); "
                      "button left (default), right or middle; modifiers e.g. [\"Shift\"]",
                      action="click_at", expression="[innerWidth / 2 + 100, innerHeight / 2]", modifiers=["Shift"]),
    "click_drawn_text": _spec([("text",)], [], "click the centre of the most recently drawn on-screen canvas text "
                              "matching the case-insensitive regex (a canvas game's 'Start', a drawn menu entry)",
                              action="click_drawn_text", text="^start$"),
    "assert_drawn_text": _spec([("text",)], ["within_ms"], "some text the page drew on a canvas (fillText/strokeText, "
                               "recorded from before its first script) matches the case-insensitive regex; with "
                               "within_ms, drawn in the last within_ms of page time (an animated canvas redraws "
                               "every frame)", action="assert_drawn_text", text="Speed: 2x", within_ms=500),
    "assert_colors": _spec([("colors", "min_distinct")], ["selector", "target", "region", "tolerance", "min_share"],
                           "the region (the element's box, else the viewport; region [left, top, width, height] "
                           "in fractions of it picks a part: [0.4, 0.4, 0.2, 0.2] is the centre) shows each colour (CSS colour, "
                           "within tolerance 40 RGB) on at least min_share (0.0005) of its pixels, and/or at least "
                           "min_distinct distinct colours (counted on a 6-levels-per-channel grid, each on min_share of the "
                           "pixels)", action="assert_colors", selector="canvas",
                           colors=["#000000"], min_share=0.05),
    "assert_coverage": _spec([("min_share", "max_share")], ["selector", "target", "region", "background", "tolerance"],
                             "the share of the region's pixels that differ from its background (given, else its "
                             "most common colour) is within min_share..max_share", action="assert_coverage",
                             selector="canvas", min_share=0.02),
    "assert_animates": _spec([], ["selector", "target", "region", "ms", "min_share"], "the region's pixels change while ms "
                             "(500) of page time pass with no input: at least min_share (0.0005) of them",
                             action="assert_animates", selector="canvas", ms=500),
    "assert_still": _spec([], ["selector", "target", "region", "ms", "max_share"], "the region's pixels stay the same while ms "
                          "(500) of page time pass: at most max_share (0.001) of them change (a paused animation)",
                          action="assert_still", selector="canvas", ms=500),
}
REQUIREMENT_KINDS = ("explicit", "implicit")
WHEN = ("change", "after", "never")
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
    row: str | None = Field(default=None, description="look inside the last list item or table row whose text "
                            "matches this regex (the checkbox of the item 'Buy milk')")


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
    pos: Point | None = None  # click_at
    button: Literal["left", "right", "middle"] | None = None
    modifiers: list[Literal["Shift", "Control", "Alt", "Meta"]] | None = None
    from_selector: str | None = None
    from_offset: Point | None = None
    to_selector: str | None = None
    gte: int | None = None
    lte: int | None = None
    eq: int | None = None
    label: str | None = None  # screenshot
    threshold: float | None = None
    tags: list[str] | str | None = None  # assert_semantic_html
    within_ms: float | None = Field(default=None, ge=0)  # assert_drawn_text
    colors: list[str] | None = None  # assert_colors
    min_distinct: int | None = Field(default=None, ge=1)
    tolerance: float | None = Field(default=None, ge=0)  # assert_colors, assert_coverage
    min_share: float | None = Field(default=None, ge=0, le=1)  # assert_colors, _coverage, _animates
    max_share: float | None = Field(default=None, ge=0, le=1)  # assert_coverage, assert_still
    background: str | None = None  # assert_coverage
    region: list[float] | None = Field(default=None, min_length=4, max_length=4)  # pixel checks: a part of the box


class Assertion(_Model):
    id: str
    when: Literal[WHEN] = Field(description="change: true at some point during the transition; after: true at its "
                                "end; never: true after none of its steps")
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
    transitions: list[str] = Field(default=[], description="the transitions that check them; empty for requirements "
                                   "checked only when the page loads (initial checks tagged with each of them)")


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
    helpers: str | None = Field(default=None, description="JavaScript in scope for every expression of the contract "
                                "(functions the checks share), with `observed`")
    init_script: str | None = Field(default=None, description="JavaScript run in every document before the page's "
                                    "own scripts (instrumentation the observations lack)")
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
