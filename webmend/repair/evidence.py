"""D(h) and the attempt history as text a model can act on (the repair prompt's evidence).

Every failed check is shown once, with its whole definition (each step's action and arguments:
selector, text pattern, expression, expected) and what the runner observed; a failed screenshot
comparison also names the capture it compared with and the steps run since. Checks no correct page
can pass are listed apart, as no defect of the page. Lists are shortened by whole items, never
inside a string, and say how many items were left out.
"""

from __future__ import annotations

import json

from webmend.schemas.repair import Attempt, Diagnosis, FailedTest, UnpassableTest

TESTS_BUDGET = 12_000  # characters of failed-check text in one prompt
ITEMS_BUDGET = 2_000  # characters per list of other evidence (layout elements, errors)
DEAD_CONTROL_NOTE = ("a control 'did nothing' when using it once (a click from a parked pointer, a drag for a "
                     "draggable element, another option of a select) changed neither the DOM, the visible text, "
                     "form values nor (on a still page) the pixels within 1 s of page time; a control whose effect "
                     "the census cannot see (a link to an anchor already in view, a change drawn only on an animating "
                     "canvas) may be listed: change it only where a user would see nothing happen")
# What the evaluator's request policy (webmend/browser/network.py) means by each blocked reason.
BLOCKED_MEANING = {
    "offsite": "a request to a host the page may not reach (the page runs offline; only the CDN libraries it loads "
               "are served, from a local mirror)",
    "navigation_away": "the page tried to leave for another address; the evaluator kept it",
    "reload_loop": "the page reloaded itself again and again (often a form that submitted natively because a "
                   "script failed before it attached the submit handler); the evaluator stopped the reload",
}
UNPASSABLE_NOTE = "not a page defect: do not change the page for it (no added motion, no reworded content)"


def fit(items: list[str], budget: int) -> list[str]:
    """The first items whose text fits `budget` characters (at least one), whole, and a note of the rest."""
    out, used = [], 0
    for i, item in enumerate(items):
        if out and used + len(item) > budget:
            return out + [f"({len(items) - i} more not shown)"]
        out.append(item)
        used += len(item)
    return out


def step_text(i: int, step) -> str:
    return f"{i}. {json.dumps(step, ensure_ascii=False)}"


def failed_test_text(t: FailedTest) -> str:
    head = f"FAILED test {t.id} ({t.name or 'unnamed'}, weight {t.weight:g}) at step {t.failed_step} ({t.failed_action}): {t.error}"
    if not t.steps:
        return head
    lines = [head, "  its steps (0-based; it passes when every step succeeds in order, on a freshly loaded page):"]
    for i, step in enumerate(t.steps):
        mark = f"   <- FAILED here: {t.error}" if i == t.failed_step else ""
        lines.append(f"    {step_text(i, step)}{mark}")
    if t.compared_with is not None:
        lines.append("  " + _comparison(t.compared_with))
    return "\n".join(lines)


def _comparison(c: dict) -> str:
    if c.get("capture_step") is None:
        return "the comparison had no earlier capture in this case"
    between = c.get("between") or []
    since = ", ".join(s.get("action", "?") if isinstance(s, dict) else "?" for s in between) or "nothing"
    return (f"the screenshot comparison compares the viewport now with the capture at step {c['capture_step']} "
            f"(label {c.get('label')!r}); run since that capture: {since}. It passes when the viewport differs "
            "enough (1 - mean SSIM of 160x90 grayscale thumbnails)")


def unpassable_text(t: UnpassableTest) -> str:
    return (f"test {t.id} ({t.name or 'unnamed'}) step {t.unpassable_step} "
            f"{json.dumps(t.steps[t.unpassable_step], ensure_ascii=False) if t.steps else ''}: {t.reason} ({t.rule}); "
            f"{UNPASSABLE_NOTE}")


def problems(d: Diagnosis) -> list[str]:
    """What the page gets wrong, each once: failed checks, dead controls, errors, contract, audit."""
    items = fit([failed_test_text(t) for t in d.failed_tests], TESTS_BUDGET)
    dead = fit([f"control {c.selector} ({c.label!r}, {'has' if c.wired else 'no'} listener of its own) did "
                f"nothing when {c.used}" for c in d.controls.dead], ITEMS_BUDGET)
    items += dead + ([f"({DEAD_CONTROL_NOTE})"] if dead else [])
    items += fit([f"uncaught error{n}: {e}" for e, n in _counted(d.page_errors)], ITEMS_BUDGET)
    items += [f"{t.status.upper()} contract transition {t.id}: step {t.failed_step}: {t.reason}" for t in d.failed_transitions]
    items += [f"unmet {r.kind} requirement {r.id}: {r.text} (score {r.score:.2f})" for r in d.unmet_requirements]
    items += [f"requirement {r.status}: {r.requirement} ({r.evidence})" for r in d.requirements if r.status != "done"]
    return items


