"""The build-refined-pool stages without Prefect: read a corpus, cut it into batches, evaluate a
batch on this process's warm browser, write its traces, and tell infrastructure failures apart.

Batches are fixed-size chunks of the corpus in input order, each keyed like
`traces.write_evaluation_traces` keys it (stage, the inputs' hashes in order, config hash),
so a rerun of the same corpus and config cuts the same batches and skips every committed one.
"""

from __future__ import annotations

from collections.abc import Callable

import logging
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Iterable, Sequence

from webmend.config import EvalConfig
from webmend.evaluate import traces
from webmend.evaluate.inputs import RawInput, input_hash, iter_pages, iter_responses, load_items, match_item
from webmend.schemas.hashing import sha256_hex
from webmend.evaluate.run import describe_records
from webmend.stage.batches import Batch, cut
from webmend.stage.driver import Work
from webmend.store import DataRoot, make_key
from webmend.schemas.contract import Contract, contract_hash

log = logging.getLogger(__name__)

DEFAULT_BATCH_SIZE = traces.DEFAULT_BATCH_SIZE


@dataclass(frozen=True)
class PageJob:
    """One input with its matched test item and the input hash its rows carry."""

    raw: RawInput
    item: dict | None
    input_hash: str


def hashes_by_id(batch: Batch[PageJob]) -> dict[str, str]:
    return {job.raw.id: job.input_hash for job in batch.items}


@dataclass(frozen=True)
class Plan:
    run_id: str
    config_hash: str
    batches: tuple[Batch, ...]  # every batch of the corpus, in order
    pending: tuple[Batch, ...]  # those not committed yet

    @property
    def keys(self) -> list[str]:
        return [b.key for b in self.batches]


def batch_hash(input_hash: str, item: dict | None) -> str:
    """What names a page's place in a batch key: its input hash, and its task contract's hash when
    it has one. A contract is an input: adding or changing one makes its batch new, not done."""
    contract = (item or {}).get("contract")
    if not contract:
        return input_hash
    return sha256_hex(f"{input_hash}\x1f{contract_hash(Contract.model_validate(contract))}")


def read_corpus(pages: Sequence[str] = (), responses: Sequence[str] = ()) -> list[RawInput]:
    """Page files/folders first, then response JSONL files, indexed in that order (as `webmend evaluate`)."""
    inputs = list(iter_pages(pages))
    for path in responses:
        inputs += iter_responses(path, start=len(inputs))
    return inputs


def batch_key(input_hashes: Iterable[str], config_hash: str) -> str:
    """The key `write_evaluation_traces` gives a batch of records with these hashes and config."""
    return make_key(traces.STAGE, *input_hashes, config_hash)


def cut_batches(inputs: Sequence[RawInput], items: dict[str, dict], config_hash: str,
                batch_size: int = DEFAULT_BATCH_SIZE) -> list[Batch[PageJob]]:
    """Fixed-size chunks in input order (the last may be shorter): the same corpus, the same keys
    (as `webmend evaluate --data-root` writes them)."""
    jobs = [PageJob(raw, match_item(items, raw.id), input_hash(raw)) for raw in inputs]
    return cut(traces.STAGE, jobs, [batch_hash(j.input_hash, j.item) for j in jobs], config_hash, batch_size)


def default_run_id(batches: Sequence[Batch], config_hash: str) -> str:
    """Derived from the corpus and config: a rerun that finishes a killed run keeps its run id."""
    return "pool-" + make_key("build-refined-pool", *(b.key for b in batches), config_hash)[:12]


def evaluated_hashes(root: DataRoot, config_hash: str) -> set[str]:
    """Content hashes of the inputs the root holds evaluations of under this config."""
    if not root.keys("evaluations"):
        return set()
    table = root.read("evaluations", columns=["input_hash", "config_hash"])
    return {h for h, c in zip(table["input_hash"].to_pylist(), table["config_hash"].to_pylist()) if c == config_hash}


