"""Executable test cases (HTMLBench format), each run on a freshly loaded page.

A step either succeeds or raises `StepFailed` with the reason; the first failing step fails
the test case. Every action does what docs/testcase-format.md says; where that differs
from the public reference runner it is listed in docs/testcase-runner.md.
"""

from __future__ import annotations

import json
import logging
import re

from webmend.browser.page_errors import BudgetExhausted, JsError, PageCrashed, PageHung, PromisePending
from webmend.browser.session import PageSession
from webmend.evaluate.keys import normalize_key
from webmend.evaluate.observation_checks import ObservationChecks, in_scope
from webmend.evaluate.similarity import is_blank, screenshot_diff
from webmend.evaluate.step_args import as_number, as_point, js_regex, py_search
from webmend.evaluate.step_failed import StepFailed

log = logging.getLogger(__name__)

ACTION_TIMEOUT_MS = 1500  # Playwright actionability wait (real time; page time is paused)
# Page time a promise returned by eval_js / assert_js_value may take to settle; a step's own
# `timeout` (ms) overrides it, up to limits.max_wait_ms.
PROMISE_BUDGET_MS = 5000
REASON_CHARS = 1000  # a JavaScript error's message or a value in a reason: whole, within reason


class StepRunner(ObservationChecks):
    """Runs the steps of one test case against one fresh PageSession (the canvas and observation
    checks in observation_checks.py)."""

    def __init__(self, session: PageSession, errors_at_start: int, observe_only: bool = False, helpers: str = "",
                 own_scope: bool = False):
        self.s = session
        self.page = session.page
        self.reference = None
        self.errors_at_start = errors_at_start
        # On a document shared with other test cases (testcase_share.py): JavaScript that would
        # change the page raises WouldChangePage instead of running.
        self.observe_only = observe_only
        self.helpers = helpers  # a contract's shared JavaScript, in scope for its expressions
        self.own_scope = own_scope  # a contract's expressions each run in a scope of their own (in_scope)
        self.labelled: dict = {}  # label -> thumbnail of a labelled screenshot step, this document

    # ---- locating ------------------------------------------------------------------------
    # A step names its element by a CSS `selector` (test cases) or by a `target`, the way a user
    # finds it (contracts: role and accessible name, label, placeholder or text; docs/icg-format.md).
    def matches(self, step: dict, key: str = "selector", default: str | None = None):
        """Every element the step names, visible or not."""
        target = step.get("target")
        if target:
            return target_locator(self.page, target)
        selector = step.get(key) or default
        if not selector:
            raise StepFailed("missing selector")
        return self.page.locator(selector)

    def first_visible(self, step: dict, key: str = "selector", default: str | None = None):
        visible = self.matches(step, key, default).locator("visible=true")
        nth = int(as_number((step.get("target") or {}).get("nth"), 0))
        return visible.nth(nth) if nth > 0 else visible.first

    async def settle(self) -> None:
        await self.s.advance(self.s.cfg.limits.settle_ms)

    async def run(self, step: dict) -> None:
        action = step.get("action")
        handler = getattr(self, f"do_{action}", None) if isinstance(action, str) else None
        if handler is None:
            raise StepFailed(f"unknown action {action!r}")
        await handler(step)

    async def run_with_shot(self, step: dict, shot) -> None:
        """A capture assertion against a thumbnail taken once for a shared document."""
        await getattr(self, f"do_{step['action']}")(step, shot=shot)

    async def _act(self, coro, what: str, label: str | None = None):
        """A guarded browser call; its failure (not a hang or crash) fails the step."""
        try:
            return await self.s.guard(coro, what)
        except (PageHung, PageCrashed, BudgetExhausted):
            raise
        except Exception as exc:
            raise StepFailed(f"{label or what}: {_short(exc)}") from None

    # ---- actions -------------------------------------------------------------------------
    async def do_click(self, step):
        await self._on_element(step, self.first_visible(step).click(timeout=ACTION_TIMEOUT_MS), "click")
        await self.settle()

    async def _on_element(self, step, coro, what: str):
        """An action on the step's element; when it fails, the message says how many elements the
        step names and how many of them are visible (what a repair needs to know: absent, hidden,
        or there and not clickable)."""
        try:
            return await self._act(coro, what)
        except StepFailed as exc:
            try:
                found = await self.s.guard(self.matches(step).count(), "count")
                visible = await self.s.guard(self.matches(step).locator("visible=true").count(), "count")
            except (PageHung, PageCrashed, BudgetExhausted):
                raise
            except Exception:  # an invalid selector: the first message already says so
                raise exc from None
            raise StepFailed(f"{exc} ({where(step)!r} matches {found} element{'' if found == 1 else 's'}, "
                             f"{visible} visible)") from None

    async def do_click_text(self, step):
        source, flags = js_regex(str(step.get("text_pattern") or step.get("text") or ""))
        target = await self.s.iso(f"__wm.byText({json.dumps(source)}, {json.dumps(flags)})")
        if not target.get("ok"):
            raise StepFailed(target.get("error", "no match"))
        await self._act(self.page.locator(target["selector"]).first.click(timeout=ACTION_TIMEOUT_MS), "click_text")
        await self.settle()

    async def do_type(self, step):
        await self._on_element(step, self.first_visible(step).fill(str(step.get("text", "")), timeout=ACTION_TIMEOUT_MS), "type")
        await self.settle()

    async def do_press_key(self, step):
        key = normalize_key(step.get("key", ""))
        for _ in range(max(1, int(as_number(step.get("repeat"), 1)))):
            await self._act(self.page.keyboard.press(key), f"press {key}")
            await self.settle()

    async def do_hover(self, step):
        await self._on_element(step, self.first_visible(step).hover(timeout=ACTION_TIMEOUT_MS), "hover")
        await self.settle()

    async def do_focus(self, step):
        await self._on_element(step, self.first_visible(step).focus(timeout=ACTION_TIMEOUT_MS), "focus")
        await self.settle()

    async def do_contextmenu(self, step):
        loc = self.first_visible(step, default="body")
        await self._act(loc.click(button="right", timeout=ACTION_TIMEOUT_MS), "contextmenu")
        await self.settle()

    async def do_scroll(self, step):
        if "dx" in step or "dy" in step:
            dx, dy = as_number(step.get("dx"), 0), as_number(step.get("dy"), 0)
        else:
            amount = as_number(step.get("amount"), 300)
            dx, dy = {"down": (0, amount), "up": (0, -amount), "right": (amount, 0), "left": (-amount, 0)}.get(
                str(step.get("direction", "down")).lower(), (0, amount)
            )
        await self.s.scroll_by(dx, dy)
        await self.settle()

    async def do_drag(self, step):
        start, end = await self._drag_points(step)
        mouse = self.page.mouse
        await self._act(mouse.move(*start), "drag")
        await self._act(mouse.down(), "drag")
        for i in range(1, 6):
            x = start[0] + (end[0] - start[0]) * i / 5
            y = start[1] + (end[1] - start[1]) * i / 5
            await self._act(mouse.move(x, y), "drag")
            await self.s.advance(16)
        await self._act(mouse.up(), "drag")
        await self.settle()

    async def _drag_points(self, step):
        start = as_point(step.get("from_pos")) or as_point(step.get("from"))
        if start is None and step.get("from_selector"):
            box = await self._box(step, "from_selector")
            off = as_point(step.get("from_offset")) or (box["width"] / 2, box["height"] / 2)
            start = (box["x"] + off[0], box["y"] + off[1])
        if start is None:
            start = (self.s.viewport.width / 2, self.s.viewport.height / 2)
        end = as_point(step.get("to_pos")) or as_point(step.get("to"))
        if end is None and step.get("to_selector"):
            box = await self._box(step, "to_selector")
            end = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        if end is None:
            end = (start[0] + as_number(step.get("dx"), 0), start[1] + as_number(step.get("dy"), 0))
        return start, end

    async def _box(self, step, key):
        loc = self.page.locator(step[key]).locator("visible=true").first
        box = await self._act(loc.bounding_box(timeout=ACTION_TIMEOUT_MS), "box", "drag")
        if box is None:
            raise StepFailed(f"drag: {step[key]} has no box")
        return box

    async def do_resize(self, step):
        width = int(as_number(step.get("width"), self.s.viewport.width))
        height = int(as_number(step.get("height"), self.s.viewport.height))
        if not (100 <= width <= 4000 and 100 <= height <= 4000):
            raise StepFailed(f"resize: unreasonable size {width}x{height}")
        await self.s.set_viewport(width, height)
        await self.settle()

    async def do_wait(self, step):
        await self.s.advance(wait_ms(step, self.s.cfg.limits.max_wait_ms))

    async def do_wait_for(self, step):
        budget = min(as_number(step.get("timeout"), 5000), self.s.cfg.limits.max_wait_ms)
        poll = self.s.cfg.limits.wait_for_poll_ms
        waited = 0.0
        while True:
            if await self._visible_count(step) > 0:
                return
            if waited >= budget:
                raise StepFailed(f"wait_for: {where(step)} did not appear within {budget:.0f} ms")
            await self.s.advance(poll)
            waited += poll

    async def _visible_count(self, step) -> int:
        visible = self.matches(step).locator("visible=true")
        return await self._act(visible.count(), "count", f"bad selector {where(step)!r}")

    async def _eval(self, step, action: str):
        """The step's expression in the page's world; a promise it returns is awaited while page
        time advances in settle-sized slices, for at most the step's budget of page time."""
        budget = max(0.0, min(as_number(step.get("timeout"), PROMISE_BUDGET_MS), self.s.cfg.limits.max_wait_ms))
        try:
            return await self.s.main_eval_settled(in_scope(str(step.get("expression", "")), self.helpers, self.own_scope), int(budget),
                                                  self.s.cfg.limits.settle_ms, observe_only=self.observe_only)
        except JsError as exc:
            raise StepFailed(f"{action} threw: {_short(exc, REASON_CHARS)}") from None
        except PromisePending as exc:
            raise StepFailed(f"{action}: {exc}") from None

    async def do_eval_js(self, step):
        await self._eval(step, "eval_js")
        await self.settle()

    async def do_screenshot(self, step):
        # A capture costs the settle interval of page time, as an action does (the reference
        # runner's capture took real time too): `screenshot` straight before
        # `assert_screenshot_changed` sees an animating page move, and a static page still fails.
        self.reference = await self.s.thumb()
        if step.get("label"):
            self.labelled[str(step["label"])] = self.reference
        await self.settle()

    # `shot`: a thumbnail already taken at this page time (a shared document takes one for all).
    async def do_assert_screenshot_changed(self, step, shot=None):
        if self.reference is None:
            raise StepFailed("assert_screenshot_changed: no earlier screenshot in this test case")
        threshold = as_number(step.get("threshold"), self.s.cfg.screenshot_change_threshold)
        diff = screenshot_diff(self.reference, await self.s.thumb() if shot is None else shot)
        if diff < 1 - threshold:
            raise StepFailed(f"screenshot unchanged (diff {diff:.4f} < {1 - threshold:.4f})")

    async def do_assert_screenshot_not_blank(self, step, shot=None):
        if is_blank(await self.s.thumb() if shot is None else shot):
            raise StepFailed("viewport is blank")

    async def do_assert_js_value(self, step):
        expected = step.get("expected", True)
        value = await self._eval(step, "assert_js_value")
        if value != expected or type(value) is not type(expected):
            raise StepFailed(f"assert_js_value: got {_short(json.dumps(value), REASON_CHARS)}, expected {json.dumps(expected)}")

    async def do_assert_text_contains(self, step):
        text = await self._text_of(step)
        if not py_search(str(step.get("text", "")), text):
            raise StepFailed(f"text {step.get('text')!r} not found in {_excerpt(text)!r}")

    async def do_assert_text_not_contains(self, step):
        text = await self._text_of(step, missing_ok=True)
        if py_search(str(step.get("text", "")), text):
            raise StepFailed(f"text {step.get('text')!r} present")

    async def _text_of(self, step, missing_ok=False) -> str:
        loc = self.first_visible(step, default="body")
        try:
            if await self.s.guard(loc.count(), "count") == 0:
                if missing_ok:
                    return ""
                raise StepFailed(f"no visible match for {where(step)!r}")
            return await self.s.guard(loc.inner_text(timeout=ACTION_TIMEOUT_MS), "inner_text")
        except (PageHung, PageCrashed, BudgetExhausted, StepFailed):
            raise
        except Exception as exc:
            raise StepFailed(f"text of {where(step)!r}: {_short(exc)}") from None

    async def do_assert_count(self, step):
        n = await self._act(self.matches(step).count(), "count", f"bad selector {where(step)!r}")
        for key, ok in (("gte", lambda a, b: a >= b), ("lte", lambda a, b: a <= b), ("eq", lambda a, b: a == b)):
            if key in step and not ok(n, as_number(step[key], 0)):
                raise StepFailed(f"count of {where(step)!r} is {n}, expected {key} {step[key]}")

    # Visible by Playwright's own rules, over all matches: the first visible match decides, so a
    # zero-height first match (a horizontal SVG line) does not hide the visible ones after it.
    async def do_assert_visible(self, step):
        if not await self._visible_count(step):
            raise StepFailed(f"{where(step)!r} is not visible")

    async def do_assert_not_visible(self, step):
        if n := await self._visible_count(step):
            raise StepFailed(f"{where(step)!r} is visible ({n} visible match{'es' if n > 1 else ''})")

    async def do_assert_no_horizontal_scroll(self, step):
        info = await self.s.iso("__wm.overflow()")
        if info["overflowing"]:
            raise StepFailed(f"horizontal scroll: scrollWidth {info['scrollWidth']} > clientWidth {info['clientWidth']}")

    async def do_assert_a11y_basic(self, step):
        info = await self.s.iso("__wm.a11y()")
        problems = [p for p, bad in (
            (f"{info['imagesWithoutAlt']} img without alt", info["imagesWithoutAlt"] > 0),
            ("no h1", not info["hasH1"]),
            ("html has no lang", not info["hasLang"]),
        ) if bad]
        if problems:
            raise StepFailed("a11y: " + ", ".join(problems))

    async def do_assert_semantic_html(self, step):
        tags = step.get("tags") or []
        if isinstance(tags, str):
            tags = [t.strip() for t in re.split(r"[,\s]+", tags) if t.strip()]
        found = await self.s.iso(f"__wm.semantic({json.dumps([str(t) for t in tags])})")
        missing = [t for t, ok in found.items() if not ok]
        if missing:
            raise StepFailed("missing tags: " + ", ".join(missing))

    async def do_assert_console_clean(self, step):
        errors = self.s.shared.events.error_total - self.errors_at_start
        if errors:
            raise StepFailed(f"{errors} console error(s) or uncaught exception(s)")

    async def do_assert_style(self, step):
        if step.get("target"):
            raise StepFailed("assert_style takes a selector, not a target")
        got = await self.s.iso(f"__wm.style({json.dumps(step.get('selector'))}, {json.dumps(step.get('property'))})")
        want = str(step.get("value", "")).strip().lower()
        if got is None or got.lower().replace(" ", "") != want.replace(" ", ""):
            raise StepFailed(f"style {step.get('property')} is {got!r}, expected {want!r}")

    async def do_assert_attribute(self, step):
        loc = self.matches(step).first
        got = await self._act(loc.get_attribute(str(step.get("attribute")), timeout=ACTION_TIMEOUT_MS), "attribute")
        if got is None or ("value" in step and str(got) != str(step["value"])):
            raise StepFailed(f"attribute {step.get('attribute')} is {got!r}")

    async def do_select_option(self, step):
        loc = self.first_visible(step)
        await self._act(loc.select_option(str(step.get("value", "")), timeout=ACTION_TIMEOUT_MS), "select_option")
        await self.settle()

    async def do_check(self, step):
        await self._act(self.first_visible(step).check(timeout=ACTION_TIMEOUT_MS), "check")
        await self.settle()

    # ---- contract actions (docs/icg-format.md) -------------------------------------------
    async def do_reload(self, step):
        await self.s.reload()
        await within_node_cap(self.s)

    async def do_assert_value(self, step):
        loc = self.first_visible(step)
        got = await self._act(loc.input_value(timeout=ACTION_TIMEOUT_MS), "input_value", f"value of {where(step)!r}")
        if got != str(step.get("value", "")):
            raise StepFailed(f"value of {where(step)!r} is {_short(json.dumps(got))}, expected {json.dumps(str(step.get('value', '')))}")


