"""The train flow: SFT on an exported manifest, then (optionally) evaluation of the checkpoint on
benchmark items and an RL stage from it, each a task with its artifacts (docs/training.md).
build-refined-pool hands its manifest here with `train=True`.

    python -m webmend.flows.train --manifest runs/data/corpus --preset tiny --set max_steps=10 \
        --eval-items data/samples/items.jsonl --rl-tasks data/fixtures/training/items.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys

from prefect import flow

from webmend.flows import train_tasks
from webmend.stage.signals import ending_children

FLOW_NAME = "train"


@flow(name=FLOW_NAME, log_prints=True)
def train(manifest: str, route: str = "refined", preset: str = "tiny", model: str | None = None,
          overrides: dict | None = None, out: str | None = None, eval_items: str | None = None,
          eval_backend: str = "transformers", eval_max_new_tokens: int = 4096, eval_config: str | None = None,
          rl_tasks: str | None = None, rl_contracts: list[str] | None = None, rl_preset: str | None = None,
          rl_overrides: dict | None = None, rl_updates: int | None = None, rl_dask_address: str | None = None,
          rl_dask_workers: int | None = None, rl_rollouts: dict | None = None, threads: int | None = None) -> dict:
    """manifest: an export version folder, its manifest.json, or an export folder (its LATEST
    version); route, preset, model, overrides: as `webmend train sft`; out: the SFT run folder
    (default named from the request). eval_items: benchmark items to evaluate the checkpoint on
    (skipped when absent). rl_tasks (+ rl_contracts): run RL from the SFT checkpoint with rl_preset
    (default: preset), rl_overrides, rl_updates; its page rewards on the Dask scheduler
    rl_dask_address or a local cluster of rl_dask_workers (else a local pool); rl_rollouts: where
    samples come from, as `train rl --rollouts` (keys of jobs.RolloutOptions: backend, model,
    api_base, sync, sync_url, sync_command, concurrency; default the policy worker)."""
    from webmend.config import load_config

    cfg_json = load_config(eval_config).model_dump_json() if (eval_items or rl_tasks) else None
    result = {"sft": train_tasks.train_sft(manifest=manifest, route=route, preset=preset, model=model,
                                           overrides=overrides, out=out, threads=threads)}
    run_dir = result["sft"]["run_dir"]
    if eval_items:
        result["eval"] = train_tasks.train_eval(checkpoints=[run_dir], items=eval_items, out=f"{run_dir}/eval",
                                                backend=eval_backend, max_new_tokens=eval_max_new_tokens,
                                                cfg_json=cfg_json)
    if rl_tasks:
        result["rl"] = train_tasks.train_rl(tasks_file=rl_tasks, contracts=rl_contracts or [], init=run_dir,
                                            preset=rl_preset or preset, overrides=rl_overrides, updates=rl_updates,
                                            out=f"{run_dir}/rl", cfg_json=cfg_json, threads=threads,
                                            dask_address=rl_dask_address, dask_workers=rl_dask_workers,
                                            rollouts=rl_rollouts)
    return result


def main(argv: list[str] | None = None) -> int:
    from webmend.training.sft import parse_overrides

    p = argparse.ArgumentParser(prog="python -m webmend.flows.train", description=__doc__.split("\n")[0])
    p.add_argument("--manifest", required=True)
    p.add_argument("--route", default="refined")
    p.add_argument("--preset", default="tiny")
    p.add_argument("--model")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--out")
    p.add_argument("--eval-items")
    p.add_argument("--eval-backend", default="transformers", choices=("transformers", "openai"))
    p.add_argument("--eval-max-new-tokens", type=int, default=4096)
    p.add_argument("--eval-config")
    p.add_argument("--rl-tasks")
    p.add_argument("--rl-contracts", nargs="*", default=[])
    p.add_argument("--rl-preset")
    p.add_argument("--rl-set", dest="rl_overrides", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--rl-updates", type=int)
    p.add_argument("--rl-dask-address")
    p.add_argument("--rl-dask-workers", type=int)
    p.add_argument("--rl-rollout", dest="rl_rollouts", action="append", default=[], metavar="KEY=VALUE",
                   help="e.g. --rl-rollout backend=openai --rl-rollout model=openai/policy --rl-rollout api_base=URL")
    p.add_argument("--threads", type=int)
    a = p.parse_args(argv)
    with ending_children():  # SIGTERM/SIGINT end the trainer, the policy worker and the reward workers first
        result = train(manifest=a.manifest, route=a.route, preset=a.preset, model=a.model,
                       overrides=parse_overrides(a.overrides) or None, out=a.out, eval_items=a.eval_items,
                       eval_backend=a.eval_backend, eval_max_new_tokens=a.eval_max_new_tokens,
                       eval_config=a.eval_config, rl_tasks=a.rl_tasks, rl_contracts=a.rl_contracts,
                       rl_preset=a.rl_preset, rl_overrides=parse_overrides(a.rl_overrides) or None,
                       rl_updates=a.rl_updates, rl_dask_address=a.rl_dask_address, rl_dask_workers=a.rl_dask_workers,
                       rl_rollouts=parse_overrides(a.rl_rollouts) or None, threads=a.threads)
    print(json.dumps(result, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
