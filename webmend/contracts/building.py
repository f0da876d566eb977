"""Building contracts for many tasks into a folder, and the pipeline's contract stage
(build-refined-pool with a contract model: a contract for every kept prompt without test cases).

Pure core, no Prefect: `build_contracts` (used by `webmend contract build` too) and
`contract_stage` (a data root's `_contracts/KEY/` folder plus the `contracts` table). The folder's
`summary.json` is written last: a folder with one is committed, and a rerun makes no call.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

from webmend.schemas.contract import Contract, contract_hash
from webmend.schemas.hashing import sha256_hex
from webmend.stage import executors
from webmend.stage.batches import Batch
from webmend.stage.driver import Work, drive
from webmend.stage.progress import Report, log_report
from webmend.stage.spec import StageSpec
from webmend.store import DataRoot, layout, make_key

log = logging.getLogger(__name__)

STAGE = "contracts"
SPEC = StageSpec(STAGE, "build a checked interaction contract per task without test cases", writes=("contracts",))


def build_contracts(tasks: list[dict], model, out: Path, workers: int = 1, report: Report = log_report) -> dict:
    """A contract per task ({id, prompt, family?}) with `model` (build.ContractModel) into
    OUT/contracts.jsonl, the rejects with their reasons into OUT/rejects.jsonl, then OUT/summary.json;
    returns the summary. `workers` tasks are built at once (threads: the work is waiting on the
    model); the outputs keep the tasks' order. `report` shows progress as each task is done."""
    out.mkdir(parents=True, exist_ok=True)
    stage = _BuildStage(tasks, model)
    with executors.threads(workers) as ex:
        outcome = drive(stage, ex, report=report, in_order=True, max_resubmits=0)
    if outcome.failures:
        raise outcome.failures[0][1]
    kept = [r for r in stage.results if r.kept]
    rejected = [r for r in stage.results if not r.kept]
    write_lines(out / "contracts.jsonl", [r.contract for r in kept])
    write_lines(out / "rejects.jsonl", [{"task_id": r.task_id, "problems": r.problems, "sent_back": r.sent_back}
                                        for r in rejected])
    summary = {"tasks": len(kept) + len(rejected), "kept": len(kept), "rejected": len(rejected),
               "sent_back": sum(r.sent_back for r in kept + rejected), "llm_calls": model.calls}
    write_lines(out / "summary.json", [summary])
    return summary


@dataclass
class _BuildStage:
    """A contract build as a stage: a batch per task, built on a thread (the work is waiting on the
    model; the response cache, not a marker, makes a rerun free), results kept in task order."""

    tasks: list[dict]
    model: object  # build.ContractModel
    results: list = field(default_factory=list)
    name: str = "contract build"
    unit: str = "tasks"

    def batches(self) -> list[Batch]:
        return [Batch(n, str(n), (task,)) for n, task in enumerate(self.tasks)]

    def total(self) -> int:
        return len(self.tasks)

    def is_committed(self, batch: Batch) -> bool:
        return False

    def work(self, batch: Batch) -> Work:
        from webmend.contracts.build import build_contract  # litellm takes seconds to import

        return Work(batch.index, lambda task: [build_contract(task, self.model)], batch.items)

    def commit(self, batch: Batch, results: list) -> None:
        self.results.extend(results)

    def describe(self, results: list) -> str:
        return "; ".join(f"{r.task_id}: {'kept' if r.kept else 'rejected'}{' (sent back once)' if r.sent_back else ''}"
                         for r in results)


@dataclass(frozen=True)
class ContractOutcome:
    key: str
    contracts: str  # path of contracts.jsonl
    summary: dict
    built: bool  # False when this build was committed before (no calls)


def contract_stage(data_root: str, tasks: list[dict], model: str, client, replace: bool = False) -> ContractOutcome:
    """Build (or find committed) the contracts of `tasks` with `model` (`client`: its LLMClient,
    made by the caller from the generation settings) under ROOT/_contracts/KEY/, KEY from the tasks
    and the model; the kept contracts also become rows of the `contracts` table."""
    from webmend.contracts.build import BUILD_PARAMS, ContractModel
    from webmend.llm.cache import ResponseCache

    root = DataRoot(data_root)
    key = make_key(STAGE, *(f"{t['id']}\x1f{t['prompt']}\x1f{t.get('family')}" for t in tasks), model,
                   json.dumps(BUILD_PARAMS, sort_keys=True))
    out = layout.local_dir(root, layout.CONTRACT_BUILDS) / key
    if not replace and (out / "summary.json").is_file():
        log.info("contracts %s committed before: no calls", key)
        return ContractOutcome(key, str(out / "contracts.jsonl"), json.loads((out / "summary.json").read_text()), False)
    cache = ResponseCache(layout.local_dir(root, layout.cache_path("contracts")))
    summary = build_contracts(tasks, ContractModel(client, cache), out)
    rows = [contract_row(json.loads(line), run_id=f"contracts-{key[:12]}", config_hash=make_key(STAGE, model))
            for line in (out / "contracts.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    root.write("contracts", rows, key=key, mode="replace")
    return ContractOutcome(key, str(out / "contracts.jsonl"), summary, True)


def contract_row(data: dict, *, run_id: str, config_hash: str) -> dict:
    """A `contracts` table row: the contract and its counts (no page: executions are contract_results)."""
    c = Contract.model_validate(data)
    return {
        "id": c.task.id, "prompt_id": c.task.id, "contract_hash": contract_hash(c), "contract": json.dumps(data, sort_keys=True),
        "states": len(c.states), "transitions": len(c.transitions),
        "assertions": sum(len(t.assertions) for t in c.transitions) + len(c.initial_contract.checks),
        "requirements_explicit": sum(r.kind == "explicit" for r in c.requirements),
        "requirements_implicit": sum(r.kind == "implicit" for r in c.requirements),
        "run_id": run_id, "input_hash": sha256_hex(c.task.prompt), "config_hash": config_hash,
    }


def write_lines(path: Path, rows: list[dict]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), encoding="utf-8")
    tmp.replace(path)
