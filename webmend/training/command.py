"""`webmend train sft` (docs/training.md, docs/cli.md)."""

from __future__ import annotations

import sys

from webmend.schemas.training import LAUNCH_MODES
from webmend.training.presets import PRESETS


def add_train_arguments(p) -> None:
    sub = p.add_subparsers(dest="train_command", required=True)
    s = sub.add_parser("sft", help="supervised fine-tuning with LlamaFactory on an exported corpus")
    s.add_argument("--manifest", required=True, help="an export version folder or its manifest.json (local)")
    s.add_argument("--route", default="refined", help="raw, filtered or refined (default refined)")
    s.add_argument("--format", default="sharegpt", help="sharegpt (default) or alpaca")
    s.add_argument("--preset", default="tiny", choices=sorted(PRESETS), help="model scale (default tiny)")
    s.add_argument("--model", help="model_name_or_path instead of the preset's (tiny: built on the spot when absent)")
    s.add_argument("--out", help="run folder (default runs/train/sft-VERSION-ROUTE-PRESET-HASH)")
    s.add_argument("--launch", default="local", choices=LAUNCH_MODES,
                   help="local: train here; print: write and print the YAML; script: write launch.sh for a cluster")
    s.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a LlamaFactory config key (repeatable), e.g. --set max_steps=10")
    s.add_argument("--nodes", type=int, help="script: nodes (default: the paper's count for the preset)")
    s.add_argument("--gpus", type=int, help="script: GPUs per node (default 8)")
    s.add_argument("--threads", type=int, help="local: OMP_NUM_THREADS for the trainer")
    add_rl_arguments(sub)
    e = sub.add_parser("eval", help="generate pages for benchmark items with checkpoints, evaluate them, tabulate by family")
    e.add_argument("--checkpoint", action="append", required=True,
                   help="a `train sft` run folder or a model folder (repeat to compare checkpoints on one table)")
    e.add_argument("--items", required=True, help="benchmark items with test cases (.jsonl, as `evaluate --tests`)")
    e.add_argument("--backend", default="transformers", choices=("transformers", "openai"),
                   help="transformers: generate here in the training environment; openai: an OpenAI-compatible server")
    e.add_argument("--served-model", action="append", default=[],
                   help="openai: the litellm model name per --checkpoint, e.g. openai/refined-4b (vLLM's served name)")
    e.add_argument("--api-base", help="openai: the server's base URL, e.g. http://127.0.0.1:8000/v1")
    e.add_argument("--system", help="system prompt (default: the run's manifest's; the export default for a bare model)")
    e.add_argument("--max-new-tokens", type=int, default=4096)
    e.add_argument("--out", default="runs/train/eval", help="output folder: one subfolder per checkpoint, report.md")
    e.add_argument("--workers", type=int, default=1, help="browser workers for the evaluation")
    e.add_argument("--mode", choices=("fast", "full"), help="evaluator mode (default: the config's)")
    e.add_argument("--config", help="evaluator config (YAML/JSON), as `webmend evaluate --config`")


def add_rl_arguments(sub) -> None:
    from webmend.training.rl import RL_PRESETS

    r = sub.add_parser("rl", help="GRPO with WebLoop's Generator, Critic and Refiner roles; rewards from the browser")
    r.add_argument("--tasks", required=True, help="tasks (.jsonl items: id, prompt, category, test_cases?)")
    r.add_argument("--contracts", nargs="*", default=[], help="contracts for the tasks (as `evaluate --contracts`)")
    r.add_argument("--init", required=True, help="the policy to start from: a `train sft` run folder or a model folder")
    r.add_argument("--preset", default="tiny", choices=sorted(RL_PRESETS), help="model scale (default tiny)")
    r.add_argument("--updates", type=int, help="policy updates (default: the config's, 3)")
    r.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override an RlConfig field (repeatable), e.g. --set n_gen=4 --set roles=[generator]")
    r.add_argument("--out", help="output folder (default runs/train/rl-HASH)")
    r.add_argument("--mode", choices=("fast", "full"), help="evaluator mode for the rewards")
    r.add_argument("--config", help="evaluator config (YAML/JSON)")
    r.add_argument("--workers", type=int, help="browser workers for the rewards")
    r.add_argument("--threads", type=int, help="OMP_NUM_THREADS for the policy worker")
    r.add_argument("--dask-address", help="run the page rewards on this Dask scheduler's workers (warm browsers)")
    r.add_argument("--dask-workers", type=int, help="run the page rewards on a local Dask cluster of N workers")
    r.add_argument("--anchors", help="reference pages TASK_ID.html for the visual anchor (with --set visual_anchor_weight=W)")
    r.add_argument("--rollouts", default="local", choices=("local", "openai"),
                   help="local: the policy worker samples; openai: an OpenAI-compatible server (vLLM, SGLang) samples")
    r.add_argument("--rollout-model", help="openai: litellm's name of the served policy, e.g. hosted_vllm/policy")
    r.add_argument("--rollout-api-base", help="openai: the server's base URL, e.g. http://127.0.0.1:8000/v1")
    r.add_argument("--rollout-sync", default="reload", choices=("reload", "command", "none"),
                   help="after each update: reload (POST the saved policy's folder), command (run a hook), none")
    r.add_argument("--rollout-sync-url", help="reload: the endpoint (default BASE/update_weights_from_disk)")
    r.add_argument("--rollout-sync-command", help="command: a shell command; {path} is the saved policy's folder")
    r.add_argument("--rollout-concurrency", type=int, default=8, help="openai: requests in flight (default 8)")


