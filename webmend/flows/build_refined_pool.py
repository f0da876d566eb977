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
import sys

from prefect import flow
from prefect.futures import as_completed

from webmend.flows import dask_worker, tasks
from webmend.llm.settings import GenerationSettings, add_settings_arguments, settings_from_args
from webmend.pool.batches import DEFAULT_BATCH_SIZE
from webmend.pool.inputs import items_from_prompts
from webmend.stage.run import run_stage
from webmend.store import DEFAULT_ROOT

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
    (its [evaluation] section is ignored here: candidates are evaluated with `config`)."""
    generated = None
    if prompts:
        if not model:
            raise ValueError("prompts need a model (litellm provider string)")
        kept = tasks.intake_prompts(data_root, prompts, benchmark or [], intake_config, rewrite_model,
                                    classify_model, generation)
        generated = tasks.generate_responses(data_root, kept.prompts, model, samples, temperatures, generation,
                                             replace)
        responses = [*(responses or []), generated.responses]
        items = items or items_from_prompts(prompts)
    plan, cfg = tasks.read_corpus(pages or [], responses or [], items, config, data_root, batch_size, run_id, replace)
    failed = []
    if plan.pending:
        # Quiet Dask logs; the workers close their browsers when done (dask_worker.running).
        with dask_worker.running(tasks.dask_runner(dask_address, n_workers)) as runner:
            cfg_json = cfg.model_dump_json()
            report = run_stage(
                plan.pending,
                submit=lambda batch: runner.submit(tasks.evaluate_batch,
                                                   parameters={"batch": batch, "cfg_json": cfg_json,
                                                               "keyframes_to": data_root}),
                completed=as_completed,
                commit=lambda batch, records: tasks.write_traces(batch, records, data_root, plan.run_id,
                                                                 plan.config_hash, replace),
            )
            failed = report.failures
    summary = tasks.summarize_run(data_root, plan.keys, plan.run_id)
    if repair and not failed:
        rcfg = _repair_config(repair_config, cfg, repair_rounds, repair_bands)
        summary["repair"] = _repair_stage(plan, rcfg, data_root, repair_model, repair_max_cost, replace,
                                          dask_address, n_workers)
    if failed:
        raise RuntimeError(f"{len(failed)} batch(es) failed: " + "; ".join(f"{b.index}: {e!r}"[:200] for b, e in failed))
    out = {"run_id": plan.run_id, "batches": len(plan.batches), "evaluated_batches": len(plan.pending), **summary}
    if generated is not None:
        out["generation"] = {"key": generated.key, "generated": generated.generated, **generated.summary}
    return out


def _repair_config(path: str | None, cfg, rounds: int, bands: list[str] | None):
    """The repair config file's settings, with the flow's evaluator config and parameters."""
    from webmend.config import RepairConfig, load_model_config

    data = {**load_model_config(path, RepairConfig).model_dump(), "evaluation": cfg.model_dump(), "max_rounds": rounds}
    if bands:
        data["bands"] = tuple(bands)
    return RepairConfig.model_validate(data)


def _repair_stage(plan, rcfg, data_root: str, model: str | None, max_cost: float | None, replace: bool,
                  dask_address: str | None, n_workers: int | None) -> dict:
    """Repair every evaluated batch on Dask; committed repair batches are skipped (resume)."""
    from webmend.pool import repair as pool_repair

    spec = None
    if model:
        from webmend.llm.settings import GenerationSettings

        settings = GenerationSettings(max_cost=max_cost, workers=1)
        spec = pool_repair.ModelSpec(model, settings.model_dump_json(), f"{data_root}/_repair/llm-cache")
    rplan = pool_repair.plan_repair(data_root, plan.batches, rcfg, model, replace)
    run_id = f"{plan.run_id}-repair-{rplan.run_hash[:8]}"
    failed = []
    if rplan.pending:
        with dask_worker.running(tasks.dask_runner(dask_address, n_workers)) as runner:
            rcfg_json = rcfg.model_dump_json()
            report = run_stage(
                rplan.pending,
                submit=lambda batch: runner.submit(tasks.repair_batch, parameters={
                    "batch": batch, "rcfg_json": rcfg_json, "data_root": data_root, "model": spec}),
                completed=as_completed,
                commit=lambda batch, results: tasks.write_repair_traces(batch, results, data_root, run_id, replace),
            )
            failed = report.failures
    if failed:
        raise RuntimeError(f"{len(failed)} repair batch(es) failed: " + "; ".join(f"{b.index}: {e!r}"[:200] for b, e in failed))
    return {"run_id": run_id, "batches": len(rplan.batches), "repaired_batches": len(rplan.pending),
            **tasks.summarize_repair(data_root, [b.key for b in rplan.batches], run_id)}


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
    p.add_argument("--repair-bands", nargs="+", choices=("Low", "Mid", "High"))
    p.add_argument("--repair-max-cost", type=float, help="repair spend cap, USD per worker process")
    p.add_argument("--repair-config", help="repair config file (TOML/JSON, docs/repair.md)")
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
                               repair_max_cost=a.repair_max_cost, repair_config=a.repair_config)
    print(json.dumps(result, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
