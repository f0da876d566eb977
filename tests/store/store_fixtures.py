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
