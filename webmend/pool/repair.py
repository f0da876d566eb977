"""build-refined-pool's repair stage without Prefect: plan repair batches, read the stored
evaluations of a batch back from the data root, repair it on this process's warm browser.

A repair batch holds the pages of one evaluation batch. Each page's rows are written under its
own key (`traces.page_key`: id, input hash, repair run hash), the key `webmend repair --data-root`
writes too, so a page repaired by either is stored once and a rerun repairs only the pages with no
committed `checkpoints` file. The originals' verdicts are the stored rows, never a new evaluation.
"""

from __future__ import annotations

import logging
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from webmend.config import RepairConfig
from webmend.evaluate.traces import page_verdicts
from webmend.repair.run import ModelSpec, build_model, describe_repairs, repair_input, run_hash
from webmend.repair.report import funnel_markdown
from webmend.repair.summary import mean, transitions
from webmend.repair.traces import SPEC, TABLES, page_key, write_repair_traces
from webmend.schemas.results import PageVerdict
from webmend.stage.batches import Batch
from webmend.stage.driver import Work
from webmend.stage.progress import slowest
from webmend.store import DataRoot, layout, make_key

log = logging.getLogger(__name__)

STAGE = "repair"


@dataclass(frozen=True)
class RepairPlan:
    run_hash: str
    batches: tuple[Batch, ...]  # one per evaluation batch: (evaluation key, page jobs)
    pending: tuple[Batch, ...]  # the same batches with only the pages not repaired yet

    @property
    def keys(self) -> list[str]:
        """Every key the plan's rows are under: each page's, and each batch's (where flows before
        per-page keys wrote a whole batch)."""
        return [*(self.page_key(job) for b in self.batches for _, job in b.items), *(b.key for b in self.batches)]

    def page_keys_by_batch(self) -> list[list[str]]:
        """Each batch's page keys, in order: the pages one worker repaired one after another."""
        return [[self.page_key(job) for _, job in b.items] for b in self.batches]

    def page_key(self, job) -> str:
        return page_key(job.raw.id, job.input_hash, self.run_hash)

    def todo(self, batch: Batch, root: DataRoot, replace: bool = False) -> Batch:
        """The batch with only its pages not repaired yet (all of them when replacing; none when
        a flow from before per-page keys wrote the batch whole)."""
        if replace:
            return batch
        if root.exists(TABLES[-1], batch.key):
            return Batch(batch.index, batch.key, ())
        return Batch(batch.index, batch.key,
                     tuple(item for item in batch.items if not root.exists(TABLES[-1], self.page_key(item[1]))))


def plan_repair(root: str, eval_batches, rcfg: RepairConfig, model: str | None, replace: bool = False) -> RepairPlan:
    """Repair batches mirroring the evaluation batches; items are (evaluation key, PageJob)."""
    data = DataRoot(root)
    plan = RepairPlan(run_hash(rcfg, model), tuple(
        Batch(b.index, make_key(STAGE, b.key, run_hash(rcfg, model)), tuple((b.key, job) for job in b.items))
        for b in eval_batches), ())
    pending = [todo for todo in (plan.todo(b, data, replace) for b in plan.batches) if todo.items]
    pages = sum(len(b.items) for b in plan.batches)
    log.info("repair: %d pages in %d batches, %d already repaired", pages, len(plan.batches),
             pages - sum(len(b.items) for b in pending))
    return RepairPlan(plan.run_hash, plan.batches, tuple(pending))


def stored_verdicts(root: DataRoot, eval_key: str) -> dict[str, PageVerdict]:
    """The verdicts of one evaluation batch rebuilt from its rows, by input hash: what diagnosis
    and acceptance read (status, flags, score, state, tests, evidence, trace summary, keyframes)."""
    return page_verdicts(*(_declared_rows(root, table, eval_key)
                           for table in ("evaluations", "test_results", "contract_results", "experience_events")))


def _declared_rows(root: DataRoot, table: str, key: str) -> list[dict]:
    """The rows of one batch of a table the repair stage reads, with the columns it declares."""
    return root.read_keys(table, [key], columns=SPEC.columns(table)).to_pylist()


_MODELS: dict = {}  # this process's repair models, by (spec, repair config hash)


def process_model(spec: ModelSpec | None, rcfg: RepairConfig):
    """The repair model of this process (a Dask worker's) for `spec`, built once: its spend cap
    (`repair_max_cost`) then counts every batch the process repairs, not each batch afresh."""
    if spec is None:
        return None
    key = (spec, rcfg.config_hash())
    if key not in _MODELS:
        _MODELS[key] = build_model(spec, rcfg)
    return _MODELS[key]


