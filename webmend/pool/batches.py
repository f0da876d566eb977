"""The build-refined-pool stages without Prefect: read a corpus, cut it into batches, evaluate a
batch on this process's warm browser, write its traces, and tell infrastructure failures apart.

Batches are fixed-size chunks of the corpus in input order, each keyed like
`traces.write_evaluation_traces` keys it (stage, the pages' content hashes in order, config hash),
so a rerun of the same corpus and config cuts the same batches and skips every committed one.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from webmend.config import EvalConfig
from webmend.store import DataRoot, make_key
from webmend.evaluate import traces
from webmend.evaluate.inputs import RawInput, iter_pages, iter_responses, load_items, match_item

log = logging.getLogger(__name__)

DEFAULT_BATCH_SIZE = traces.DEFAULT_BATCH_SIZE


@dataclass(frozen=True)
class PageJob:
    """One input with its matched test item and the content hash its rows carry."""

    raw: RawInput
    item: dict | None
    content_hash: str


@dataclass(frozen=True)
class Batch:
    index: int  # position among all batches of the corpus
    key: str  # the traces file key (TABLE/KEY.parquet)
    jobs: tuple[PageJob, ...]

    @property
    def content_hashes(self) -> dict[str, str]:
        return {job.raw.id: job.content_hash for job in self.jobs}


@dataclass(frozen=True)
class Plan:
    run_id: str
    config_hash: str
    batches: tuple[Batch, ...]  # every batch of the corpus, in order
    pending: tuple[Batch, ...]  # those not committed yet

    @property
    def keys(self) -> list[str]:
        return [b.key for b in self.batches]


def input_hash(raw: RawInput) -> str:
    """sha256 of the input as given; an unusable input (no content) hashes its identity and reason."""
    if raw.raw is not None:
        return traces.content_hash(raw.raw)
    return traces.content_hash(f"unusable\x1f{raw.id}\x1f{raw.source}\x1f{raw.reject}")


def read_corpus(pages: Sequence[str] = (), responses: Sequence[str] = ()) -> list[RawInput]:
    """Page files/folders first, then response JSONL files, indexed in that order (as `webmend evaluate`)."""
    inputs = list(iter_pages(pages))
    for path in responses:
        inputs += iter_responses(path, start=len(inputs))
    return inputs


def batch_key(content_hashes: Iterable[str], config_hash: str) -> str:
    """The key `write_evaluation_traces` gives a batch of records with these hashes and config."""
    return make_key(traces.STAGE, *content_hashes, config_hash)


def cut_batches(inputs: Sequence[RawInput], items: dict[str, dict], config_hash: str,
                batch_size: int = DEFAULT_BATCH_SIZE) -> list[Batch]:
    """Fixed-size chunks in input order (the last may be shorter): the same corpus, the same keys
    (traces.chunk_keys, as `webmend evaluate --data-root` writes them)."""
    jobs = [PageJob(raw, match_item(items, raw.id), input_hash(raw)) for raw in inputs]
    keys = traces.chunk_keys([j.content_hash for j in jobs], config_hash, batch_size)
    return [Batch(n, key, tuple(jobs[n * batch_size:(n + 1) * batch_size])) for n, key in enumerate(keys)]


def default_run_id(batches: Sequence[Batch], config_hash: str) -> str:
    """Derived from the corpus and config: a rerun that finishes a killed run keeps its run id."""
    return "pool-" + make_key("build-refined-pool", *(b.key for b in batches), config_hash)[:12]


def plan_pool(root: DataRoot, inputs: Sequence[RawInput], items: dict[str, dict], cfg: EvalConfig,
              batch_size: int = DEFAULT_BATCH_SIZE, run_id: str | None = None, replace: bool = False) -> Plan:
    """Every batch of the corpus and the ones still to do (all of them when replacing)."""
    config_hash = cfg.config_hash()
    batches = cut_batches(inputs, items, config_hash, batch_size)
    pending = [b for b in batches if replace or not root.exists("evaluations", b.key)]
    log.info("%d inputs in %d batches; %d already committed", len(inputs), len(batches), len(batches) - len(pending))
    return Plan(run_id or default_run_id(batches, config_hash), config_hash, tuple(batches), tuple(pending))


def load_plan(root: str, pages: Sequence[str], responses: Sequence[str], items_path: str | None,
              cfg: EvalConfig, batch_size: int, run_id: str | None = None, replace: bool = False) -> Plan:
    for path in responses:
        if not Path(path).is_file():
            raise FileNotFoundError(f"responses file {path}: no such file")
    return plan_pool(DataRoot(root), read_corpus(pages, responses), load_items(items_path), cfg,
                     batch_size, run_id, replace)


def evaluate_batch(batch: Batch, cfg: EvalConfig, keyframes_to: str | None = None) -> list[dict]:
    """Result records of a batch, in input order, on this process's warm browser; keyframe PNGs
    go under `keyframes_to`/keyframes/ (the data root) when given.

    evaluate_input never raises for a page; what does raise here (no browser) is infrastructure.
    """
    from webmend.browser.worker import get_worker  # Playwright only where pages are evaluated
    from webmend.evaluate.records import evaluate_input

    worker = get_worker(cfg)
    worker.ensure_started()  # every record, rejects included, names the browser version
    records = []
    for job in batch.jobs:
        record = evaluate_input(job.raw, job.item, cfg, worker, keyframes_to)
        record["content_hash"] = job.content_hash  # ids may repeat across sources; the hash travels with the record
        records.append(record)
    return records


def write_batch(batch: Batch, records: list[dict], root: str, run_id: str, config_hash: str,
                replace: bool = False) -> str:
    """Write a batch's trace rows under its key (evaluations last: it marks the batch done)."""
    if [r["id"] for r in records] != [j.raw.id for j in batch.jobs]:
        raise ValueError(f"batch {batch.index}: records do not match its inputs")
    traces.write_keyed(records, root, batch.key, run_id=run_id, config_hash=config_hash,
                       content_hashes=batch.content_hashes, replace=replace)
    return DataRoot(root).file_url("evaluations", batch.key)


