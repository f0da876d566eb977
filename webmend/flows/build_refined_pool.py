"""The build-refined-pool flow: read a corpus (or make one from prompts: intake, then generation),
evaluate it in batches on Dask, write trace tables, publish a markdown summary, then (repair=True)
repair the evaluated pages on Dask and publish the band funnel. It only wires tasks
(webmend/flows/tasks.py) around the pure cores (webmend/pool/batches.py, pool_inputs.py); later
stages (repair, contracts, export) join here.

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

from webmend.flows import dask_worker, tasks
from webmend.llm.settings import GenerationSettings, add_settings_arguments, settings_from_args
from webmend.pool.batches import DEFAULT_BATCH_SIZE, PoolEvaluateStage
from webmend.pool.inputs import items_from_prompts
from webmend.pool.stages import pool_stages
from webmend.stage.driver import drive
from webmend.stage.progress import line_report
from webmend.schemas.corpus import ROUTES
from webmend.schemas.vocab import STATES
from webmend.store import DEFAULT_ROOT, layout
from webmend.training.presets import PRESETS

log = logging.getLogger(__name__)

FLOW_NAME = "build-refined-pool"


@flow(name=FLOW_NAME, log_prints=True)
def build_refined_pool(
    responses: list[str] | None = None,
    pages: list[str] | None = None,
    items: str | None = None,
    data_root: str = DEFAULT_ROOT,
    config: str | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    dask_address: str | None = None,
    n_workers: int | None = None,
    run_id: str | None = None,
    replace: bool = False,
    prompts: list[str] | None = None,
    benchmark: list[str] | None = None,
    model: str | None = None,
    samples: int = 1,
    temperatures: list[float] | None = None,
    generation: GenerationSettings | None = None,
    rewrite_model: str | None = None,
    classify_model: str | None = None,
    intake_config: str | None = None,
    repair: bool = False,
    repair_model: str | None = None,
    repair_rounds: int = 8,
    repair_bands: list[str] | None = None,
    repair_max_cost: float | None = None,
    repair_config: str | None = None,
    incremental: bool = False,
    export: bool = False,
    export_out: str | None = None,
    export_config: str | None = None,
    export_routes: list[str] | None = None,
    contracts: list[str] | None = None,
    contract_model: str | None = None,
    train: bool = False,
    train_route: str = "refined",
    train_preset: str = "tiny",
    train_overrides: dict | None = None,
) -> dict:
    """responses: JSONL files of raw answers; pages: HTML files or folders; items: HTMLBench test
    items (JSONL); data_root: folder or fsspec URL of the trace tables; config: evaluator config
    file; batch_size: pages per task; dask_address: an existing Dask scheduler, else a local
    cluster of n_workers processes (default: one per core); run_id: default derived from the corpus
    and config; replace: evaluate again and overwrite committed batches. prompts: prompt files (as
    `webmend prompts` takes) to run through intake (decontaminated against `benchmark` files) and
    generation with `model` (litellm string; `samples` per prompt and temperature); the generated
    answers join `responses`, and HTMLBench items among the prompt files are the test items unless
    `items` is given. generation: limits, spend cap, max_tokens and seed of the LLM calls
    (GenerationSettings; its rate limits, timeout and retries also bind the intake's models);
    rewrite_model / classify_model: litellm models that rewrite forum posts and label unsure
    families; intake_config: intake config file (thresholds, docs/intake.md). repair: run the repair
    stage on the evaluated pages (docs/repair.md): deterministic operators, plus `repair_model`
    (litellm string) when given, at most `repair_rounds` rounds, only pages in `repair_bands`
    (default all), `repair_max_cost` USD per Dask worker process; repair_config: repair config file
    (its [evaluation] section is ignored here: candidates are evaluated with `config`).
    incremental: evaluate (and repair) only pages not evaluated yet under `config`, by content hash
    (the nightly refresh). export: end in a gated export (docs/export.md) of the whole data root to
    `export_out` (default ROOT/corpus) with `export_config`, `export_routes` (default all) and the
    `benchmark` files for the decontamination re-check; a night with nothing new writes nothing.
    contracts: task contract files (.json, .jsonl, folders; docs/icg-format.md) that evaluation,
    repair and export use for the pages of their tasks; contract_model: litellm model that builds a
    contract for every kept prompt without test cases (validated, cached, rejects recorded under
    ROOT/_contracts/KEY/), added to `contracts`. Pages with neither test cases nor a contract are
    evaluated as before; the result counts them (`unchecked_pages`). train: hand the export's
    manifest to the train flow (SFT of `train_preset` on `train_route`, `train_overrides` as
    `webmend train sft --set`; docs/training.md); needs export."""
    if train and not export:
        raise ValueError("train=True trains on this run's export: set export=True as well")
    pool_stages(prompts=bool(prompts), contract_model=bool(contract_model), repair=repair, export=export)
    generated = None
    built = None
    if prompts:
        if not model:
            raise ValueError("prompts need a model (litellm provider string)")
        prompts = expand_inputs(prompts)
        kept = tasks.intake_prompts(data_root, prompts, benchmark or [], intake_config, rewrite_model,
                                    classify_model, generation)
        generated = tasks.generate_responses(data_root, kept.prompts, model, samples, temperatures, generation,
                                             replace)
        responses = [*(responses or []), generated.responses]
        items = items or items_from_prompts(prompts)
        if contract_model:
            built = tasks.build_contracts(data_root, kept.prompts, items, contract_model, generation, replace)
            contracts = [*(contracts or []), built.contracts]
    plan, cfg = tasks.read_corpus(pages or [], responses or [], items, config, data_root, batch_size, run_id, replace,
                                  incremental, contracts)
    repairing = _plan_repair(plan, cfg, data_root, repair_config, repair_rounds, repair_bands, repair_model,
                             repair_max_cost, replace) if repair else None
    failed, repair_failed = [], []
    if plan.pending or (repairing and repairing.plan.pending):
        # One cluster for both stages: its workers keep their warm browsers from evaluation to
        # repair. Quiet Dask logs; the workers close their browsers when done (dask_worker.running).
        with dask_worker.running(tasks.dask_runner(dask_address, n_workers)) as runner:
            failed = _evaluate(runner, plan, cfg, data_root, replace)
            if repairing and not failed:
                repair_failed = _repair(runner, repairing)
    summary = tasks.summarize_run(data_root, plan.keys, plan.run_id)
    _raise_failures("batch(es)", failed)
    if repairing:
        _raise_failures("repair batch(es)", repair_failed)
        summary["repair"] = {"run_id": repairing.run_id, "batches": len(repairing.plan.batches),
                             "repaired_batches": len(repairing.plan.pending),
                             **tasks.summarize_repair(data_root, repairing.plan.keys, repairing.run_id)}
    out = {"run_id": plan.run_id, "batches": len(plan.batches), "evaluated_batches": len(plan.pending), **summary,
           "unchecked_pages": unchecked_pages(plan)}
    if built is not None:
        out["contracts"] = {"key": built.key, "built": built.built, **built.summary}
    if generated is not None:
        out["generation"] = {"key": generated.key, "generated": generated.generated, **generated.summary}
    if export:
        out["export"] = tasks.export_corpus(data_root, export_out, export_config, export_routes, benchmark or [],
                                            plan.run_id)
    if train:
        from webmend.flows.train import train as train_flow

        # A subflow: the manifest just published (or the unchanged one) goes to SFT (docs/training.md).
        out["train"] = train_flow(manifest=out["export"]["manifest"], route=train_route, preset=train_preset,
                                  overrides=train_overrides)
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


def _plan_repair(plan, cfg, data_root: str, config: str | None, rounds: int, bands: list[str] | None,
                 model: str | None, max_cost: float | None, replace: bool):
    """The repair stage: one batch per evaluation batch, holding its pages not repaired yet."""
    from webmend.config import RepairConfig, load_model_config
    from webmend.pool import repair as pool_repair

    data = {**load_model_config(config, RepairConfig).model_dump(), "evaluation": cfg.model_dump(), "max_rounds": rounds}
    if bands:
        data["bands"] = tuple(bands)
    rcfg = RepairConfig.model_validate(data)
    spec = None
    if model:
        from webmend.llm.settings import GenerationSettings

        settings = GenerationSettings(max_cost=max_cost, workers=1)
        spec = pool_repair.ModelSpec(model, settings.model_dump_json(),
                                     layout.url_under(data_root, layout.cache_path("repair")))
    rplan = pool_repair.plan_repair(data_root, plan.batches, rcfg, model, replace)
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


def _overrides(pairs: list[str]) -> dict | None:
    from webmend.training.sft import parse_overrides

    return parse_overrides(pairs) or None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m webmend.flows.build_refined_pool", description=__doc__.split("\n")[0])
    p.add_argument("pages", nargs="*", help="HTML files or folders")
    p.add_argument("--responses", action="append", default=[], help="JSONL of raw answers (repeatable)")
    p.add_argument("--items", help="HTMLBench-format test items (JSONL)")
    p.add_argument("--data-root", default=DEFAULT_ROOT)
    p.add_argument("--config")
    p.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE)
    p.add_argument("--dask-address")
    p.add_argument("--n-workers", type=int)
    p.add_argument("--run-id")
    p.add_argument("--replace", action="store_true")
    p.add_argument("--prompts", action="append", default=[],
                   help="prompt files to intake and generate from (repeatable)")
    p.add_argument("--benchmark", action="append", default=[],
                   help="benchmark files to decontaminate against (repeatable)")
    p.add_argument("--model", help="litellm model string for generation, e.g. openai/gpt-4o-mini")
    p.add_argument("--samples", type=int, default=1)
    p.add_argument("--temperatures", type=float, nargs="+")
    p.add_argument("--rewrite-model", help="litellm model that rewrites forum posts into direct requests")
    p.add_argument("--classify-model", help="litellm model asked when the family rules are unsure")
    p.add_argument("--intake-config", help="intake config file (TOML/JSON, docs/intake.md)")
    p.add_argument("--repair", action="store_true", help="run the repair stage after evaluation (docs/repair.md)")
    p.add_argument("--repair-model", help="litellm model that writes repair patches/rewrites (default: operators only)")
    p.add_argument("--repair-rounds", type=int, default=8)
    p.add_argument("--repair-bands", nargs="+", choices=STATES)
    p.add_argument("--repair-max-cost", type=float, help="repair spend cap, USD per worker process")
    p.add_argument("--repair-config", help="repair config file (TOML/JSON, docs/repair.md)")
    p.add_argument("--incremental", action="store_true", help="evaluate only pages not evaluated yet (nightly refresh)")
    p.add_argument("--export", action="store_true", help="end in a gated export of the data root (docs/export.md)")
    p.add_argument("--export-out", help="export folder or fsspec URL (default ROOT/corpus)")
    p.add_argument("--export-config", help="export config file (TOML/JSON, docs/export.md)")
    p.add_argument("--export-routes", nargs="+", choices=ROUTES)
    p.add_argument("--contracts", nargs="+", help="task contracts (.json, .jsonl or folders; docs/icg-format.md)")
    p.add_argument("--contract-model", help="litellm model that builds contracts for prompts without test cases")
    p.add_argument("--train", action="store_true", help="SFT on the export's manifest (the train flow; docs/training.md)")
    p.add_argument("--train-route", default="refined", choices=ROUTES)
    p.add_argument("--train-preset", default="tiny", choices=tuple(PRESETS))
    p.add_argument("--train-set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a LlamaFactory key of the SFT (repeatable)")
    add_settings_arguments(p)  # generation limits: --max-tokens, --seed, --workers, --rpm, ... (docs/generation.md)
    a = p.parse_args(argv)
    result = build_refined_pool(responses=a.responses, pages=a.pages, items=a.items, data_root=a.data_root,
                                config=a.config, batch_size=a.batch_size, dask_address=a.dask_address,
                                n_workers=a.n_workers, run_id=a.run_id, replace=a.replace,
                                prompts=a.prompts, benchmark=a.benchmark, model=a.model, samples=a.samples,
                                temperatures=a.temperatures, generation=settings_from_args(a),
                                rewrite_model=a.rewrite_model, classify_model=a.classify_model,
                                intake_config=a.intake_config, repair=a.repair, repair_model=a.repair_model,
                               repair_rounds=a.repair_rounds, repair_bands=a.repair_bands,
                               repair_max_cost=a.repair_max_cost, repair_config=a.repair_config,
                               incremental=a.incremental, export=a.export, export_out=a.export_out,
                               export_config=a.export_config, export_routes=a.export_routes,
                               contracts=a.contracts, contract_model=a.contract_model, train=a.train,
                               train_route=a.train_route, train_preset=a.train_preset,
                               train_overrides=_overrides(a.train_set))
    print(json.dumps(result, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
