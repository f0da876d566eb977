"""Small valid rows for the trace tables (helpers shared by the store tests)."""

from __future__ import annotations

import hashlib


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def prompt_rows(n: int, run_id: str = "run-1", start: int = 0) -> list[dict]:
    return [
        {
            "id": f"p{i}", "prompt": f"Build a todo app number {i}", "family": "apps_tools",
            "interactive": True, "family_confidence": 0.9, "source": "file", "file": "prompts.jsonl",
            "run_id": run_id, "input_hash": sha(f"Build a todo app number {i}"), "config_hash": "cfg1",
        }
        for i in range(start, start + n)
    ]


def fixture_records() -> list[dict]:
    """The hand-written evaluator results in data/fixtures/traces/results.jsonl."""
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "data" / "fixtures" / "traces" / "results.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def build_trace_root(path) -> "DataRoot":  # noqa: F821 (imported lazily)
    """A data root holding the fixture results as two evaluation batches (two files per table)."""
    from webmend.evaluate.traces import write_evaluation_traces
    from webmend.store import DataRoot

    root = DataRoot(path)
    records = fixture_records()
    write_evaluation_traces(records[:3], root, "run-1")
    write_evaluation_traces(records[3:], root, "run-1")
    from webmend.repair.traces import write_repair_traces

    write_repair_traces([(r, {}) for r in repair_records()], root, "repair-fixture", run_id="repair-1")
    return root


def _attempt(round_, strategy, before, after, accepted, reason, early=False, chash=None):
    return {"round": round_, "candidate": 1, "strategy": strategy, "mode": "operator" if strategy == "operator" else "patch",
            "name": "add_viewport_meta" if strategy == "operator" else "openai/scripted", "rule": "fixture",
            "score_before": before, "score_after": after, "accepted": accepted, "reason": reason,
            "early_rejected": early, "eval_s": 0.5 if early else 2.0, "tests_fixed": [], "tests_broken": [],
            "dimensions": {}, "page_hash": chash}


def _cp(round_, chash, parent, score, state, unpassable=()):
    return {"round": round_, "page_hash": chash, "parent_hash": parent, "score": score, "state": state,
            "unpassable_tests": list(unpassable)}


def repair_records() -> list[dict]:
    """Three repaired pages: Low -> Mid (operator, then an early-rejected rewrite), High kept as
    it was, Mid -> Mid (an accepted interaction repair). Only the fields the trace rows read."""
    return [
        {"id": "p-low", "original_hash": "a0", "original_state": "Low", "original_score": 30.0, "final_hash": "a1",
         "rounds": 2, "stop_reason": "patience", "config_hash": "rc1", "elapsed_s": 12.0,
         "attempts": [_attempt(1, "operator", 30.0, 45.0, True, "accepted (+15.00)", chash="a1"),
                      _attempt(2, "holistic_rewrite", 45.0, None, False, "regression (early): t1", True, "a2")],
         "checkpoints": [_cp(0, "a0", None, 30.0, "Low"), _cp(1, "a1", "a0", 45.0, "Mid")]},
        {"id": "p-high", "original_hash": "b0", "original_state": "High", "original_score": 90.0, "final_hash": "b0",
         "rounds": 0, "stop_reason": "no_candidates", "config_hash": "rc1", "elapsed_s": 1.5, "attempts": [],
         "checkpoints": [_cp(0, "b0", None, 90.0, "High")]},
        {"id": "p-mid", "original_hash": "c0", "original_state": "Mid", "original_score": 50.0, "final_hash": "c1",
         "rounds": 1, "stop_reason": "no_candidates", "config_hash": "rc1", "elapsed_s": 4.0,
         "attempts": [_attempt(1, "interaction_repair", 50.0, 60.0, True, "accepted (+10.00)", chash="c1")],
         "checkpoints": [_cp(0, "c0", None, 50.0, "Mid", ["tc_13", "tc_04"]), _cp(1, "c1", "c0", 60.0, "Mid", ["tc_13"])]},
    ]
