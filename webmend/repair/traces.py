"""Trace rows of the repair stage: `repair_attempts` and `checkpoints` beside `evaluations`.

One repairs.jsonl record (plus its checkpoints' pages) becomes its rows; a batch of records is
written under one key with `checkpoints` last, so a committed checkpoints file means the batch is
there (the same rule evaluations follows). See docs/data-root.md.
"""

from __future__ import annotations

import json

from webmend.schemas.vocab import SCORE_FIELDS
from webmend.stage.spec import Read, StageSpec
from webmend.store import DataRoot, make_key

TABLES = ("repair_attempts", "checkpoints")  # written in this order: the last marks the batch done
# The originals' stored verdicts it starts from (pool/repair.stored_verdicts reads exactly these;
# experience_events for the keyframes).
SPEC = StageSpec("repair", "repair pages below High; keep regression-free checkpoints", writes=TABLES, reads=(
    Read("evaluations", ("id", "input_hash", "input_index", "status", "reason", "flags", "state", "interactive",
                         *(f"score_{d}" for d in SCORE_FIELDS), "blocked_requests", "config_hash", "evidence",
                         "trace_summary")),
    Read("test_results", ("input_hash", "test_index", "test_id", "test_name", "passed", "weight", "failed_step",
                          "failed_action", "error")),
    Read("contract_results", ("input_hash", "task_id", "contract_hash", "transition_validity", "req_explicit",
                              "req_implicit", "reward", "documents", "transitions_run", "elapsed_s", "error", "labels",
                              "requirements", "unmet", "transitions")),
    Read("experience_events", ("input_hash", "seq", "kind", "step_index", "payload", "page_time_ms")),
))


def page_key(page_id: str, input_hash: str, run_hash: str) -> str:
    """The file key of one page's repair rows: its id, its input's hash and the repair run's hash.
    `webmend repair --data-root` and the flow name a page's repair alike, so whichever ran first
    stores it and the other finds it there."""
    return make_key("repair", page_id, input_hash, run_hash)


def attempt_rows(record: dict, pages: dict[str, str] | None = None) -> list[dict]:
    """pages: page hash -> html; a candidate rejected for a regression keeps its page (export's
    preference pairs use it as the rejected answer)."""
    rows = []
    parent = record["original_hash"]
    for a in record["attempts"]:
        rows.append({
            "id": record["id"], "round": a["round"], "candidate": a["candidate"], "parent_hash": parent,
            "original_state": record["original_state"], "strategy": a["strategy"], "mode": a["mode"], "model": a["name"], "rule": a["rule"],
            "score_before": a["score_before"], "score_after": a["score_after"], "accepted": a["accepted"],
            "reason": a["reason"], "regression": a["reason"].startswith("regression"),
            "early_rejected": a["early_rejected"], "evaluated": a["eval_s"] > 0,
            "tests_fixed": a["tests_fixed"], "tests_broken": a["tests_broken"],
            "dimensions": json.dumps(a["dimensions"], sort_keys=True),
            "changes": a.get("changes"), "terms_moved": json.dumps(a.get("terms_moved") or []),
            "prompt_tokens": a.get("prompt_tokens"), "completion_tokens": a.get("completion_tokens"),
            "cost_usd": a.get("cost_usd"), "cache_hit": a.get("cache_hit"), "eval_s": a["eval_s"],
            "html": (pages or {}).get(a["page_hash"]) if a["reason"].startswith("regression") else None,
            **_hashes(record, a["page_hash"]),
        })
        if a["accepted"]:
            parent = a["page_hash"]
    return rows


def checkpoint_rows(record: dict, pages: dict[str, str]) -> list[dict]:
    """pages: page hash -> html of every checkpoint (the original included)."""
    rows = []
    for cp in record["checkpoints"]:
        rows.append({
            "id": record["id"], "round": cp["round"], "parent_hash": cp["parent_hash"],
            "original_score": record["original_score"],
            "original_state": record["original_state"], "score_total": cp["score"], "state": cp["state"],
            "is_best": cp["page_hash"] == record["final_hash"], "rounds": record["rounds"],
            "stop_reason": record["stop_reason"], "html": pages.get(cp["page_hash"]),
            "status": cp.get("status"), "flags": list(cp.get("flags") or []),
            "unpassable_tests": list(cp.get("unpassable_tests") or []),
            "contract_reward": cp.get("contract_reward"),
            "contract_labels": json.dumps(cp["contract_labels"], sort_keys=True) if cp.get("contract_labels") else None,
            **_hashes(record, cp["page_hash"]), "repair_elapsed_s": record["elapsed_s"],
        })
    return rows


def _hashes(record: dict, page_hash: str | None) -> dict:
    """What every repair row is keyed by: the original page repair was given, the row's page, and
    the run (config, model, judge) as its config_hash (a record from repair_page alone has no run:
    its repair config's hash)."""
    return {"input_hash": record["original_hash"], "page_hash": page_hash,
            "config_hash": record.get("run_hash") or record["config_hash"]}


def write_repair_traces(results: list[tuple[dict, dict[str, str]]], root: DataRoot | str, key: str, *, run_id: str,
                        replace: bool = False) -> bool:
    """results: (record, checkpoint pages) per page of a batch. False when already committed."""
    root = root if isinstance(root, DataRoot) else DataRoot(root)
    if not replace and root.exists(TABLES[-1], key):
        return False
    rows = {"repair_attempts": [r for rec, pages in results for r in attempt_rows(rec, pages)],
            "checkpoints": [r for rec, pages in results for r in checkpoint_rows(rec, pages)]}
    for table in TABLES:
        root.write(table, [{**row, "run_id": run_id} for row in rows[table]], key=key,
                   mode="replace" if replace else "skip")
    return True