def run_train(args) -> int:
    if args.train_command == "eval":
        return run_eval(args)
    if args.train_command == "rl":
        return run_rl(args)
    from webmend.training import jobs, sft
    from webmend.training.env import TrainEnvMissing

    try:
        plan = jobs.run_sft_job(args.manifest, route=args.route, fmt=args.format, preset=args.preset, model=args.model,
                                out=args.out, overrides=sft.parse_overrides(args.overrides), launch=args.launch,
                                nodes=args.nodes, gpus=args.gpus, echo=sft.echo_stdout, threads=args.threads)
    except sft.ManifestRejected as exc:
        print(f"webmend train sft: {exc}", file=sys.stderr)
        return 1
    except (jobs.ConfigRejected, TrainEnvMissing) as exc:
        print(f"webmend train sft: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:  # a training-environment program failed (building the tiny model, the config check)
        print(f"webmend train sft: {exc}", file=sys.stderr)
        return 1
    if args.launch == "print":
        sys.stdout.write(plan.yaml_path.read_text())
        return 0
    if args.launch == "script":
        print(plan.run_dir / "launch.sh")
        return 0
    m = plan.record.metrics
    print(f"{plan.run_dir}: {plan.record.status}, {m.steps} steps, final loss {m.final_loss}", file=sys.stderr)
    return 0 if plan.record.status == "succeeded" else 1


def run_eval(args) -> int:
    import json
    from dataclasses import replace
    from pathlib import Path

    from webmend.config import load_config
    from webmend.evaluate.inputs import load_items
    from webmend.training import evaluation

    if args.backend == "openai" and len(args.served_model) != len(args.checkpoint):
        raise ValueError("--backend openai needs one --served-model per --checkpoint")
    cfg = load_config(args.config)
    if args.mode:
        cfg = cfg.model_copy(update={"mode": args.mode})
    items = load_items(args.items)
    checkpoints = [evaluation.read_checkpoint(c, args.system) for c in args.checkpoint]
    if args.backend == "openai":
        checkpoints = [replace(c, model=m) for c, m in zip(checkpoints, args.served_model)]
    out = Path(args.out)
    reports, table = evaluation.compare_checkpoints(checkpoints, items, out, cfg, backend=args.backend,
                                                    max_new_tokens=args.max_new_tokens, api_base=args.api_base,
                                                    workers=args.workers)
    print(table, end="")
    print(json.dumps({"report": str(out / "report.md"), "checkpoints": [r["checkpoint"] for r in reports]}),
          file=sys.stderr)
    return 0


def run_rl(args) -> int:
    import json

    from webmend.config import load_config
    from webmend.training import jobs, sft
    from webmend.training.env import TrainEnvMissing
    from webmend.training.policy import PolicyError

    from webmend.training.rollouts import RolloutError

    eval_cfg = load_config(args.config)
    if args.mode:
        eval_cfg = eval_cfg.model_copy(update={"mode": args.mode})
    rollout = jobs.RolloutOptions(args.rollouts, args.rollout_model, args.rollout_api_base, args.rollout_sync,
                                  args.rollout_sync_url, args.rollout_sync_command, args.rollout_concurrency)
    try:
        outcome = jobs.run_rl_job(args.tasks, args.contracts, args.init, eval_cfg, preset=args.preset,
                                  overrides=sft.parse_overrides(args.overrides), updates=args.updates, out=args.out,
                                  workers=args.workers, threads=args.threads, dask_address=args.dask_address,
                                  dask_workers=args.dask_workers, anchors=args.anchors, rollout=rollout)
    except TrainEnvMissing as exc:
        print(f"webmend train rl: {exc}", file=sys.stderr)
        return 2
    except (PolicyError, RolloutError) as exc:  # the policy worker or the rollout server failed: a rerun resumes
        print(f"webmend train rl: {exc}", file=sys.stderr)
        return 1
    for line in outcome.lines:
        print(json.dumps({"update": line["update"], "mean_reward": {k: v["mean_reward"] for k, v in line["roles"].items()},
                          "loss": [s.get("loss") for s in line["update_stats"]]}))
    print(f"{outcome.out}: {len(outcome.lines)} updates, checkpoint {outcome.out / 'checkpoint'}", file=sys.stderr)
    return 0
