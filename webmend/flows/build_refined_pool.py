"""The build-refined-pool flow: read a corpus (or make one from prompts: intake, then generation),
evaluate it in batches on Dask, write trace tables, publish a markdown summary, then (with repair
settings) repair the evaluated pages on Dask and publish the band funnel, export and train. It only
wires tasks (webmend/flows/tasks.py) around the pure cores (webmend/pool/); its parameters are the
stages' settings (webmend/flows/settings.py).

Run it through a deployment (prefect.yaml, docs/flows.md) or directly:
    python -m webmend.flows.build_refined_pool --responses data/samples/responses.jsonl \
        --items data/samples/items.jsonl --data-root runs/data
    python -m webmend.flows.build_refined_pool --prompts data/samples/items.jsonl --model openai/NAME
Dask needs a real Prefect server (PREFECT_API_URL): with the ephemeral API every Dask worker would
start its own.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from prefect import flow
from pydantic import ValidationError

from webmend.config import add_model_flags, model_from_flags
from webmend.flows import dask_worker, tasks
from webmend.flows.settings import (ClusterSettings, CorpusSettings, EvaluationSettings, ExportSettings, PromptSettings,
                                    RepairSettings, SftSettings)
from webmend.llm.settings import GenerationSettings, add_settings_arguments, settings_from_args
from webmend.pool.batches import PoolEvaluateStage
from webmend.pool.inputs import items_from_prompts
from webmend.pool.stages import pool_stages
from webmend.stage.driver import drive
from webmend.stage.progress import line_report
from webmend.stage.signals import ending_children
from webmend.store import DEFAULT_ROOT, layout
from webmend.training.sft import parse_overrides

log = logging.getLogger(__name__)

FLOW_NAME = "build-refined-pool"


@flow(name=FLOW_NAME, log_prints=True)
def build_refined_pool(
    corpus: CorpusSettings = CorpusSettings(),
    data_root: str = DEFAULT_ROOT,
    evaluation: EvaluationSettings = EvaluationSettings(),
    cluster: ClusterSettings = ClusterSettings(),
    prompts: PromptSettings | None = None,
    generation: GenerationSettings | None = None,
    repair: RepairSettings | None = None,
    export: ExportSettings | None = None,
    train: SftSettings | None = None,
    replace: bool = False,
) -> dict:
    """Evaluate a corpus on Dask; with their settings, intake and generate it from prompts first,
    then repair, export and train. One settings object per stage (webmend/flows/settings.py); a
    stage given as None does not run.

    Args:
        corpus: what is evaluated: pages, answers, test items, contracts, benchmark files.
        data_root: folder or fsspec URL of the trace tables.
        evaluation: evaluator config file, pages per task, run id, incremental (the nightly refresh).
        cluster: an existing Dask scheduler, else a local cluster of n_workers processes.
        prompts: prompt files run through intake and generation with `model`; the answers join the
            corpus, HTMLBench items among them are the test items unless corpus.items is given, and
            `contract_model` builds contracts for kept prompts without test cases.
        generation: limits, spend cap, max_tokens and seed of the LLM calls; its rate limits,
            timeout and retries also bind the intake's models.
        repair: repair the evaluated pages (docs/repair.md).
        export: end in a gated export of the whole data root (docs/export.md).
        train: SFT on that export's manifest (docs/training.md); needs export.
        replace: evaluate (and generate, build, repair) again and overwrite committed batches.
    """
    if train and not export:
        raise ValueError("train needs export settings as well (--export): it trains on this run's export")
    pool_stages(prompts=bool(prompts), contract_model=bool(prompts and prompts.contract_model), repair=bool(repair),
                export=bool(export))
    responses, items, contracts = list(corpus.responses), corpus.items, list(corpus.contracts)
    generated = built = None
    if prompts:
        files = expand_inputs(prompts.files)
        kept = tasks.intake_prompts(data_root, files, corpus.benchmark, prompts.intake_config, prompts.rewrite_model,
                                    prompts.classify_model, generation)
        generated = tasks.generate_responses(data_root, kept.prompts, prompts.model, prompts.samples,
                                             prompts.temperatures, generation, replace)
        responses.append(generated.responses)
        items = items or items_from_prompts(files)
        if prompts.contract_model:
            built = tasks.build_contracts(data_root, kept.prompts, items, prompts.contract_model, generation, replace)
            contracts.append(built.contracts)
    plan, cfg = tasks.read_corpus(corpus.pages, responses, items, evaluation.config, data_root, evaluation.batch_size,
                                  evaluation.run_id, replace, evaluation.incremental, contracts)
    repairing = _plan_repair(plan, cfg, data_root, repair, replace) if repair else None
    failed, repair_failed = [], []
    if plan.pending or (repairing and repairing.plan.pending):
        # One cluster for both stages: its workers keep their warm browsers from evaluation to
        # repair. Quiet Dask logs; the workers close their browsers when done (dask_worker.running).
        with dask_worker.running(tasks.dask_runner(cluster.dask_address, cluster.n_workers)) as runner:
            failed = _evaluate(runner, plan, cfg, data_root, replace)
            if repairing and not failed:
                repair_failed = _repair(runner, repairing)
    summary = tasks.summarize_run(data_root, plan.keys, plan.run_id)
    _raise_failures("batch(es)", failed)
    if repairing:
        _raise_failures("repair batch(es)", repair_failed)
        summary["repair"] = {"run_id": repairing.run_id, "batches": len(repairing.plan.batches),
                             "repaired_batches": len(repairing.plan.pending),
                             **tasks.summarize_repair(data_root, repairing.plan.keys, repairing.run_id,
                                                      repairing.plan.page_keys_by_batch())}
    out = {"run_id": plan.run_id, "batches": len(plan.batches), "evaluated_batches": len(plan.pending), **summary,
           "unchecked_pages": unchecked_pages(plan)}
    if built is not None:
        out["contracts"] = {"key": built.key, "built": built.built, **built.summary}
    if generated is not None:
        out["generation"] = {"key": generated.key, "generated": generated.generated, **generated.summary}
    if export:
        out["export"] = tasks.export_corpus(data_root, export.out, export.config, export.routes, corpus.benchmark,
                                            plan.run_id)
    if train:
        from webmend.flows.train import train as train_flow

        # A subflow: the manifest just published (or the unchanged one) goes to SFT (docs/training.md).
        out["train"] = train_flow(manifest=out["export"]["manifest"], sft=train)
    return out


def unchecked_pages(plan) -> int:
    """Pages of this run with neither test cases nor a contract: scored by the probe alone."""
    n = sum(1 for b in plan.batches for job in b.items
            if not (job.item or {}).get("test_cases") and not (job.item or {}).get("contract"))
    if n:
        log.warning("%d page(s) have neither test cases nor a contract: functionality comes from the probe alone", n)
    return n


def expand_inputs(paths: list[str]) -> list[str]:
    """Prompt inputs as given, a folder standing for its files (sorted, hidden ones left out): the
    nightly refresh points at a folder that new prompt files are dropped into."""
    out = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            out += [str(p) for p in sorted(path.iterdir()) if p.is_file() and not p.name.startswith(".")]
        else:
            out.append(given)
    return out


def _evaluate(runner, plan, cfg, data_root: str, replace: bool) -> list:
    stage = PoolEvaluateStage(plan, cfg.model_dump_json(), data_root, replace, cfg.min_page_chars)
    return drive(stage, tasks.stage_executor(runner, "evaluate-batch"), report=_flow_log(),
                 commit_with=tasks.committing("write-traces")).failures


def _plan_repair(plan, cfg, data_root: str, settings: RepairSettings, replace: bool):
    """The repair stage: one batch per evaluation batch, holding its pages not repaired yet."""
    from webmend.config import RepairConfig, load_model_config
    from webmend.pool import repair as pool_repair

    data = {**load_model_config(settings.config, RepairConfig).model_dump(), "evaluation": cfg.model_dump(),
            "max_rounds": settings.rounds}
    if settings.bands:
        data["bands"] = tuple(settings.bands)
    rcfg = RepairConfig.model_validate(data)
    spec = None
    if settings.model:
        limits = GenerationSettings(max_cost=settings.max_cost, workers=1)
        spec = pool_repair.ModelSpec(settings.model, limits.model_dump_json(),
                                     layout.url_under(data_root, layout.cache_path("repair")))
    rplan = pool_repair.plan_repair(data_root, plan.batches, rcfg, settings.model, replace)
    return pool_repair.PoolRepairStage(rplan, rcfg.model_dump_json(), data_root, spec,
                                       f"{plan.run_id}-repair-{rplan.run_hash[:8]}", replace)


def _repair(runner, stage) -> list:
    return drive(stage, tasks.stage_executor(runner, "repair-batch"), report=_flow_log(),
                 commit_with=tasks.committing("write-repair-traces")).failures


def _flow_log():
    # Progress as plain lines: the flow prints into its run log (log_prints), not onto a terminal.
    return line_report(sys.stdout)


def _raise_failures(what: str, failed: list) -> None:
    if failed:
        raise RuntimeError(f"{len(failed)} {what} failed: " + "; ".join(f"{b.index}: {e!r}"[:200] for b, e in failed))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m webmend.flows.build_refined_pool", description=__doc__.split("\n")[0])
    add_model_flags(p, CorpusSettings, one_per_flag=("responses", "benchmark"), positional="pages")
    add_model_flags(p, EvaluationSettings)
    add_model_flags(p, ClusterSettings)
    add_model_flags(p, PromptSettings, flags={"files": "prompts"}, one_per_flag=("files",))
    add_model_flags(p, RepairSettings, "repair_")
    add_model_flags(p, ExportSettings, "export_")
    add_model_flags(p, SftSettings, "train_")
    p.add_argument("--data-root", default=DEFAULT_ROOT)
    p.add_argument("--replace", action="store_true")
    p.add_argument("--repair", action="store_true", help="run the repair stage after evaluation (docs/repair.md)")
    p.add_argument("--export", action="store_true", help="end in a gated export of the data root (docs/export.md)")
    p.add_argument("--train", action="store_true", help="SFT on the export's manifest (the train flow; docs/training.md)")
    p.add_argument("--train-set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a LlamaFactory key of the SFT (repeatable)")
    add_settings_arguments(p)  # generation limits: --max-tokens, --seed, --workers, --rpm, ... (docs/generation.md)
    a = p.parse_args(argv)
    try:
        settings = {
            "corpus": model_from_flags(a, CorpusSettings), "evaluation": model_from_flags(a, EvaluationSettings),
            "cluster": model_from_flags(a, ClusterSettings), "generation": settings_from_args(a),
            "prompts": model_from_flags(a, PromptSettings) if getattr(a, "PromptSettings.files") else None,
            "repair": model_from_flags(a, RepairSettings, "repair_") if a.repair else None,
            "export": model_from_flags(a, ExportSettings, "export_") if a.export else None,
            "train": model_from_flags(a, SftSettings, "train_", overrides=parse_overrides(a.train_set))
            if a.train else None}
    except (ValidationError, ValueError) as exc:
        p.error(str(exc))
    with ending_children():  # SIGTERM/SIGINT end the cluster, its browsers and any other child first
        result = build_refined_pool(data_root=a.data_root, replace=a.replace, **settings)
    print(json.dumps(result, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
