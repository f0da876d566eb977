"""Repair a stream of inputs into DIR/repairs.jsonl (input order), DIR/pages/ and DIR/summary.json.

Like `webmend evaluate`: records are appended one by one, a rerun with the same config skips the
records already written, and each page keeps a journal of its finished rounds (DIR/rounds/) so a
page killed mid-repair resumes after its last finished round. Stored evaluations (`--from`) are
used as the originals' verdicts; inputs without one are evaluated first.
"""

from __future__ import annotations

import json
import logging
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Iterable, Iterator

from webmend.config import RepairConfig
from webmend.evaluate.inputs import RawInput, input_hash, match_item
from webmend.evaluate.run import RESULTS, completed_records, iter_records, write_json_atomic, write_text_atomic
from webmend.extract import extract_page
from webmend.repair.summary import summarize_repairs
from webmend.repair.traces import page_key, write_repair_traces
from webmend.schemas.hashing import sha256_hex
from webmend.schemas.repair import RepairRecord
from webmend.schemas.results import PageVerdict
from webmend.stage import executors
from webmend.stage.batches import Batch
from webmend.stage.driver import Work, drive
from webmend.stage.progress import Report, log_report
from webmend.store import make_key

log = logging.getLogger(__name__)

REPAIRS = "repairs.jsonl"
SUMMARY = "summary.json"
PAGES = "pages"
ROUNDS = "rounds"


@dataclass(frozen=True)
class ModelSpec:
    """How each worker process builds its repair model (clients do not cross processes)."""

    model: str
    settings_json: str  # GenerationSettings: limits, retries, timeout, spend cap
    cache_dir: str


def run_hash(rcfg: RepairConfig, model: str | None, judge: str | None = None) -> str:
    """Names a repair run's outputs: the repair config (evaluator config inside) and the models."""
    return make_key("repair", rcfg.config_hash(), model or "no-llm", *([judge] if judge else []))[:16]


def load_evaluations(folder: str | Path | None) -> dict[str, PageVerdict]:
    """The verdicts of an evaluation run's records, by id. A missing folder is an error, not an empty run."""
    if folder is None:
        return {}
    path = Path(folder) / RESULTS
    if not path.is_file():
        raise FileNotFoundError(f"--from {folder}: no {RESULTS} there (give the --out folder of `webmend evaluate`)")
    return {rec["id"]: PageVerdict.of(rec) for rec in iter_records(path)}


