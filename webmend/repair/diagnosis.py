"""D(h): the controller's input, built from a stored evaluation record without opening a browser.

Everything here is read from what the evaluator wrote (result record, trace summary, evidence) and
from the repair history so far; `as_text` renders it for a repair prompt.
"""

from __future__ import annotations

from webmend.config import EvalConfig
from webmend.evaluate.scoring import dimension_budgets
from webmend.evaluate.unpassable import unpassable_step
from webmend.repair.evidence import as_text  # noqa: F401  (D(h) as text; re-exported)
from webmend.schemas.repair import Diagnosis, HistoryEntry
from webmend.schemas.vocab import DIMENSIONS, VIEWPORTS

MAX_MESSAGES = 10  # console / page errors kept per kind
# How the census used a control (its record's `action`; older records say nothing: by its tag).
USED = {"click": "clicked", "drag": "dragged sideways and dropped", "select": "chose another option",
        "fill": "typed into and pressed Enter", "pick": "given a value (a colour or date picker)"}
_STATIC_KEYS = ("doctype", "title", "lang", "has_viewport_meta", "charset_declared", "libraries", "uses_canvas",
                "uses_webgl", "uses_raf", "external_resources", "size_bytes", "script_count", "module_scripts")


def diagnose(record: dict, cfg: EvalConfig, history: list[HistoryEntry] | None = None,
             item: dict | None = None) -> Diagnosis:
    """`item` (the task's test-case item, when known) gives each failed test its steps and tells
    the checks no correct page can pass (webmend/evaluate/unpassable.py) from the page's defects."""
    score = record.get("score") or {}
    evidence = record.get("evidence") or {}
    summary = record.get("trace_summary") or {}
    probe = evidence.get("probe") or {}
    events = evidence.get("events") or {}
    dims = {d: score.get(d) for d in DIMENSIONS}
    shortfall = _shortfall(dims, dimension_budgets(cfg, bool(record.get("interactive"))))
    tests = record.get("tests") or []
    item = item or {}
    cases = _cases(item)
    failed, unpassable = _failed_tests(tests, item, cases)
    return Diagnosis(
        id=record["id"], status=record["status"], total=score.get("total"), state=record.get("state"),
        dimensions=dims, shortfall=shortfall,
        limiting_dimension=max(shortfall, key=shortfall.get) if any(shortfall.values()) else None,
        failed_tests=failed, unpassable_tests=unpassable,
        test_names={cid: str(c["name"]) for cid, c in cases.items() if c.get("name")},
        passing_steps={t["id"]: cases[t["id"]]["steps"] for t in tests
                       if t["passed"] and isinstance(cases.get(t["id"], {}).get("steps"), list)},
        passing_tests=[t["id"] for t in tests if t["passed"]],
        rendered=bool(summary.get("rendered")),
        console_errors=_messages(events.get("console_errors")),
        page_errors=_messages(events.get("page_errors")),
        layout=_layout(probe),
        controls=_controls(probe, summary),
        game=_game(probe, summary),
        blocked_requests=[{"url": b.get("url"), "reason": b.get("reason")} for b in record.get("blocked_requests") or []],
        cdn_misses=sorted(str(m) for m in (evidence.get("network") or {}).get("cdn_misses") or []),
        static={k: (evidence.get("static") or {}).get(k) for k in _STATIC_KEYS},
        requirements=_requirements(evidence.get("judge")),
        flags=list(record.get("flags") or []),
        history=list(history or []),
        **_contract(record.get("contract")),
    )


def _cases(item: dict) -> dict[str, dict]:
    """The item's test cases by id (what the record's test results refer to)."""
    return {str(c.get("id")): c for c in item.get("test_cases") or [] if isinstance(c, dict)}


def _failed_tests(tests: list[dict], item: dict, cases: dict[str, dict]) -> tuple[list[dict], list[dict]]:
    """(failed test cases a page can pass, failed ones no page can pass), each with its steps."""
    failed, unpassable = [], []
    for t in tests:
        if t["passed"]:
            continue
        out = {k: t.get(k) for k in ("id", "name", "weight", "failed_step", "failed_action", "error")}
        case = cases.get(str(t["id"]))
        if case is None:
            failed.append(out)
            continue
        steps = list(case["steps"]) if isinstance(case.get("steps"), list) else []
        out["steps"] = steps
        out["compared_with"] = _compared_with(steps, t.get("failed_step"))
        flag = unpassable_step(case, item, t.get("error"), t.get("failed_step"))
        if flag is not None and flag.step == t.get("failed_step"):
            unpassable.append({**out, "rule": flag.rule, "unpassable_step": flag.step, "reason": flag.reason})
        else:
            failed.append(out)
    return failed, unpassable