# What a target's `row` names: a list item, a table row, or their ARIA roles.
ROWS = "li, tr, [role=listitem], [role=row], [role=option]"


def target_locator(page, target: dict):
    """Playwright's user-facing locators. A string is a case-insensitive regular expression
    searched for (leading inline flags such as (?i) allowed), or the whole text when `exact`.
    With `row`, the element is looked for inside the last list item or table row whose text
    matches `row` (the checkbox of the item "Buy milk")."""
    exact = bool(target.get("exact"))

    def text(value: str):
        return value if exact else _pattern(value)

    if target.get("row"):
        page = page.locator(ROWS).filter(has_text=_pattern(str(target["row"]))).last
    opts = {"exact": True} if exact else {}
    if target.get("role"):
        name = target.get("name")
        return page.get_by_role(target["role"], **({"name": text(name), **opts} if name else {}))
    for key, find in (("label", page.get_by_label), ("placeholder", page.get_by_placeholder), ("text", page.get_by_text)):
        if target.get(key) is not None:
            return find(text(str(target[key])), **opts)
    raise StepFailed("a target names none of role, label, placeholder, text")


def _pattern(value: str) -> re.Pattern:
    source, flags = js_regex(value)
    try:
        return re.compile(source, re.IGNORECASE | (re.DOTALL if "s" in flags else 0) | (re.MULTILINE if "m" in flags else 0))
    except re.error as exc:
        raise StepFailed(f"bad pattern {value!r}: {exc}") from None


