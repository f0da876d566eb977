"""Evaluate a stream of inputs into DIR/results.jsonl (input order) and DIR/summary.json.

Records are appended and flushed one by one, so a crash loses at most the page in flight;
a rerun with the same config skips the records already written (resume).
With N > 1 workers, each worker process keeps its own warm Chromium.
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Iterable, Iterator

from webmend.config import EvalConfig
from webmend.evaluate.inputs import RawInput, match_item
from webmend.evaluate.summary import summarize
from webmend.stage import executors
from webmend.stage.batches import Batch
from webmend.stage.driver import Work, drive
from webmend.stage.progress import Report, log_report

log = logging.getLogger(__name__)

STAGE = "evaluate"
RESULTS = "results.jsonl"
SUMMARY = "summary.json"

def completed_records(path: Path, config_hash: str, field: str = "config_hash") -> int:
    """Count complete records from an earlier run with the same config (`field` of each record:
    repairs.jsonl names its run by run_hash), streaming the file.

    Everything after the last good record (a torn last line, or records written under another
    config) is cut off, so the run appends right after it.
    """
    if not path.exists():
        return 0
    done, good_end = 0, 0
    with open(path, "rb") as fh:
        for line in fh:
            if not line.endswith(b"\n"):
                break  # torn by a crash mid-write
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                break
            if not isinstance(rec, dict) or rec.get(field) != config_hash:
                break
            done += 1
            good_end = fh.tell()
    if good_end != path.stat().st_size:
        with open(path, "r+b") as fh:
            fh.truncate(good_end)
    return done


def iter_records(path: Path) -> Iterator[dict]:
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def describe_records(records: list[dict]) -> str:
    """What a progress line says of evaluated pages: 'ID: STATUS score=TOTAL'."""
    return "; ".join(f"{r['id']}: {r['status']} score={r['score']['total'] if r['score'] else '-'}" for r in records)


@dataclass
class ResultsFileStage:
    """`webmend evaluate` as a stage: each input is a batch (keyed by position), committed by
    appending its record to results.jsonl in input order; a rerun counts the complete records
    there (`completed_records`) and skips that many inputs."""

    inputs: Iterable[RawInput]
    items: dict
    cfg_json: str
    out: Path
    fh: IO[str]  # results.jsonl, open for appending
    done: int  # records already there
    count: int | None = None  # inputs in all, when known
    name: str = STAGE

    def batches(self) -> Iterator[Batch]:
        return (Batch(n, str(n), ((raw, match_item(self.items, raw.id)),)) for n, raw in enumerate(self.inputs))

    def total(self) -> int | None:
        return self.count

    def is_committed(self, batch: Batch) -> bool:
        return batch.index < self.done

    def work(self, batch: Batch) -> Work:
        from webmend.evaluate.records import evaluate_jobs  # Playwright only where pages run

        return Work(batch.index, evaluate_jobs, (batch.items, self.cfg_json, str(self.out)))

    def commit(self, batch: Batch, records: list[dict]) -> None:
        for rec in records:
            self.fh.write(json.dumps(rec, sort_keys=True) + "\n")
        self.fh.flush()

    def describe(self, records: list[dict]) -> str:
        return describe_records(records)


def run_evaluation(
    inputs: Iterable[RawInput],
    items: dict,
    cfg: EvalConfig,
    out_dir: str | Path,
    workers: int = 1,
    report: Report = log_report,
    total: int | None = None,
) -> dict:
    """Evaluate each input on this process or a pool of `workers` processes, each with its own warm
    Chromium, appending the records to OUT/results.jsonl in input order; then OUT/summary.json.
    report: progress (`total` inputs, when known; those a crashed run evaluated count as resumed)."""
    from webmend.browser.worker import closing_new_browsers  # Playwright only where pages run

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    results_path = out / RESULTS
    started = time.perf_counter()
    done = completed_records(results_path, cfg.config_hash())
    if done:
        log.info("resuming: %d records already in %s", done, results_path)
    with open(results_path, "a", encoding="utf-8") as fh:
        stage = ResultsFileStage(inputs, items, cfg.model_dump_json(), out, fh, done, total)
        # Pool processes take their browsers along when they exit; one started here is closed at the end.
        with closing_new_browsers(), executors.local(workers) as ex:
            # A window at a time, so a huge input stream is never held in memory.
            outcome = drive(stage, ex, report=report, in_order=True, max_in_flight=max(1, workers) * 4,
                            max_resubmits=0)
    if outcome.failures:
        batch, exc = outcome.failures[0]
        raise RuntimeError(f"input {batch.index} could not be evaluated; a rerun resumes there") from exc
    summary = summarize(iter_records(results_path), cfg, time.perf_counter() - started)
    write_json_atomic(out / SUMMARY, summary)
    return summary


def write_json_atomic(path: Path, obj) -> None:
    write_text_atomic(path, json.dumps(obj, indent=2, sort_keys=True) + "\n")


def write_text_atomic(path: Path, text: str) -> None:
    """Written under a temporary name and renamed into place: a reader never sees half a file."""
    tmp = path.with_suffix(path.suffix + f".{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
