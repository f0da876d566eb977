"""Checks no correct page can pass, recognised from the test case itself (and the runner's own
words about a step it could not even start), before repair spends a model call on them.

The verdict does not change: such a case still fails and still costs its weight. What changes is
where repair spends: the case is left out of the router's targets and shown to the model as "not a
page defect: do not change the page for it" (docs/repair.md). A flag must never hide a defect, so
every rule is narrow and errs towards not flagging:

- change_without_action: `assert_screenshot_changed` whose reference capture is followed by no
  action (only waits and assertions), in a task that asks for no motion. Only a page that moves
  on its own passes it, and adding motion the task did not ask for is no repair.
- no_reference_capture: `assert_screenshot_changed` with no `screenshot` before it in the case.
- unknown_action: a step whose action the test-case format does not define.
- invalid_selector / invalid_pattern: the browser rejected the step's CSS selector, or its text
  pattern is no regular expression; no page's content changes that.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from webmend.schemas.contract import CHECK_ACTIONS, STEP_ACTIONS

# Steps that change the page or its input; `wait`, `wait_for`, `screenshot` and every assertion do not.
ACTING = frozenset(STEP_ACTIONS) - {"wait", "wait_for", "screenshot"}
# Families whose pages are expected to move on their own (HTMLBench categories).
MOTION_FAMILIES = ("games_simulations", "visual_art_animation", "three_d_webgl")
# Words of a task that asks for motion; a task using any of them is never flagged for a change
# check (wide on purpose: a missed flag costs a model call, a wrong one hides a defect).
MOTION_WORDS = re.compile(
    r"\b(animat\w*|motion|mov(e|es|ing)|rotat\w*|spin\w*|particle\w*|orbit\w*|clocks?|timers?|countdown|"
    r"stopwatch|live|real[- ]?time|simulat\w*|games?|play\w*|scroll\w*|flow\w*|waves?|puls\w*|ticker|"
    r"carousel|slide\w*|autoplay|loop\w*|transition\w*|fall\w*|bounc\w*|flicker\w*|twinkl\w*|drift\w*|"
    r"float\w*|force\w*|physics|gravity|typewriter|marquee|ripple\w*|morph\w*|fade\w*|glow\w*|shimmer\w*|sparkl\w*|3d|webgl|shader\w*)\b",
    re.IGNORECASE)
# The browser's and the runner's words for a selector or pattern no page can satisfy.
BAD_SELECTOR = re.compile(r"is not a valid selector|while parsing (css )?selector|bad selector", re.IGNORECASE)
BAD_PATTERN = re.compile(r"^bad pattern ", re.IGNORECASE)
KNOWN_ACTIONS = frozenset(STEP_ACTIONS) | frozenset(CHECK_ACTIONS)


@dataclass(frozen=True)
class Unpassable:
    step: int  # 0-based index of the step no page can pass
    rule: str  # one of UNPASSABLE_RULES
    reason: str


def task_asks_for_motion(item: dict) -> bool:
    return item.get("category") in MOTION_FAMILIES or bool(MOTION_WORDS.search(str(item.get("prompt") or "")))


def unpassable_step(case: dict, item: dict, error: str | None = None, failed_step: int | None = None) -> Unpassable | None:
    """The first step of `case` no correct page can pass, else None. `error` and `failed_step`
    are the runner's record of a failed run of it (what the browser said of its selector)."""
    steps = case.get("steps") if isinstance(case.get("steps"), list) else []
    if failed_step is not None and 0 <= failed_step < len(steps) and error:
        if BAD_SELECTOR.search(error):
            return Unpassable(failed_step, "invalid_selector", f"the browser rejects the step's selector: {error[:160]}")
        if BAD_PATTERN.search(error):
            return Unpassable(failed_step, "invalid_pattern", f"the step's text pattern is not a regular expression: {error[:160]}")
    capture: int | None = None
    acted = False
    for i, step in enumerate(steps):
        action = step.get("action") if isinstance(step, dict) else None
        if action not in KNOWN_ACTIONS:
            return Unpassable(i, "unknown_action", f"the test-case format defines no action {action!r}")
        if action == "screenshot":
            capture, acted = i, False
        elif action in ACTING:
            acted = True
        elif action == "assert_screenshot_changed":
            if capture is None:
                return Unpassable(i, "no_reference_capture", "it compares with an earlier screenshot, and the case takes none")
            if not acted and not task_asks_for_motion(item):
                return Unpassable(i, "change_without_action",
                                  f"nothing acts on the page between the capture at step {capture} and this check, and the "
                                  "task asks for no motion: only a page that moves on its own passes it")
    return None