def unpassable_ids(record: dict, item: dict | None) -> list[str]:
    """Ids of the record's failed test cases that no correct page can pass."""
    item = item or {}
    return [t["id"] for t in _failed_tests(record.get("tests") or [], item, _cases(item))[1]]


def _compared_with(steps: list, failed: int | None) -> dict | None:
    """For a failed screenshot comparison: the capture it compared with and the steps run since."""
    if failed is None or not 0 <= failed < len(steps) or not isinstance(steps[failed], dict):
        return None
    if steps[failed].get("action") != "assert_screenshot_changed":
        return None
    capture = max((i for i in range(failed) if isinstance(steps[i], dict) and steps[i].get("action") == "screenshot"),
                  default=None)
    if capture is None:
        return {"capture_step": None, "label": None, "between": []}
    return {"capture_step": capture, "label": steps[capture].get("label"), "between": steps[capture + 1:failed]}


def _contract(result: dict | None) -> dict:
    """Failed transitions, the passing ones (preserved like passing test cases) and the unmet
    requirements, from the record's contract result."""
    if not result or result.get("error"):
        return {}
    transitions = result.get("transitions") or {}
    return {
        "failed_transitions": [{"id": tid, "status": t["status"], "failed_step": t.get("failed_step"), "reason": t.get("reason", "")}
                               for tid, t in transitions.items() if t["status"] != "passed"],
        "passing_transitions": [tid for tid, t in transitions.items() if t["status"] == "passed"],
        "unmet_requirements": [{**r, "score": (result.get("requirements") or {}).get(r["id"], 0.0)}
                               for r in result.get("unmet") or []],
    }


def _shortfall(dims: dict, budget: dict[str, float | None]) -> dict[str, float]:
    return {d: round(1 - (dims[d] or 0.0) / budget[d], 4) for d in DIMENSIONS if budget[d] and dims[d] is not None}


def _messages(items) -> list[str]:
    out = []
    for item in (items or [])[:MAX_MESSAGES]:
        text = item.get("text") or item.get("message") if isinstance(item, dict) else item
        out.append(str(text)[:300])
    return out


def _layout(probe: dict) -> dict:
    views = probe.get("viewports") or {}
    out = {}
    for name in VIEWPORTS:
        v = views.get(name)
        if not v:
            continue
        elements = ((v.get("overflow_info") or {}).get("elements") or [])[:8]
        out[name] = {"overflow": bool(v.get("overflow")), "overflowing_elements": elements,
                     "width": (v.get("overflow_info") or {}).get("clientWidth"),
                     "scroll_width": (v.get("overflow_info") or {}).get("scrollWidth"),
                     "offscreen_controls": v.get("offscreen_selectors") or [],
                     "overlapping_controls": v.get("overlapping_controls", 0),
                     "unreadable_text": bool(v.get("unreadable_text"))}
    fold = probe.get("below_fold") or {}
    if "desktop" in out and fold:  # measured at the desktop viewport: is there a page to scroll?
        out["desktop"].update(page_height=fold.get("scrollHeight"), viewport_height=fold.get("viewportHeight"))
    return out


def _controls(probe: dict, summary: dict) -> dict:
    dead = []
    for c in probe.get("controls") or []:
        if c.get("responded") is False:
            dead.append({"selector": c.get("selector", ""), "label": str(c.get("text") or "")[:60],
                         "wired": bool(c.get("listeners")),
                         "used": USED.get(c.get("action") or ("select" if c.get("tag") == "select" else "click"), "used")})
    return {"total": summary.get("controls_total", 0), "tested": summary.get("controls_tested", 0),
            "responsive": summary.get("controls_responsive", 0), "dead": dead}


def _game(probe: dict, summary: dict) -> dict:
    detected = bool(summary.get("game_detected"))
    outcome = summary.get("layer3_outcome") or "not_run"
    return {
        "detected": detected, "outcome": outcome, "start_action": summary.get("start_action"),
        "loop_stalled": bool(summary.get("animation_stalled")) or outcome == "stalled",
        "canvas_blank": summary.get("blank_canvases", 0) > 0,
        "start_overlay": outcome == "did_not_start",
        "no_state_change": detected and outcome == "played"
        and not (summary.get("score_changed") or summary.get("position_changed")),
        "keys_worked": list(summary.get("keys_worked") or []),
        "keyboard_listeners": sorted(str(k) for k in probe.get("keyboard_listeners") or []),
    }


def _requirements(judge: dict | None) -> list[dict]:
    audit = (judge or {}).get("requirements") or []  # JudgeResult.requirements
    return [{"requirement": str(r.get("requirement", ""))[:300], "status": str(r.get("status", "")),
             "evidence": str(r.get("evidence", ""))[:300]} for r in audit if isinstance(r, dict)]
