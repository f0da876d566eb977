"""Repair prompts: one shared structure, a strategy-specific instruction, the output rule of the mode.

What a prompt carries follows htmlcure.txt D.6.3: the task, the page's state and scores, previous
attempts with their contrastive evidence, the probe evidence, the requirement audit, the problems
to fix, what must be preserved, the strategy's instruction and the current HTML. The wording is ours.
"""

from __future__ import annotations

from webmend.repair.diagnosis import as_text
from webmend.schemas.repair import Attempt, Diagnosis

SYSTEM = ("You repair single-file HTML pages (HTML, CSS and JavaScript in one document). You change what the "
          "evidence shows is broken or missing and keep everything that works. The page runs offline: do not "
          "add network requests beyond the libraries it already loads.")

INSTRUCTIONS = {
    "holistic_rewrite": "Write a complete new implementation of the task. The current page has no stable base to "
                        "patch; keep whatever the evidence shows already works (structure, content, behaviour).",
    "feature_completion": "Implement every broken or missing requirement listed below without removing or "
                          "breaking any working feature.",
    "interaction_repair": "Fix event wiring, input handling, feedback and state transitions of the controls and "
                          "flows that did nothing or failed. Do not change unrelated visuals.",
    "game_repair": "Fix the failing layer of the game named below. Do not rewrite systems that work.",
    "bug_fix": "Fix the JavaScript errors listed below at their cause, so the page runs without exceptions.",
    "visual_enrichment": "Improve typography, spacing, palette, depth and responsive polish with small additive "
                         "CSS changes. Do not change behaviour; every control must stay visible and working.",
    "high_state_refinement": "The page already works well. Make only small, additive patches for the localised "
                             "defects below; no broad rewrites.",
}

GAME_CHECKLIST = {
    "input": ["the canvas is not focusable (no tabindex) or never focused", "key listeners sit on the wrong element",
              "preventDefault is missing for arrow keys and Space", "the game loop never reads the key state"],
    "loop": ["requestAnimationFrame is never called", "the loop starts only after an action that never comes",
             "update or draw throws and stops the loop"],
    "canvas": ["the canvas has zero width or height", "getContext runs before the DOM is ready",
               "clearRect runs without a redraw", "an overlay or CSS hides the canvas"],
    "overlay": ["a game-over or modal screen shows on load", "the start screen cannot be dismissed",
                "the initial score, lives or state trigger a terminal state"],
    "gameplay": ["collision, scoring, timer, level or physics logic is wrong",
                 "input works but the game state does not change"],
}

OUTPUT_RULES = {
    "patch": 'Reply with JSON only: {"patches": [{"old_str": "an exact substring of the current HTML, unique in '
             'it", "new_str": "its replacement"}]}. Keep each old_str short but unique.',
    "rewrite": "Reply with the complete HTML document only, from <!DOCTYPE html> to </html>, no explanations.",
}


def build_messages(strategy: str, mode: str, d: Diagnosis, html: str, task: str, attempts: list[Attempt],
                   game_layer: str | None, max_html_chars: int) -> list[dict]:
    parts = [
        f"Strategy selected by the repair controller: {strategy}.",
        f"## Task\n{task or '(no task text given)'}",
        f"## Current page state\nTotal score: {d.total}/100. Dimension scores: "
        + ", ".join(f"{k}={v}" for k, v in d.dimensions.items()),
        "## Previous repair attempts\n" + (_attempts_text(attempts) or "none"),
        "## Objective probe evidence\n" + as_text(d),
        "## Requirement audit\n" + (_requirements_text(d) or "no audit available"),
        "## Problems to fix\n" + (_problems(d) or "see the evidence above"),
        "## Features that must be preserved\n" + (_preserve(d) or "everything that works now"),
        "## Strategy-specific instruction\n" + INSTRUCTIONS[strategy] + _game_text(strategy, game_layer),
        "## Current HTML\n```html\n" + _cut(html, max_html_chars) + "\n```",
        "## Output rule\n" + OUTPUT_RULES[mode],
    ]
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n\n".join(parts)}]


def _attempts_text(attempts: list[Attempt]) -> str:
    lines = []
    for a in attempts[-6:]:  # the recent ones: older attempts are summarised by the checkpoint
        moved = ", ".join(f"{k} {v.before}->{v.after}" for k, v in a.dimensions.items() if v.before != v.after)
        flips = (f"; tests fixed {a.tests_fixed}" if a.tests_fixed else "") + (
            f"; tests broken {a.tests_broken}" if a.tests_broken else "")
        lines.append(f"- round {a.round} {a.strategy} ({a.name}): {'ACCEPTED' if a.accepted else 'rejected'}: "
                     f"{a.reason}{flips}{'; ' + moved if moved else ''}{_contrast(a)}")
    return "\n".join(lines)


def _contrast(a: Attempt) -> str:
    bits = []
    if a.controls_revived:
        bits.append(f"controls that came alive: {a.controls_revived[:5]}")
    if a.controls_died:
        bits.append(f"controls that died: {a.controls_died[:5]}")
    if a.visual_feedback:
        bits.append(f"visual comparison: {a.visual_feedback}")
    return ("; " + "; ".join(bits)) if bits else ""


def _requirements_text(d: Diagnosis) -> str:
    return "\n".join(f"- [{r.status}] {r.requirement}: {r.evidence}" for r in d.requirements)


def _problems(d: Diagnosis) -> str:
    items = [f"test case '{t.name or t.id}' fails at step {t.failed_step} ({t.failed_action}): {t.error}"
             for t in d.failed_tests]
    items += [f"control {c.label or c.selector!r} does nothing when used" for c in d.controls.dead[:8]]
    items += [f"uncaught error: {e}" for e in d.page_errors[:5]]
    items += [f"requirement {r.status}: {r.requirement}" for r in d.requirements if r.status in ("missing", "broken")]
    return "\n".join(f"- {i}" for i in items)


def _preserve(d: Diagnosis) -> str:
    return "\n".join(f"- passing test case {t}" for t in d.passing_tests) + "".join(
        f"\n- requirement done: {r.requirement}" for r in d.requirements if r.status == "done")


def _game_text(strategy: str, layer: str | None) -> str:
    if strategy != "game_repair" or layer is None:
        return ""
    return f"\nFailing layer: {layer}. Check, in order:\n" + "\n".join(f"{i}. {c}" for i, c in
                                                                    enumerate(GAME_CHECKLIST[layer], 1))


def _cut(html: str, limit: int) -> str:
    if len(html) <= limit:
        return html
    return html[:limit] + "\n<!-- the page continues; it was cut to fit the prompt -->"
