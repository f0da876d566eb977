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
            "run_id": run_id, "content_hash": sha(f"Build a todo app number {i}"), "config_hash": "cfg1",
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
    return root
