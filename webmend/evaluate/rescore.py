"""Recompute scores (and trace summaries) of stored results with the current scoring code and config; no browser."""

from __future__ import annotations

import json
import os
from pathlib import Path

from webmend.config import EvalConfig
from webmend.evaluate.experience.summary import trace_summary
from webmend.evaluate.records import apply_score
from webmend.evaluate.run import RESULTS, SUMMARY, iter_records, write_json_atomic
from webmend.evaluate.summary import summarize
from webmend.schemas.results import ResultRecord


def rescore_dir(folder: Path, cfg: EvalConfig) -> dict:
    src = folder / RESULTS
    if not src.exists():
        raise FileNotFoundError(f"{src} not found")
    tmp = src.with_suffix(".jsonl.tmp")
    with open(tmp, "w", encoding="utf-8") as out:
        for rec in iter_records(src):
            if rec.get("evidence"):
                rec["trace_summary"] = trace_summary(rec["evidence"])  # derived: follows the current rules
                apply_score(rec, cfg, rec["status"])
            ResultRecord.model_validate(rec)
            out.write(json.dumps(rec, sort_keys=True) + "\n")
    os.replace(tmp, src)
    summary = summarize(iter_records(src), cfg, 0.0)
    write_json_atomic(folder / SUMMARY, summary)
    return summary