def where(step: dict) -> str:
    """The step's element as its messages name it: the selector, or the target's fields."""
    target = step.get("target")
    if not target:
        return str(step.get("selector") or "body")
    return " ".join(f"{k}={v}" for k, v in target.items() if v not in (None, False, 0))


def _excerpt(text: str, limit: int = 200) -> str:
    """A page's text for a message: every line, whitespace collapsed (its first line alone is
    usually a header, which reads as if only the header had been searched)."""
    return " ".join(text.split())[:limit]


def wait_ms(step: dict, max_wait_ms: float) -> float:
    """The page time a `wait` step lets pass."""
    return min(as_number(step.get("ms", step.get("duration", 0)), 0), max_wait_ms)


def _short(exc_or_text, limit: int = 200) -> str:
    text = str(exc_or_text).strip().splitlines()[0] if str(exc_or_text).strip() else type(exc_or_text).__name__
    return text[:limit]


def new_record(case: dict) -> dict:
    return {
        "id": str(case.get("id", "")),
        "name": str(case.get("name", "")),
        "weight": as_number(case.get("weight"), 1.0),
        "passed": False,
        "failed_step": None,
        "failed_action": None,
        "error": None,
    }


def not_run(case: dict, why: str) -> dict:
    """A test case the page's budget left no time for: failed, at no step, with the reason."""
    record = new_record(case)
    record.update(error=f"not run: {why}")
    return record


