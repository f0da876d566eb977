"""A page is bounded by its wall-clock budget, whatever its GPU process does (docs/sandbox.md)."""

from __future__ import annotations

import time
from pathlib import Path

from conftest import fixture_html

from webmend.config import EvalConfig
from webmend.evaluate.page import PageBudget, evaluate_page
from webmend.browser.launch import process_tree_cpu, profile_marker

LOW = dict(page_wall_s=4.0, test_wall_s=1.0, gl_wall_factor=1.0, step_wall_s=60.0, overrun_grace_s=5.0)


def _cases(n: int) -> list[dict]:
    steps = [{"action": "click", "selector": "#shift"}, {"action": "wait", "ms": 2000},
             {"action": "assert_screenshot_not_blank"}]
    return [{"id": f"t{i}", "weight": 2, "steps": steps} for i in range(n)]


def test_heavy_webgl_under_a_css_blur_stops_at_its_budget(worker, cfg):
    low = cfg.model_copy(update={"limits": cfg.limits.model_copy(update=LOW)})
    cases = _cases(8)
    budget = PageBudget(0.0, low.limits, len(cases)).seconds("gl")
    started = time.monotonic()
    ev = evaluate_page(fixture_html("hostile/gl_blur_heavy.html"), low, {"id": "glow", "test_cases": cases},
                       worker=worker)
    elapsed = time.monotonic() - started
    assert ev["status"] == "timeout" and "budget" in ev["reason"], ev["reason"]
    # The documented bound: the budget plus the cleanup grace (in practice well under a second).
    assert elapsed <= budget + LOW["overrun_grace_s"], elapsed
    assert "retried" not in ev["flags"]  # running out of budget is never retried
    # The evidence so far is kept, and every test case has a record with its reason.
    assert ev["profile"] == "gl" and ev["events"] is not None and ev["probe"] is not None
    assert [t["id"] for t in ev["tests"]] == [c["id"] for c in cases]
    assert all(not t["passed"] and "budget" in t["error"] for t in ev["tests"])
    # Nothing of the page is left running (its gl browser is gone with its GPU process), and the
    # worker goes on.
    assert not any(_has_marker(pid, "gl") for pid in process_tree_cpu())
    nxt = evaluate_page("<!DOCTYPE html><html lang=en><title>t</title><h1>fine</h1></html>", EvalConfig(), None,
                        worker=worker)
    assert nxt["status"] == "ok"


def _has_marker(pid: int, profile: str) -> bool:
    try:
        return profile_marker(profile).encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def test_a_contract_cut_short_by_the_budget_gets_no_score(worker, cfg):
    """The budget ends the walk: its outcomes stay as evidence, but neither a reward nor labels
    come from how much of the contract the machine had time for."""
    import json

    from webmend.evaluate.contract_run import contract_record

    low = cfg.model_copy(update={"limits": cfg.limits.model_copy(update=LOW)})
    contracts = Path(__file__).resolve().parents[2] / "data" / "contracts"
    contract = json.loads((contracts / "todo_list" / "contract.json").read_text())
    got = contract_record(fixture_html("hostile/gl_blur_heavy.html"), contract, low, worker)
    assert "budget ran out" in got["error"] and got["reward"] is None and got["transition_validity"] is None
    assert got["labels"] == {} and got["unmet"] == [] and got["transitions"]  # the evidence is kept
