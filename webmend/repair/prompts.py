"""Repair prompts: one shared structure, a strategy-specific instruction, the output rule of the mode.

What a prompt carries follows htmlcure.txt D.6.3: the task, the page's state and scores, previous
attempts with their contrastive evidence, the probe evidence, the requirement audit, the problems
to fix, what must be preserved, the strategy's instruction and the current HTML. The wording is ours.
"""

from __future__ import annotations

from webmend.evaluate.scoring import VISUAL_ESTIMATE_TERMS
from webmend.repair.evidence import attempt_text, other_evidence, problems, unpassable_text
from webmend.schemas.repair import Attempt, Diagnosis

SYSTEM = ("You repair single-file HTML pages (HTML, CSS and JavaScript in one document). You change what the "
          "evidence shows is broken or missing and keep everything that works. The page runs offline: public CDN "
          "URLs of npm packages (cdnjs, jsDelivr, unpkg) are served from a local mirror, so a library or add-on "
          "file the page needs may be loaded that way; any other network request fails. Fix what a user would call a defect; "
          "never reword visible content or add motion only to satisfy a check.")

INSTRUCTIONS = {
    "holistic_rewrite": "Write the complete document again, implementing the whole task. Keep whatever the evidence "
                        "shows already works (structure, content, behaviour); where one defect explains the failures "
                        "(an error thrown at load, say), the new document may be the current code with it fixed.",
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

# What a round's later strategy should answer when the earlier candidate already is the best fix.
SAME_FIX = {"patch": 'If the best fix is the one above, do not pad it with unrelated changes: answer {"patches": []} '
                     "(no change proposed).",
            "rewrite": "If the best fix is the one above, do not pad it with unrelated changes."}

OUTPUT_RULES = {
    "patch": 'Reply with JSON only: {"patches": [{"old_str": "an exact substring of the current HTML, unique in '
             'it", "new_str": "its replacement"}]}. Keep each old_str short but unique.',
    "rewrite": "Reply with the complete HTML document only, from <!DOCTYPE html> to </html>, no explanations.",
}


def build_messages(strategy: str, mode: str, d: Diagnosis, html: str, task: str, attempts: list[Attempt],
                   game_layer: str | None, max_html_chars: int, siblings: list[str] = ()) -> list[dict]:
    """`siblings`: what the round's earlier candidates changed; this one must differ from them."""
    parts = [
        f"Strategy selected by the repair controller: {strategy}.",
        f"## Task\n{task or '(no task text given)'}",
        f"## Current page state\nTotal score: {d.total}/100. Dimension scores: "
        + ", ".join(f"{k}={v}" for k, v in d.dimensions.items()),
        "## Previous repair attempts\n" + (_attempts_text(attempts, d) or "none"),
        "## Problems to fix\n" + ("\n".join(f"- {p}" for p in problems(d)) or "no failed check; see the evidence below"),
    ]
    if d.unpassable_tests:
        parts.append("## Checks no correct page can pass\n" + "\n".join(f"- {unpassable_text(t)}" for t in d.unpassable_tests))
    parts += [
        "## Other probe evidence\n" + "\n".join(other_evidence(d)),
        "## Requirement audit\n" + (_requirements_text(d) or "no audit available"),
        "## Features that must be preserved\n" + (_preserve(d) or "everything that works now"),
    ]
    if siblings:
        parts.append("## Other candidates this round\nAlready proposed this round:\n" + "\n".join(f"- {x}" for x in siblings)
                     + "\nPropose a different fix where there is one (another defect, another way to fix it); a copy of "
                     "one above is not evaluated again. " + SAME_FIX[mode])
    parts += [
        "## Strategy-specific instruction\n" + INSTRUCTIONS[strategy] + _game_text(strategy, game_layer),
        "## Current HTML\n```html\n" + _cut(html, max_html_chars) + "\n```",
        "## Output rule\n" + OUTPUT_RULES[mode],
    ]
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n\n".join(parts)}]


def _attempts_text(attempts: list[Attempt], d: Diagnosis) -> str:
    recent = attempts[-6:]  # the recent ones: older attempts are summarised by the checkpoint
    lines = [attempt_text(a, d.test_names, d.passing_steps) for a in recent]
    if any(t.dimension == "visual_design" for a in recent for t in a.terms_moved):
        lines.append("(visual_design here is a fast estimate, not a judge's view: " + VISUAL_ESTIMATE_TERMS + ")")
    return "\n".join(lines)


def _requirements_text(d: Diagnosis) -> str:
    return "\n".join(f"- [{r.status}] {r.requirement}: {r.evidence}" for r in d.requirements)


def _preserve(d: Diagnosis) -> str:
    return "\n".join(f"- passing test case {t}" + (f" ({d.test_names[t]})" if t in d.test_names else "")
                     for t in d.passing_tests) + "".join(
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