def page_file(page_id: str) -> str:
    """pages/<id>.html with a safe file name; ids that needed changing get a hash suffix (unique)."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", page_id).strip("._") or "page"
    if safe != page_id:
        safe = f"{safe[:80]}-{sha256_hex(page_id)[:8]}"
    return f"{PAGES}/{safe}.html"


_state: dict = {}


def _init_worker(rcfg_json: str, items: dict, evaluations: dict, out: str, model: ModelSpec | None,
                 judge: ModelSpec | None = None, frames_from: str | None = None) -> None:
    from webmend.browser.worker import get_worker

    rcfg = RepairConfig.model_validate_json(rcfg_json)
    worker = get_worker(rcfg.evaluation)
    worker.ensure_started()
    _state.update(rcfg=rcfg, items=items, evaluations=evaluations, out=Path(out), worker=worker,
                  model=build_model(model, rcfg), judge=build_model(judge, rcfg),
                  frames_from=(Path(frames_from),) if frames_from else ())


def build_model(spec: ModelSpec | None, rcfg: RepairConfig):
    if spec is None:
        return None
    from webmend.llm.cache import ResponseCache
    from webmend.llm.settings import GenerationSettings
    from webmend.repair.model import RepairModel

    settings = GenerationSettings.model_validate_json(spec.settings_json)
    return RepairModel(settings.client(spec.model), rcfg, ResponseCache(spec.cache_dir))


def _repair_batch(batch: Batch) -> list[tuple[dict, dict[str, str]]]:
    return [repair_input(raw, **_state) for raw in batch.items]


def repair_input(raw: RawInput, *, rcfg: RepairConfig, items: dict, evaluations: dict[str, PageVerdict], out: Path,
                 worker, model=None, judge=None, frames_from: tuple[Path, ...] = ()) -> tuple[dict, dict[str, str]]:
    """One input to its repairs.jsonl record (its best checkpoint written under out/pages/) and
    the pages of its checkpoints by page hash (for the checkpoints table)."""
    from webmend.evaluate.records import evaluate_input
    from webmend.repair.loop import repair_page

    item = match_item(items, raw.id)
    extraction = extract_page(raw.raw, min_chars=rcfg.evaluation.min_page_chars) if raw.raw is not None else None
    html = extraction.html if extraction is not None and extraction.status == "ok" else ""
    stored = evaluations.get(raw.id)
    if stored is None or stored.config_hash != rcfg.evaluation.config_hash():
        evaluation = evaluate_input(raw, item, rcfg.evaluation, worker, out)
    else:
        evaluation = stored.model_dump(mode="json")
    evaluation = {**evaluation, "index": raw.index}
    task = (item or {}).get("prompt") or raw.prompt or ""
    llm = None
    if model is not None:
        from webmend.repair.model import llm_proposer  # litellm only when a model is asked for

        llm = llm_proposer(model, rcfg, task)
    hashed = run_hash(rcfg, model.name if model else None, judge.name if judge else None)
    key = make_key("repair-page", sha256_hex(html), raw.id, hashed)
    compare = None
    if judge is not None:
        from webmend.repair.contrast import visual_comparison

        def compare(before: dict, after: dict):
            return visual_comparison(judge, task, before, after, [out, *frames_from])

    trace = repair_page(html, item, evaluation, rcfg, llm, worker=worker, journal=out / ROUNDS / f"{key}.jsonl",
                        keyframes_to=out, judge=compare)
    record = trace.record
    record["run_hash"] = hashed
    if html:
        record["page"] = page_file(raw.id)
        (out / PAGES).mkdir(parents=True, exist_ok=True)
        write_text_atomic(out / record["page"], trace.best.html)
    # The pages of its checkpoints and of the candidates rejected for a regression, by page hash.
    pages = {**trace.regressions, **{c.page_hash: c.html for c in [trace.original, *trace.checkpoints]}} if html else {}
    return RepairRecord.model_validate(record).model_dump(mode="json"), pages


def describe_repairs(results: list[tuple[dict, dict]]) -> str:
    """What a progress line says of repaired pages: scores and bands before and after, rounds, stop reason."""
    return "; ".join(
        f"{r['id']}: {r['original_score']} -> {r['final_score']} ({r['original_state']} -> {r['final_state']}), "
        f"{r['rounds']} rounds, {sum(1 for a in r['attempts'] if a['accepted'])} accepted, stop {r['stop_reason']}"
        for r, _ in results)


@dataclass
class RepairsFileStage:
    """`webmend repair` as a stage: each input is a batch (keyed by position), committed by
    appending its record to repairs.jsonl in input order (and, with a data root, its rows under the
    page's key); a rerun counts the complete records there and skips that many inputs."""

    inputs: Iterable[RawInput]
    count: int | None
    fh: IO[str]  # repairs.jsonl, open for appending
    done: int
    run_hash: str
    data_root: str | None = None
    name: str = "repair"

    def batches(self) -> Iterator[Batch]:
        return (Batch(n, str(n), (raw,)) for n, raw in enumerate(self.inputs))

    def total(self) -> int | None:
        return self.count

    def is_committed(self, batch: Batch) -> bool:
        return batch.index < self.done

    def work(self, batch: Batch) -> Work:
        return Work(batch.index, _repair_batch, (batch,))  # on the process's state (_init_worker)

    def commit(self, batch: Batch, results: list[tuple[dict, dict]]) -> None:
        for raw, (rec, pages) in zip(batch.items, results):
            if self.data_root is not None:
                write_repair_traces([(rec, pages)], self.data_root, page_key(raw.id, input_hash(raw), self.run_hash),
                                    run_id="repair-" + self.run_hash[:12])
            self.fh.write(json.dumps(rec, sort_keys=True) + "\n")
        self.fh.flush()

    def describe(self, results: list[tuple[dict, dict]]) -> str:
        return describe_repairs(results)


def run_repair(inputs: Iterable[RawInput], items: dict, evaluations: dict, rcfg: RepairConfig, out_dir: str | Path,
               model: ModelSpec | None = None, workers: int = 1, report: Report = log_report,
               data_root: str | None = None, judge: ModelSpec | None = None, frames_from: str | None = None) -> dict:
    """data_root: also write the repair_attempts and checkpoints tables there (one key per page);
    report: progress (pages a crashed run already repaired count as resumed)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / REPAIRS
    started = time.perf_counter()
    hashed = run_hash(rcfg, model.model if model else None, judge.model if judge else None)
    done = completed_records(path, hashed, field="run_hash")
    if done:
        log.info("resuming: %d repair records already in %s", done, path)
    inputs = list(inputs)
    with open(path, "a", encoding="utf-8") as fh:
        stage = RepairsFileStage(inputs, len(inputs), fh, done, hashed, data_root)
        args = (rcfg.model_dump_json(), items, evaluations, str(out), model, judge, frames_from)
        try:
            with executors.local(workers, _init_worker, args) as ex:
                outcome = drive(stage, ex, report=report, in_order=True, max_in_flight=max(1, workers) * 2,
                                max_resubmits=0)
        finally:
            if "worker" in _state:
                _state.pop("worker").close()
    if outcome.failures:
        batch, exc = outcome.failures[0]
        raise RuntimeError(f"input {batch.index} could not be repaired; a rerun resumes there") from exc
    summary = summarize_repairs(iter_records(path), time.perf_counter() - started)
    write_json_atomic(out / SUMMARY, summary)
    return summary
