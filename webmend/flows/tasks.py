"""Prefect tasks of build-refined-pool: thin wrappers around the pure cores in webmend.evaluate.

Tasks return plain data (records are dicts). Retries only for infrastructure failures (a browser
that cannot start, a dead Dask worker, a failed write): a bad input or row fails at once. No
caching: the data root's batch keys are what make a rerun skip work.
"""

from __future__ import annotations

import os
from typing import Callable

from prefect import task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE
from prefect.futures import as_completed
from prefect_dask import DaskTaskRunner

from webmend.config import EvalConfig, load_config
from webmend.contracts.command import items_with_contracts
from webmend.contracts.building import ContractOutcome, contract_stage
from webmend.evaluate.inputs import load_items
from webmend.llm.settings import GenerationSettings
from webmend.pool import batches as core
from webmend.pool import inputs as pool_inputs
from webmend.pool import repair as pool_repair
from webmend.pool.summary import summarize_pool, summary_markdown
from webmend.stage.batches import Batch
from webmend.stage.executors import Executor
from webmend.stage.run import is_infrastructure_error

ARTIFACT_KEY = "build-refined-pool-summary"
REPAIR_ARTIFACT_KEY = "build-refined-pool-repair"
EXPORT_ARTIFACT_KEY = "build-refined-pool-export"


def infrastructure_only(task, task_run, state) -> bool:
    """retry_condition_fn: retry only when the failure came from the machine, not the data."""
    exc = state.result(raise_on_failure=False)
    return isinstance(exc, BaseException) and is_infrastructure_error(exc)


@task(name="intake-prompts", cache_policy=NO_CACHE)
def intake_prompts(data_root: str, inputs: list[str], benchmarks: list[str], config: str | None = None,
                   rewrite_model: str | None = None, classify_model: str | None = None,
                   settings: GenerationSettings | None = None) -> pool_inputs.IntakeOutcome:
    return pool_inputs.intake_stage(data_root, inputs, benchmarks, config, rewrite_model, classify_model, settings)


@task(name="generate-responses", cache_policy=NO_CACHE)
def generate_responses(data_root: str, prompts: tuple, model: str, samples: int, temperatures: list[float] | None,
                       settings: GenerationSettings | None = None, replace: bool = False) -> pool_inputs.GenerationOutcome:
    # Retries of 429/5xx live in the LLM client (the I/O boundary); the cache makes a rerun free.
    return pool_inputs.generation_stage(data_root, prompts, model, samples, temperatures, settings, replace=replace)


@task(name="build-contracts", cache_policy=NO_CACHE)
def build_contracts(data_root: str, prompts: tuple, items: str | None, model: str,
                    settings: GenerationSettings | None = None, replace: bool = False) -> ContractOutcome:
    """A contract for every kept prompt without test cases (docs/icg-format.md); retries of
    429/5xx live in the LLM client, and a committed build makes no call."""
    with_tests = {pid for pid, item in load_items(items).items() if item.get("test_cases")} if items else set()
    todo = [{"id": p.id, "prompt": p.prompt, "family": None} for p in prompts if p.id not in with_tests]
    return contract_stage(data_root, todo, model, (settings or GenerationSettings()).client(model), replace)


@task(name="read-corpus", cache_policy=NO_CACHE)
def read_corpus(pages: list[str], responses: list[str], items: str | None, config: str | None,
                data_root: str, batch_size: int, run_id: str | None, replace: bool,
                incremental: bool = False, contracts: list[str] | None = None) -> tuple[core.Plan, EvalConfig]:
    cfg = load_config(config)
    attach = (lambda found: items_with_contracts(found, contracts)) if contracts else None
    return core.load_plan(data_root, pages, responses, items, cfg, batch_size, run_id, replace, incremental, attach), cfg


@task(name="run-batch", cache_policy=NO_CACHE, retries=2, retry_delay_seconds=2,
      retry_condition_fn=infrastructure_only)
def run_batch(fn: Callable, args: list, index: int) -> list:
    """A stage's work for one batch (`stage.driver.Work`), on a Dask worker; each stage names it
    (`evaluate-batch-N`, `repair-batch-N`) through `stage_executor`."""
    return fn(*args)