def failed_at_load(case: dict, why: str) -> dict:
    record = new_record(case)
    record.update(failed_action="load", error=why)
    return record


async def run_test_case(session: PageSession, case: dict, doc_index: int) -> dict:
    """Fresh document, then the steps in order; returns the per-test-case record."""
    steps = case.get("steps") or []
    record = new_record(case)
    index = -1
    # "so far" includes errors thrown while this test case's page loaded
    errors_at_start = session.shared.events.error_total
    try:
        await session.load(doc_index)
        await within_node_cap(session)
        runner = StepRunner(session, errors_at_start)
        for index, step in enumerate(steps):
            if not isinstance(step, dict):
                raise StepFailed("step is not an object")
            await runner.run(step)
        await within_node_cap(session)
        record["passed"] = True
    except Exception as exc:  # a browser-level failure fails this case, not the whole page
        fail(record, index, steps, exc)
    return record


def failure_reason(exc: Exception) -> str:
    """What a test case's record says about the exception that ended it."""
    if isinstance(exc, StepFailed):
        return str(exc)
    if isinstance(exc, PageHung):
        return f"page hung during {exc} (infinite loop?)"
    if isinstance(exc, BudgetExhausted):
        return f"not finished: the page's wall-clock budget ran out during {exc}"
    if isinstance(exc, PageCrashed):
        return f"renderer crashed during {exc}"
    return f"browser error: {_short(exc)}"


