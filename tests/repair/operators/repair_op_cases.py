"""Shared by the operator tests: one repair round of one operator on one fixture, in real Chromium.

Each fixture page is evaluated once before and once after the edit (module-scoped fixtures in
the test modules), so the whole folder costs about fourteen page evaluations.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from webmend.repair.diagnosis import diagnose
from webmend.repair.evaluation import evaluate_html
from webmend.repair.operators import OPERATORS, Operator
from webmend.schemas.repair import Diagnosis

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "data" / "fixtures" / "repair"
SAMPLES = ROOT / "data" / "samples" / "pages"


def page(name: str) -> str:
    return (FIXTURES / f"{name}.html").read_text(encoding="utf-8")


def item(name: str) -> dict | None:
    for line in (FIXTURES / "items.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip() and (it := json.loads(line))["id"] == name:
            return it
    return None


def firing(d: Diagnosis, html: str) -> list[str]:
    return [op.name for op in OPERATORS if op.detect(d, html) is not None]


@dataclass
class Round:
    html: str
    before: dict
    d0: Diagnosis
    finding: dict | None
    fixed: str
    after: dict
    d1: Diagnosis

    def passed(self, test_id: str, after: bool) -> bool:
        record = self.after if after else self.before
        return next(t["passed"] for t in record["tests"] if t["id"] == test_id)


def repair_round(ops: list[Operator], name: str, cfg, worker) -> Round:
    """Evaluate the fixture, apply the operators that fire (in OPERATORS order), evaluate again."""
    html, it = page(name), item(name)
    before = evaluate_html(html, it, cfg, worker, page_id=name)
    d0 = diagnose(before, cfg)
    findings = {op.name: op.detect(d0, html) for op in ops}
    fixed = html
    for op in ops:
        if findings[op.name] is not None:
            fixed = op.apply(fixed, findings[op.name])
    after = evaluate_html(fixed, it, cfg, worker, page_id=name)
    first = findings[ops[0].name] if len(ops) == 1 else findings
    return Round(html, before, d0, first, fixed, after, diagnose(after, cfg))


def assert_nothing_broken(r: Round) -> None:
    """Every test case that passed before still passes, and nothing new went wrong."""
    assert r.before["status"] == r.after["status"] == "ok"
    assert set(r.d0.passing_tests) <= set(r.d1.passing_tests)
    assert len(r.d1.page_errors) <= len(r.d0.page_errors)
    assert r.d1.total >= r.d0.total


def diag(listeners=(), detected=True, page_height=None, uses_canvas=True, mobile=None, page_errors=(),
         cdn_misses=(), flags=(), static=None) -> Diagnosis:
    """A hand-made D(h) for the source-only tests: only what the detector under test reads."""
    desktop = {"overflow": False, "overflowing_elements": []}
    if page_height:
        desktop.update(page_height=page_height, viewport_height=720)
    layout = {"desktop": desktop}
    if mobile is not None:
        layout["mobile"] = {"overflow": bool(mobile), "overflowing_elements": list(mobile), "width": 375,
                            "scroll_width": 900 if mobile else 375}
    return Diagnosis(
        id="p", status="ok", total=50.0, state="Mid", dimensions={}, shortfall={}, limiting_dimension=None,
        failed_tests=[], passing_tests=[], rendered=True, console_errors=[], page_errors=list(page_errors),
        layout=layout, controls={"total": 0, "tested": 0, "responsive": 0, "dead": []},
        game={"detected": detected, "outcome": "played", "start_action": None, "loop_stalled": False,
              "canvas_blank": False, "start_overlay": False, "no_state_change": False, "keys_worked": [],
              "keyboard_listeners": list(listeners)},
        blocked_requests=[], cdn_misses=list(cdn_misses),
        static=static if static is not None else {"uses_canvas": uses_canvas, "uses_raf": True},
        requirements=[], flags=list(flags), history=[])