@task(name="commit-batch", cache_policy=NO_CACHE, retries=3, retry_delay_seconds=1,
      retry_condition_fn=infrastructure_only)
def commit_batch(commit: Callable, batch: Batch, rows: list) -> object:
    """A stage's commit of one finished batch, in the flow process (`write-traces-N`, ...)."""
    return commit(batch, rows)


def stage_executor(runner: DaskTaskRunner, work_name: str) -> Executor:
    """The flow's task runner as the stage driver's executor: each batch's work is a task run
    named WORK_NAME-N. Task parameters are plain data: Prefect walks them, and turns pydantic
    models into dicts (which breaks on a model with a field named `keys`), so configs travel as JSON."""
    named = run_batch.with_options(name=work_name, task_run_name=work_name + "-{index}")
    return Executor(submit=None, completed=as_completed, submit_work=lambda work: runner.submit(
        named, parameters={"fn": work.fn, "args": list(work.args), "index": work.index}))


def committing(commit_name: str) -> Callable:
    """drive()'s commit_with: each batch's commit is a task run named COMMIT_NAME-N (retried on I/O failures)."""
    named = commit_batch.with_options(name=commit_name, task_run_name=commit_name + "-{batch.index}")
    return lambda commit, batch, rows: named(commit, batch, rows)


@task(name="summarize-repair", cache_policy=NO_CACHE)
def summarize_repair(data_root: str, keys: list[str], run_id: str, batches: list[list[str]] = ()) -> dict:
    summary = pool_repair.summarize_repair(data_root, keys, batches)
    create_markdown_artifact(key=REPAIR_ARTIFACT_KEY, markdown=pool_repair.repair_markdown(summary, run_id),
                             description=f"build-refined-pool {run_id}: repair")
    return summary


@task(name="export-corpus", cache_policy=NO_CACHE, retries=2, retry_delay_seconds=2,
      retry_condition_fn=infrastructure_only)
def export_corpus(data_root: str, out: str | None, config: str | None, routes: list[str] | None,
                  benchmarks: list[str], run_id: str) -> dict:
    """Export and gate (webmend.export); the artifact says what was published, or that nothing was new."""
    from webmend.export.config import load_export_config
    from webmend.export.run import ExportBlocked, export_corpus as export_core, export_markdown

    cfg = load_export_config(config, routes=tuple(routes) if routes else None)
    try:
        outcome = export_core(data_root, out, cfg, benchmarks)
    except ExportBlocked as exc:
        create_markdown_artifact(key=EXPORT_ARTIFACT_KEY, markdown=f"# Export {exc.version}: blocked by the gate\n\n"
                                 + "\n".join(f"- {f}" for f in exc.gate.failures()),
                                 description=f"build-refined-pool {run_id}: export")
        raise
    create_markdown_artifact(key=EXPORT_ARTIFACT_KEY, markdown=export_markdown(outcome),
                             description=f"build-refined-pool {run_id}: export")
    return {"status": outcome.status, "version": outcome.version, "manifest": outcome.manifest, "rows": outcome.rows,
            "previous": outcome.previous}


@task(name="summarize-run", cache_policy=NO_CACHE)
def summarize_run(data_root: str, keys: list[str], run_id: str) -> dict:
    summary = summarize_pool(data_root, keys)
    create_markdown_artifact(key=ARTIFACT_KEY, markdown=summary_markdown(summary, run_id=run_id, data_root=data_root),
                             description=f"build-refined-pool {run_id}")
    return summary


def dask_runner(address: str | None = None, n_workers: int | None = None) -> DaskTaskRunner:
    """An existing cluster by address, or a local one: a process per core, one thread each (one
    browser per worker process), on 127.0.0.1, without dashboards."""
    if address:
        return DaskTaskRunner(address=address)
    return DaskTaskRunner(cluster_kwargs={
        "n_workers": n_workers or os.cpu_count() or 1, "threads_per_worker": 1, "processes": True,
        "dashboard_address": None, "host": "127.0.0.1"})
