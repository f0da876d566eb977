"""Checks that see inside a canvas: text the page drew, the colours a region shows, how much of
it is drawn on, whether it moves while page time passes (docs/icg-format.md, "Observations").

They read what the page put on screen or drew through the canvas API, never how one page did it,
so a contract written for a task holds for any implementation of it. Mixed into StepRunner.
"""

from __future__ import annotations

import json

import numpy as np

from webmend.browser.page_scripts import OBSERVE_KEY
from webmend.evaluate.pixels import (
    CHANGE_LEVEL, MIN_SHARE, TOLERANCE, changed, color_share, coverage, distinct_colors, dominant_color, parse_color,
)
from webmend.evaluate.similarity import screenshot_diff
from webmend.evaluate.step_args import as_point, py_search
from webmend.evaluate.step_failed import StepFailed

MOTION_MS = 500  # page time assert_animates / assert_still let pass by default
STILL_SHARE = 0.001  # assert_still: at most this share of the region may change
SAME_THRESHOLD = 0.97  # assert_screenshot_matches: 1 - mean SSIM of the thumbnails at most 0.03


def in_scope(expression: str, helpers: str = "", own_scope: bool = False) -> str:
    """JavaScript with `observed` (the page's recorded observations) and a contract's helpers in
    scope, its completion value kept (an expression, or statements ending in one, read as before).

    Helpers and the expression run inside a function, the expression through a direct `eval` of
    its text: a helper `function squares()` is the function's own, where in a block at a script's
    top level it would also declare a global and collide with a page's `const squares` (a real
    model's helpers did). `own_scope` (a contract's expressions) puts even a plain expression in a
    block, so a `const` it declares is its own and not one an earlier check left. Test cases run
    exactly the script they wrote unless they name `observed`."""
    if not (helpers or "observed" in expression):
        return f"{{\n{expression}\n}}" if own_scope else expression
    return (f"(function (observed) {{\n{helpers}\n;\nreturn eval({json.dumps(expression)});\n}})"
            f".call(window, window.{OBSERVE_KEY}.live())")


def _float(step: dict, key: str, default: float) -> float:
    value = step.get(key)
    try:
        return float(value) if value is not None else default
    except (TypeError, ValueError):
        raise StepFailed(f"{key} must be a number, got {value!r}") from None


def _sub_region(region, x: float, y: float, w: float, h: float) -> tuple[float, float, float, float]:
    """`region` [left, top, width, height] as fractions (0..1) of the box x, y, w, h: [0.4, 0.4,
    0.2, 0.2] is its centre, [0, 0, 0.25, 0.2] its top-left corner."""
    try:
        fx, fy, fw, fh = (float(v) for v in region)
    except (TypeError, ValueError):
        raise StepFailed(f"region must be [left, top, width, height] fractions, got {region!r}") from None
    if not (0 <= fx < 1 and 0 <= fy < 1 and 0 < fw <= 1 - fx + 1e-9 and 0 < fh <= 1 - fy + 1e-9):
        raise StepFailed(f"region {region!r} is not inside [0, 1]")
    nx, ny = x + fx * w, y + fy * h
    return nx, ny, max(1.0, fw * w), max(1.0, fh * h)


def _last_texts(texts: list[str], n: int = 12) -> str:
    """The most recently drawn texts, for a failure's reason."""
    return "; ".join(json.dumps(t) for t in texts[-n:]) or "none"