def repair_batch(batch: Batch, rcfg_json: str, data_root: str, model: ModelSpec | None = None,
                 scratch: str | None = None) -> list[tuple[dict, dict]]:
    """(record, checkpoint pages) per page, in input order, on this process's warm browser.
    scratch: folder for round journals and exported pages (default: ROOT/_repair on a local root).
    The config travels as JSON."""
    from webmend.browser.worker import get_worker

    rcfg = RepairConfig.model_validate_json(rcfg_json)
    root = DataRoot(data_root)
    out = Path(scratch) if scratch else (layout.local_dir(root, layout.REPAIR_SCRATCH) if root.local
                                         else Path(tempfile.mkdtemp(prefix="webmend-repair-")))
    worker = get_worker(rcfg.evaluation)
    worker.ensure_started()
    stored = stored_verdicts(root, batch.items[0][0]) if batch.items else {}
    built = process_model(model, rcfg)
    results = []
    for _, job in batch.items:
        evaluation = stored.get(job.input_hash)
        evaluations = {job.raw.id: evaluation} if evaluation else {}
        results.append(repair_input(job.raw, rcfg=rcfg, items={job.raw.id: job.item} if job.item else {},
                                    evaluations=evaluations, out=out, worker=worker, model=built))
    return results


@dataclass
class PoolRepairStage:
    """build-refined-pool's repair as a stage: one batch per evaluation batch holding its pages not
    repaired yet (a page's committed `checkpoints` file, under its own key, is its marker), repaired
    on a worker's warm browser from the stored verdicts, committed page by page."""

    plan: RepairPlan
    rcfg_json: str
    data_root: str
    model: ModelSpec | None
    run_id: str
    replace: bool = False
    name: str = STAGE

    def batches(self) -> Iterator[Batch]:
        root = DataRoot(self.data_root)
        return (self.plan.todo(b, root, self.replace) for b in self.plan.batches)

    def total(self) -> int:
        return sum(len(b.items) for b in self.plan.pending)

    def is_committed(self, batch: Batch) -> bool:
        return not batch.items

    def work(self, batch: Batch) -> Work:
        return Work(batch.index, repair_batch, (batch, self.rcfg_json, self.data_root, self.model))

    def commit(self, batch: Batch, results: list[tuple[dict, dict]]) -> list[str]:
        return write_repair_batch(batch, results, self.data_root, self.run_id, self.plan.run_hash, self.replace)

    def describe(self, results: list[tuple[dict, dict]]) -> str:
        return describe_repairs(results)


def write_repair_batch(batch: Batch, results: list[tuple[dict, dict]], data_root: str, run_id: str,
                       run_hash: str, replace: bool = False) -> list[str]:
    """Each page's rows under its own key (`traces.page_key`); returns the checkpoints files."""
    if [r["id"] for r, _ in results] != [job.raw.id for _, job in batch.items]:
        raise ValueError(f"repair batch {batch.index}: records do not match its inputs")
    root = DataRoot(data_root)
    keys = [page_key(job.raw.id, job.input_hash, run_hash) for _, job in batch.items]
    for key, result in zip(keys, results):
        write_repair_traces([result], root, key, run_id=run_id, replace=replace)
    return [root.file_url(TABLES[-1], key) for key in keys]


def summarize_repair(data_root: str, keys: list[str], batches: list[list[str]] = ()) -> dict:
    """Pages, mean before/after and the band transition matrix of the repair batches `keys`; for
    `batches` (each one's page keys), the slowest page of each and its share of the batch's time."""
    root = DataRoot(data_root)
    best = [r for r in root.read_keys(TABLES[-1], keys).to_pylist() if r["is_best"]]
    pages = [{"original_state": r["original_state"], "final_state": r["state"]} for r in best]
    scored = [r for r in best if r["original_score"] is not None]
    return {"pages": len(best), "improved": sum(1 for r in scored if r["score_total"] > r["original_score"]),
            "mean_score_before": mean([r["original_score"] for r in scored]),
            "mean_score_after": mean([r["score_total"] for r in scored]), "transitions": transitions(pages),
            "slowest_by_batch": slowest_by_batch(root, batches)}


def slowest_by_batch(root: DataRoot, batches: list[list[str]]) -> list[dict]:
    """Per repair batch, the page whose repair took longest and its share of the batch's seconds
    (a worker repairs a batch's pages one after another, so the batch waits for the sum); batches
    whose rows hold no repair time (written before it was recorded) are left out."""
    out = []
    for index, keys in enumerate(batches):
        rows = root.read_keys(TABLES[-1], keys, columns=["id", "is_best", "repair_elapsed_s"]).to_pylist()
        seconds = {r["id"]: r["repair_elapsed_s"] for r in rows if r["is_best"] and r["repair_elapsed_s"] is not None}
        if seconds:
            out.append({"batch": index, **slowest(seconds)})
    return out


def repair_markdown(summary: dict, run_id: str, top: int = 5) -> str:
    """The flow's repair artifact: the band funnel (original x final band, counts and row %) and
    the batches most held up by one page."""
    lines = [f"# Repair of {run_id}", "",
             f"{summary['pages']} pages, {summary['improved']} improved; mean score "
             f"{summary['mean_score_before']} -> {summary['mean_score_after']}", "",
             *funnel_markdown(summary["transitions"])]
    held = sorted(summary.get("slowest_by_batch") or [], key=lambda b: (-b["slowest_share"], b["batch"]))[:top]
    if held:
        lines += ["", "## Slowest page per batch (most held up first)", "",
                  "| batch | pages | batch s | slowest page | its s | share |", "| --- | --- | --- | --- | --- | --- |",
                  *(f"| {b['batch']} | {b['pages']} | {b['wall_s']} | {b['slowest_page']} | {b['slowest_s']} | "
                    f"{b['slowest_share']:.0%} |" for b in held)]
    return "\n".join(lines) + "\n"