def close_browsers() -> int:
    """Close this process's warm browsers (Chromium and its Playwright driver); returns how many.

    Called when a Dask worker shuts down (webmend/flows/dask_worker.py): without it the worker
    process exits under a live driver, and its Chromium lingers, orphaned, until the driver notices.
    The workers are forgotten first, so a later batch in this process launches afresh.
    """
    from webmend.browser import worker as browser_worker

    # browser/worker.py keeps one worker per launch config in _WORKERS and has no close-all call.
    open_workers = list(browser_worker._WORKERS.values())
    browser_worker._WORKERS.clear()
    for worker in open_workers:
        worker.close()  # logs and carries on if the browser is already gone
    return len(open_workers)


# Failures worth a retry: the machine, not the data. A bad row (ValueError) fails at once.
_INFRA_NAMES = {"BrowserDied", "WallTimeout", "KilledWorker", "CommClosedError", "TargetClosedError",
                "FutureCancelledError", "StreamClosedError"}


def is_infrastructure_error(exc: BaseException) -> bool:
    if isinstance(exc, (OSError, EOFError, MemoryError)):
        return True
    return any(cls.__name__ in _INFRA_NAMES for cls in type(exc).__mro__)



def drive(batches: Sequence[Batch], submit: Callable[[Batch], object], completed: Callable[[list], Iterator],
          result: Callable[[object], list[dict]], write: Callable[[Batch, list[dict]], object],
          max_resubmits: int = 2) -> list[tuple[Batch, BaseException]]:
    """Evaluate batches through `submit` (e.g. a Dask-backed task) and write each one as it completes.

    A batch whose future fails for an infrastructure reason (e.g. its Dask worker was killed more
    often than Dask reschedules on its own) is submitted again, up to `max_resubmits` times; other
    failures are not retried. Returns the batches that still failed, with their errors: the caller
    decides how the run ends, after every other batch was written.
    """
    attempts = {b.key: 0 for b in batches}
    failed: list[tuple[Batch, BaseException]] = []
    todo = list(batches)
    while todo:
        futures = {submit(b): b for b in todo}
        todo = []
        for future in completed(list(futures)):
            batch = futures[future]
            try:
                records = result(future)
            except Exception as exc:
                if is_infrastructure_error(exc) and attempts[batch.key] < max_resubmits:
                    attempts[batch.key] += 1
                    log.warning("batch %d failed (%s: %s); submitting it again", batch.index, type(exc).__name__, exc)
                    todo.append(batch)
                else:
                    log.error("batch %d failed: %s: %s", batch.index, type(exc).__name__, exc)
                    failed.append((batch, exc))
                continue
            write(batch, records)
    return failed