class ObservationChecks:
    """StepRunner's observation checks (self.s: the PageSession; self.first_visible: a locator)."""

    async def observed(self) -> dict:
        """The observations recorded in the current document since it started loading."""
        snap = await self.s.main_eval(f"window.{OBSERVE_KEY} ? window.{OBSERVE_KEY}.snapshot() : null")
        if snap is None:
            raise StepFailed("no observations in this document")
        return snap

    async def do_assert_drawn_text(self, step):
        pattern = str(step.get("text", ""))
        snap = await self.observed()
        within = step.get("within_ms")
        since = snap["now"] - _float(step, "within_ms", 0.0) if within is not None else -1.0
        texts = [d["text"] for d in snap["drawnText"] if d["last"] >= since]
        if not any(py_search(pattern, t) for t in texts):
            when = f" in the last {within} ms of page time" if within is not None else ""
            raise StepFailed(f"no drawn text matches {pattern!r}{when}; drawn: {_last_texts(texts)}")

    async def do_click_drawn_text(self, step):
        """Click where a text matching `text` was last drawn on an on-screen canvas (its centre):
        a canvas game's 'Start' or a drawn menu entry, found the way a user sees it."""
        pattern = str(step.get("text", ""))
        vw, vh = self.s.viewport.width, self.s.viewport.height
        drawn = (await self.observed())["drawnText"]
        hits = [d for d in drawn if py_search(pattern, d["text"]) and d.get("x") is not None
                and 0 <= d["x"] < vw and 0 <= d["y"] < vh]
        if not hits:
            raise StepFailed(f"no text drawn on screen matches {pattern!r}; drawn: {_last_texts([d['text'] for d in drawn])}")
        await self._act(self.page.mouse.click(hits[-1]["x"], hits[-1]["y"]), "click")
        await self.settle()

    async def do_click_at(self, step):
        """A real mouse click at a point: `pos`, or the [x, y] the step's expression returns."""
        point = as_point(step.get("pos")) if step.get("pos") is not None else as_point(await self._eval(step, "click_at"))
        if point is None:
            raise StepFailed("click_at: no point (pos, or an expression returning [x, y])")
        vw, vh = self.s.viewport.width, self.s.viewport.height
        if not (0 <= point[0] < vw and 0 <= point[1] < vh):
            raise StepFailed(f"click_at: ({point[0]:.0f}, {point[1]:.0f}) is outside the {vw}x{vh} viewport")
        mods = [m for m in step.get("modifiers") or [] if m in ("Shift", "Control", "Alt", "Meta")]
        keyboard = self.page.keyboard
        for m in mods:
            await self._act(keyboard.down(m), "click_at")
        try:
            await self._act(self.page.mouse.click(*point, button=step.get("button") or "left"), "click_at")
        finally:
            for m in reversed(mods):
                await self._act(keyboard.up(m), "click_at")
        await self.settle()

    async def region(self, step) -> np.ndarray:
        """RGB pixels of the step's element (clipped to the viewport), or of the whole viewport."""
        vw, vh = self.s.viewport.width, self.s.viewport.height
        x, y, w, h = 0.0, 0.0, float(vw), float(vh)
        if step.get("selector") or step.get("target"):
            box = await self._act(self.first_visible(step).bounding_box(timeout=1500), "bounding box")
            if not box:
                raise StepFailed("the element to look at is not visible")
            x, y = max(0.0, box["x"]), max(0.0, box["y"])
            w, h = min(vw, box["x"] + box["width"]) - x, min(vh, box["y"] + box["height"]) - y
            if w < 1 or h < 1:
                raise StepFailed("the element to look at is outside the viewport")
        if step.get("region") is not None:
            x, y, w, h = _sub_region(step["region"], x, y, w, h)
        return await self.s.clip_rgb(x, y, w, h, 1)

    async def do_assert_screenshot_matches(self, step):
        """The viewport looks like it did at the screenshot step with this label (a reset view, a
        palette switched back): 1 - mean SSIM of the thumbnails <= 1 - threshold."""
        label = str(step.get("label", ""))
        if label not in self.labelled:
            raise StepFailed(f"no screenshot labelled {label!r} in this document (taken: {sorted(self.labelled)})")
        threshold = _float(step, "threshold", SAME_THRESHOLD)
        diff = screenshot_diff(self.labelled[label], await self.s.thumb())
        if diff > 1 - threshold:
            raise StepFailed(f"the view differs from screenshot {label!r} (diff {diff:.4f} > {1 - threshold:.4f})")

    async def do_assert_colors(self, step):
        pixels = await self.region(step)
        tolerance = _float(step, "tolerance", TOLERANCE)
        min_share = _float(step, "min_share", MIN_SHARE)
        missing = []
        colors = step.get("colors") or []
        for text in [colors] if isinstance(colors, str) else colors:  # a test case may give one as a string
            try:
                rgb = parse_color(text)
            except ValueError:
                raise StepFailed(f"not a colour: {text!r}") from None
            share = color_share(pixels, rgb, tolerance)
            if share < min_share:
                missing.append(f"{text} ({share:.4%} of the region)")
        if missing:
            raise StepFailed(f"colours not shown (each needs {min_share:.4%}): " + ", ".join(missing))
        if step.get("min_distinct") is not None:
            found = distinct_colors(pixels, min_share)
            if found < int(_float(step, "min_distinct", 0)):
                raise StepFailed(f"{found} distinct colours shown, expected at least {step['min_distinct']}")

    async def do_assert_coverage(self, step):
        pixels = await self.region(step)
        try:
            background = parse_color(step["background"]) if step.get("background") else dominant_color(pixels)
        except ValueError:
            raise StepFailed(f"not a colour: {step.get('background')!r}") from None
        share = coverage(pixels, background, _float(step, "tolerance", TOLERANCE))
        low, high = _float(step, "min_share", 0.0), _float(step, "max_share", 1.0)
        if not low <= share <= high:
            raise StepFailed(f"{share:.2%} of the region is drawn on (background rgb{background}), "
                             f"expected {low:.2%}..{high:.2%}")

    async def _motion(self, step) -> float:
        """Share of the region's pixels that changed while the step's `ms` of page time passed."""
        ms = min(_float(step, "ms", MOTION_MS), self.s.cfg.limits.max_wait_ms)
        before = await self.region(step)
        await self.s.advance(ms)
        return changed(before, await self.region(step), CHANGE_LEVEL)

    async def do_assert_animates(self, step):
        share, want = await self._motion(step), _float(step, "min_share", MIN_SHARE)
        if share < want:
            raise StepFailed(f"{share:.4%} of the region changed in {step.get('ms', MOTION_MS)} ms of page time, "
                             f"expected at least {want:.4%}")

    async def do_assert_still(self, step):
        share, most = await self._motion(step), _float(step, "max_share", STILL_SHARE)
        if share > most:
            raise StepFailed(f"{share:.4%} of the region changed in {step.get('ms', MOTION_MS)} ms of page time, "
                             f"expected at most {most:.4%}")
