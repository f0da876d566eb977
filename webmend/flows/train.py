"""The train flow: SFT on an exported manifest, then (optionally) evaluation of the checkpoint on
benchmark items and an RL stage from it, each a task with its artifacts (docs/training.md).
build-refined-pool hands its manifest here with its `train` settings.

    python -m webmend.flows.train --manifest runs/data/corpus --preset tiny --set max_steps=10 \
        --eval-items data/samples/items.jsonl --rl-tasks data/fixtures/training/items.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys

from prefect import flow
from pydantic import ValidationError

from webmend.config import add_model_flags, model_from_flags
from webmend.flows import train_tasks
from webmend.flows.settings import CheckpointEvalSettings, RLSettings, SftSettings
from webmend.stage.signals import ending_children

FLOW_NAME = "train"


@flow(name=FLOW_NAME, log_prints=True)
def train(manifest: str, sft: SftSettings = SftSettings(), evaluation: CheckpointEvalSettings | None = None,
          rl: RLSettings | None = None, eval_config: str | None = None) -> dict:
    """SFT on an export, then, with their settings, the checkpoint's evaluation and RL from it
    (webmend/flows/settings.py; a stage given as None does not run).

    Args:
        manifest: an export version folder, its manifest.json, or an export folder (its LATEST version).
        sft: as `webmend train sft`: route, preset, model, LlamaFactory overrides, run folder, threads.
        evaluation: benchmark items the checkpoint answers and the evaluator scores.
        rl: RL tasks (+ contracts), preset, overrides, updates, where the page rewards and the samples come from.
        eval_config: evaluator config file for the evaluation and the RL page rewards (docs/config.md).
    """
    from webmend.config import load_config

    cfg_json = load_config(eval_config).model_dump_json() if (evaluation or rl) else None
    result = {"sft": train_tasks.train_sft(manifest=manifest, route=sft.route, preset=sft.preset, model=sft.model,
                                           overrides=sft.overrides or None, out=sft.out, threads=sft.threads)}
    run_dir = result["sft"]["run_dir"]
    if evaluation:
        result["eval"] = train_tasks.train_eval(checkpoints=[run_dir], items=evaluation.items, out=f"{run_dir}/eval",
                                                backend=evaluation.backend, max_new_tokens=evaluation.max_new_tokens,
                                                cfg_json=cfg_json)
    if rl:
        result["rl"] = train_tasks.train_rl(tasks_file=rl.tasks, contracts=rl.contracts, init=run_dir,
                                            preset=rl.preset or sft.preset, overrides=rl.overrides or None,
                                            updates=rl.updates, out=f"{run_dir}/rl", cfg_json=cfg_json,
                                            threads=sft.threads, dask_address=rl.dask_address,
                                            dask_workers=rl.dask_workers, rollouts=rl.rollouts or None)
    return result


def main(argv: list[str] | None = None) -> int:
    from webmend.training.sft import parse_overrides

    p = argparse.ArgumentParser(prog="python -m webmend.flows.train", description=__doc__.split("\n")[0])
    p.add_argument("--manifest", required=True)
    p.add_argument("--eval-config", help="evaluator config file for the evaluation and the RL page rewards")
    add_model_flags(p, SftSettings)
    add_model_flags(p, CheckpointEvalSettings, "eval_")
    add_model_flags(p, RLSettings, "rl_")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a LlamaFactory key of the SFT")
    p.add_argument("--rl-set", action="append", default=[], metavar="KEY=VALUE", help="a key of the RL config")
    p.add_argument("--rl-rollout", action="append", default=[], metavar="KEY=VALUE",
                   help="e.g. --rl-rollout backend=openai --rl-rollout model=openai/policy --rl-rollout api_base=URL")
    a = p.parse_args(argv)
    try:
        settings = {
            "sft": model_from_flags(a, SftSettings, overrides=parse_overrides(a.set)),
            "evaluation": model_from_flags(a, CheckpointEvalSettings, "eval_")
            if getattr(a, "CheckpointEvalSettings.eval_items") else None,
            "rl": model_from_flags(a, RLSettings, "rl_", overrides=parse_overrides(a.rl_set),
                                   rollouts=parse_overrides(a.rl_rollout))
            if getattr(a, "RLSettings.rl_tasks") else None}
    except (ValidationError, ValueError) as exc:
        p.error(str(exc))
    with ending_children():  # SIGTERM/SIGINT end the trainer, the policy worker and the reward workers first
        result = train(manifest=a.manifest, eval_config=a.eval_config, **settings)
    print(json.dumps(result, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