def fail(record: dict, index: int, steps: list, exc: Exception) -> None:
    """Mark `record` failed at step `index` of `steps` (-1: while loading) by `exc`."""
    if not isinstance(exc, (StepFailed, PageHung, BudgetExhausted, PageCrashed)):
        log.warning("test case %s: %s", record["id"], exc)
    _fail(record, index, steps, failure_reason(exc))


async def within_node_cap(session: PageSession) -> None:
    """The evaluator's DOM cap holds inside test cases too: a case whose page has outgrown
    limits.max_dom_nodes (after loading, or by its last step) fails, whatever it asserted.
    Otherwise a DOM bomb fast enough to finish building would pass its cases on a fast machine
    and fail them on a slow one."""
    nodes = await session.iso("document.getElementsByTagName('*').length") or 0
    cap = session.cfg.limits.max_dom_nodes
    if nodes > cap:
        raise StepFailed(f"resource limit: the DOM grew to {nodes} nodes (limit {cap})")


def _fail(record: dict, index: int, steps: list, error: str) -> None:
    record["failed_step"] = index if index >= 0 else None
    step = steps[index] if 0 <= index < len(steps) and isinstance(steps[index], dict) else {}
    record["failed_action"] = step.get("action") if index >= 0 else "load"
    record["error"] = error