def _counted(messages: list[str]) -> list[tuple[str, str]]:
    """Each distinct message once, in first-seen order, with ' (xN)' when it repeated."""
    counts: dict[str, int] = {}
    for m in messages:
        counts[m] = counts.get(m, 0) + 1
    return [(m, f" (x{n})" if n > 1 else "") for m, n in counts.items()]


def other_evidence(d: Diagnosis) -> list[str]:
    """The probes' findings that are not failed checks: state, console, layout, game, libraries."""
    lines = [f"status: {d.status}; score {d.total}; state {d.state}; limiting dimension: {d.limiting_dimension}"]
    if d.console_errors:
        lines.append("console errors: " + " | ".join(fit([f"{e}{n}" for e, n in _counted(d.console_errors)], ITEMS_BUDGET)))
    for name, v in d.layout.items():
        if v["overflow"] or v["offscreen_controls"] or v["unreadable_text"]:
            lines.append(_layout_text(name, v))
    g = d.game
    if g.detected:
        lines.append(f"game/flow: outcome {g.outcome}; start {g.start_action}; stalled {g.loop_stalled}; "
                     f"blank canvas {g.canvas_blank}; no state change {g.no_state_change}; keys that worked {g.keys_worked}")
    if d.cdn_misses:
        lines.append(f"libraries the offline mirror does not hold (they did not load): {d.cdn_misses}")
    if d.blocked_requests:
        blocked = [f"{b.get('url')} ({b.get('reason')}: {BLOCKED_MEANING.get(b.get('reason'), 'blocked')})"
                   for b in d.blocked_requests]
        lines.append("blocked requests: " + ", ".join(fit(blocked, ITEMS_BUDGET)))
    return lines


def _layout_text(name: str, v: dict) -> str:
    facts = {k: v[k] for k in sorted(v) if k not in ("overflowing_elements", "offscreen_controls")}
    parts = [f"layout {name}: {json.dumps(facts, sort_keys=True)}"]
    for key in ("overflowing_elements", "offscreen_controls"):
        if v.get(key):
            parts.append(f"{key}: " + ", ".join(fit([json.dumps(e, sort_keys=True) for e in v[key]], ITEMS_BUDGET // 2)))
    return "; ".join(parts)


def attempt_text(a: Attempt, names: dict[str, str] | None = None, steps: dict[str, list] | None = None) -> str:
    """One earlier attempt: verdict and why, what it changed, tests it fixed and broke (with their
    names from `names`, and the steps of a broken one from `steps`), the dimensions and scoring
    terms that moved, the contrastive evidence."""
    names, steps = names or {}, steps or {}
    verdict = "ACCEPTED" if a.accepted else "REJECTED"
    scores = f" (total {a.score_before} -> {a.score_after})" if a.score_after is not None else ""
    lines = [f"- round {a.round}, candidate {a.candidate}: {a.strategy} ({a.mode}): {verdict}: {a.reason}{scores}"]
    if a.changes:
        lines.append(f"  it changed: {a.changes}")
    if a.tests_fixed or a.tests_broken:
        def named(ids: list[str]) -> str:
            return ", ".join(f"{i} ({names[i]})" if i in names else i for i in ids) or "none"
        lines.append(f"  tests fixed: {named(a.tests_fixed)}; tests broken: {named(a.tests_broken)}")
        for tid in a.tests_broken:
            if steps.get(tid):
                lines.append(f"  the steps of {tid}, which the checkpoint passes: "
                             + " ".join(step_text(i, s) for i, s in enumerate(steps[tid])))
    moved = _moved(a)
    if moved:
        lines.append(f"  scores that moved: {moved}")
    if a.controls_revived:
        lines.append(f"  controls that came alive: {a.controls_revived[:5]}")
    if a.controls_died:
        lines.append(f"  controls that died: {a.controls_died[:5]}")
    if a.controls_still_dead:
        lines.append(f"  controls still doing nothing after it: {a.controls_still_dead[:5]}")
    if a.visual_feedback:
        lines.append(f"  visual comparison: {a.visual_feedback}")
    return "\n".join(lines)


def _moved(a: Attempt) -> str:
    out = []
    for dim, v in a.dimensions.items():
        if v.before == v.after:
            continue
        terms = [f"{t.term} {t.before}->{t.after}" for t in a.terms_moved if t.dimension == dim]
        out.append(f"{dim} {v.before}->{v.after}" + (f" [terms 0..1: {', '.join(terms)}]" if terms else ""))
    return "; ".join(out)


def as_text(d: Diagnosis) -> str:
    """The whole diagnosis as text: problems, checks no page can pass, the other evidence."""
    lines = problems(d) + [unpassable_text(t) for t in d.unpassable_tests] + other_evidence(d)
    return "\n".join(lines)
