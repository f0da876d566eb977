"""Intake outputs: DIR/prompts.parquet, DIR/rejects.parquet and DIR/report.json (docs/intake.md).

Rows are validated against the trace-table schemas (`prompts`, `prompt_rejects`) before anything is
written, and every file is written under a temporary name and renamed into place, so a reader never
sees half a file. The same rows can also go to a data root, keyed by run.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import pyarrow.parquet as pq

from webmend.intake.config import IntakeConfig
from webmend.intake.pipeline import IntakeResult, Kept, Rejected
from webmend.intake.policy import POLICY_RULES
from webmend.schemas.hashing import sha256_hex
from webmend.schemas.tables import REJECT_REASONS
from webmend.stage.spec import StageSpec
from webmend.store import DataRoot, make_key, to_table

PROMPTS_FILE, REJECTS_FILE, REPORT_FILE = "prompts.parquet", "rejects.parquet", "report.json"
SPEC = StageSpec("intake", "read, rewrite, dedup and decontaminate prompts; record each reject's reason",
                 writes=("prompt_rejects", "prompts"))


def _common(run_id: str, text: str, config_hash: str) -> dict:
    return {"run_id": run_id, "input_hash": sha256_hex(text), "config_hash": config_hash}


def _provenance(r) -> dict:
    return {"source": r.source, "url": r.url, "file": r.file}


def kept_row(k: Kept, run_id: str, config_hash: str) -> dict:
    return {
        "id": k.id, "prompt": k.prompt, "family": k.label.family, "subtype": k.label.subtype,
        "interactive": k.label.interactive, "family_confidence": k.label.confidence,
        **_provenance(k.raw), "fetched_at": parse_time(k.raw.fetched_at), "licence": k.raw.licence,
        "original": k.original, "kind": k.raw.kind, "family_method": k.label.method,
        **_common(run_id, k.prompt, config_hash),
    }


def reject_row(r: Rejected, run_id: str, config_hash: str) -> dict:
    return {
        "id": r.id, "prompt": r.text, "reason": r.reason, "detail": r.detail, **_provenance(r.raw),
        "rule": r.rule, "matched_id": r.matched_id, "similarity": r.similarity,
        "benchmark_file": r.benchmark_file, "kind": r.raw.kind, **_common(run_id, r.text, config_hash),
    }


def parse_time(value: str | None) -> datetime | None:
    """ISO 8601 text or Unix seconds (forum dumps use both); None when unreadable."""
    if value is None:
        return None
    try:
        return datetime.fromtimestamp(float(value), tz=timezone.utc)
    except (TypeError, ValueError, OverflowError):
        pass
    try:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def make_run_id(result: IntakeResult, cfg: IntakeConfig) -> str:
    """Same inputs and config -> same run id, so a rerun's rows compare equal."""
    return "intake-" + make_key("intake", result.inputs_hash, cfg.config_hash())[:16]


def build_report(result: IntakeResult, cfg: IntakeConfig, run_id: str, extra: dict | None = None) -> dict:
    kept, rejects = result.kept, result.rejects
    return {
        "run_id": run_id,
        "config_hash": cfg.config_hash(),
        "inputs": len(kept) + len(rejects),
        "kept": len(kept),
        "rejected": len(rejects),
        "rejected_by_reason": {reason: sum(r.reason == reason for r in rejects) for reason in REJECT_REASONS},
        "policy_by_rule": {rule: sum(r.reason == "policy" and r.rule == rule for r in rejects) for rule in POLICY_RULES},
        "policy_by_source": {src: sum(r.reason == "policy" and r.policy_source == src for r in rejects)
                             for src in ("rule", "model", "source")},
        "policy_model": result.policy_model,
        "kept_by_family": dict(sorted(Counter(k.label.family for k in kept).items())),
        "kept_by_kind": dict(sorted(Counter(k.raw.kind for k in kept).items())),
        "kept_interactive": sum(k.label.interactive for k in kept),
        "rewritten": sum(k.original is not None for k in kept),
        "family_method": dict(sorted(Counter(k.label.method for k in kept).items())),
        "contamination": [
            {"id": r.id, "benchmark_id": r.matched_id, "benchmark_file": r.benchmark_file, "match": r.rule,
             "similarity": r.similarity, "matched_ngrams": r.matched_ngrams, "source": r.raw.source,
             "file": r.raw.file, "url": r.raw.url}
            for r in rejects if r.reason == "contaminated"
        ],
        "thresholds": {"near_duplicate": cfg.dedup.threshold, "contaminated": cfg.decontam.threshold,
                       "contaminated_ngram": {"n": cfg.decontam.ngram_n,
                                              "min_matches": cfg.decontam.ngram_min_matches}},
        "contaminated_by_match": {kind: sum(r.reason == "contaminated" and r.rule == kind for r in rejects)
                                  for kind in ("exact", "near", "ngram")},
        "elapsed_s": result.elapsed_s,
        **(extra or {}),
    }


def write_outputs(result: IntakeResult, cfg: IntakeConfig, out_dir: str | Path, *, run_id: str | None = None,
                  data_root: str | None = None, extra_report: dict | None = None) -> dict:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    run_id = run_id or make_run_id(result, cfg)
    chash = cfg.config_hash()
    prompts = to_table("prompts", [kept_row(k, run_id, chash) for k in result.kept])
    rejects = to_table("prompt_rejects", [reject_row(r, run_id, chash) for r in result.rejects])
    _atomic_parquet(prompts, out / PROMPTS_FILE)
    _atomic_parquet(rejects, out / REJECTS_FILE)
    report = build_report(result, cfg, run_id, extra_report)
    if data_root:
        root = DataRoot(data_root)
        key = make_key("intake", run_id)
        report["data_root"] = {"prompts": root.write("prompts", prompts, key=key, mode="replace"),
                               "prompt_rejects": root.write("prompt_rejects", rejects, key=key, mode="replace")}
    _atomic_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", out / REPORT_FILE)
    return report


def _atomic_parquet(table, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    pq.write_table(table, tmp)
    os.replace(tmp, path)


def _atomic_text(text: str, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