def plan_pool(root: DataRoot, inputs: Sequence[RawInput], items: dict[str, dict], cfg: EvalConfig,
              batch_size: int = DEFAULT_BATCH_SIZE, run_id: str | None = None, replace: bool = False,
              incremental: bool = False) -> Plan:
    """Every batch of the corpus and the ones still to do (all of them when replacing).

    incremental: the corpus is only the inputs not evaluated yet under this config (by input
    hash), wherever their rows are: the nightly refresh adds new pages without cutting the old
    ones into new batches (which would evaluate them again)."""
    config_hash = cfg.config_hash()
    if incremental and not replace:
        done = evaluated_hashes(root, config_hash)
        before = len(inputs)
        inputs = [raw for raw in inputs if input_hash(raw) not in done]
        log.info("incremental: %d of %d inputs already evaluated under config %s", before - len(inputs), before, config_hash)
    batches = cut_batches(inputs, items, config_hash, batch_size)
    pending = [b for b in batches if replace or not root.exists("evaluations", b.key)]
    log.info("%d inputs in %d batches; %d already committed", len(inputs), len(batches), len(batches) - len(pending))
    return Plan(run_id or default_run_id(batches, config_hash), config_hash, tuple(batches), tuple(pending))


def load_plan(root: str, pages: Sequence[str], responses: Sequence[str], items_path: str | None,
              cfg: EvalConfig, batch_size: int, run_id: str | None = None, replace: bool = False,
              incremental: bool = False, attach: Callable[[dict], dict] | None = None) -> Plan:
    """attach: the items with their tasks' contracts attached (the flow wires the contracts stage in)."""
    for path in responses:
        if not Path(path).is_file():
            raise FileNotFoundError(f"responses file {path}: no such file")
    items = load_items(items_path)
    return plan_pool(DataRoot(root), read_corpus(pages, responses), attach(items) if attach else items, cfg,
                     batch_size, run_id, replace, incremental)


def evaluate_batch(batch: Batch, cfg_json: str, keyframes_to: str | None = None) -> list[dict]:
    """Result records of a batch, in input order, on this process's warm browser; keyframe PNGs
    go under `keyframes_to`/keyframes/ (the data root) when given. The config travels as JSON.

    evaluate_input never raises for a page; what does raise here (no browser) is infrastructure.
    """
    from webmend.evaluate.records import evaluate_jobs  # Playwright only where pages are evaluated

    records = evaluate_jobs([(job.raw, job.item) for job in batch.items], cfg_json, keyframes_to)
    for record, job in zip(records, batch.items):
        record["input_hash"] = job.input_hash  # ids may repeat across sources; the hash travels with the record
    return records


@dataclass
class PoolEvaluateStage:
    """build-refined-pool's evaluation as a stage: the plan's batches, done when their
    `evaluations` file is committed (unless replacing), run on a worker's warm browser, committed
    as trace rows under the batch key."""

    plan: Plan
    cfg_json: str
    data_root: str
    replace: bool = False
    min_chars: int = EvalConfig().min_page_chars
    name: str = traces.STAGE

    def batches(self) -> tuple[Batch, ...]:
        return self.plan.batches

    def total(self) -> int:
        return sum(len(b.items) for b in self.plan.batches)

    @cached_property
    def _root(self) -> DataRoot:
        return DataRoot(self.data_root)

    def is_committed(self, batch: Batch) -> bool:
        return not self.replace and self._root.exists(traces.SPEC.marker, batch.key)

    def work(self, batch: Batch) -> Work:
        return Work(batch.index, evaluate_batch, (batch, self.cfg_json, self.data_root))

    def commit(self, batch: Batch, records: list[dict]) -> str:
        return write_batch(batch, records, self.data_root, self.plan.run_id, self.plan.config_hash, self.replace,
                           self.min_chars)

    def describe(self, records: list[dict]) -> str:
        return describe_records(records)


def write_batch(batch: Batch, records: list[dict], root: str, run_id: str, config_hash: str,
                replace: bool = False, min_chars: int = EvalConfig().min_page_chars) -> str:
    """Write a batch's trace rows under its key (evaluations last: it marks the batch done)."""
    if [r["id"] for r in records] != [j.raw.id for j in batch.items]:
        raise ValueError(f"batch {batch.index}: records do not match its inputs")
    records = [{**r, **traces.input_fields(j.raw, j.item, min_chars)} for r, j in zip(records, batch.items)]
    traces.write_keyed(records, root, batch.key, run_id=run_id, config_hash=config_hash,
                       input_hashes=hashes_by_id(batch), replace=replace)
    return DataRoot(root).file_url("evaluations", batch.key)
