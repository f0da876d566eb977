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


def run_train(args) -> int:
    if args.train_command == "eval":
        return run_eval(args)
    if args.train_command == "rl":
        return run_rl(args)
    from webmend.training import sft
    from webmend.training.env import TrainEnvMissing

    try:
        plan = sft.plan_sft(args.manifest, route=args.route, preset=args.preset, model=args.model, out=args.out,
                            overrides=sft.parse_overrides(args.overrides), fmt=args.format, launch=args.launch)
    except sft.ManifestRejected as exc:
        print(f"webmend train sft: {exc}", file=sys.stderr)
        return 1
    try:
        if plan.record.tiny_model is None and args.preset == "tiny" and not args.model:
            sft.build_tiny_model(plan)
        sft.write_plan(plan)
        if args.launch != "local":
            # A cluster job should fail here, not after its nodes start: LlamaFactory's parser checks
            # every key. Local runs skip it, since the trainer parses the same file at once.
            problems = sft.check_config(plan)
            if problems:
                print(f"webmend train sft: {plan.yaml_path}: " + "; ".join(problems), file=sys.stderr)
                return 2
        if args.launch == "print":
            sys.stdout.write(plan.yaml_path.read_text())
            return 0
        if args.launch == "script":
            print(sft.write_launch_script(plan, args.nodes, args.gpus))
            return 0
        rc = sft.run_local(plan, echo=sft.echo_stdout, threads=args.threads)
    except TrainEnvMissing as exc:
        print(f"webmend train sft: {exc}", file=sys.stderr)
        return 2
    m = plan.record.metrics
    print(f"{plan.run_dir}: {plan.record.status}, {m.steps} steps, final loss {m.final_loss}", file=sys.stderr)
    return rc


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
    reports = []
    for n, ckpt in enumerate(checkpoints):
        ckpt = replace(ckpt, label=f"{n}:{ckpt.label}")  # two runs of one route and preset stay apart
        sub = out / f"{n:02d}-{ckpt.label.split(':', 1)[1].replace('/', '-')}"
        reports.append(evaluation.evaluate_checkpoint(ckpt, items, sub, cfg, backend=args.backend,
                                                      max_new_tokens=args.max_new_tokens, api_base=args.api_base,
                                                      workers=args.workers))
    table = evaluation.write_comparison(reports, out)
    print(table, end="")
    print(json.dumps({"report": str(out / "report.md"), "checkpoints": [r["checkpoint"] for r in reports]}),
          file=sys.stderr)
    return 0


def run_rl(args) -> int:
    import json
    from pathlib import Path

    from webmend.config import load_config
    from webmend.contracts.command import items_with_contracts
    from webmend.evaluate.inputs import load_items
    from webmend.export.manifest import code_version
    from webmend.schemas.hashing import sha256_hex
    from webmend.training import rl, sft
    from webmend.training.env import TrainEnvMissing
    from webmend.training.evaluation import read_checkpoint
    from webmend.training.policy import PolicyWorker

    eval_cfg = load_config(args.config)
    if args.mode:
        eval_cfg = eval_cfg.model_copy(update={"mode": args.mode})
    items = items_with_contracts(load_items(args.tasks), args.contracts)
    tasks = [it for _, it in sorted(items.items()) if it.get("prompt")]
    options = {**rl.RL_PRESETS[args.preset], **sft.parse_overrides(args.overrides)}
    if args.updates:
        options["updates"] = args.updates
    if args.workers:
        options["workers"] = args.workers
    if isinstance(options.get("roles"), list):
        options["roles"] = tuple(options["roles"])
    cfg = rl.RlConfig(**options)
    init = read_checkpoint(args.init)
    request = json.dumps({"init": init.model, "tasks": [t["id"] for t in tasks], "cfg": rl.config_dict(cfg),
                          "eval": eval_cfg.config_hash()}, sort_keys=True, default=str)
    out = Path(args.out or f"runs/train/rl-{sha256_hex(request)[:12]}")
    try:
        with PolicyWorker(threads=args.threads) as policy:
            policy.load(init.model, lr=cfg.lr, seed=cfg.seed, clip_eps=cfg.clip_eps, kl_coef=cfg.kl_coef)
            lines = rl.train_rl(tasks, items, policy, eval_cfg, cfg, out, system=init.system_prompt)
            policy.save(str(out / "checkpoint"))
    except TrainEnvMissing as exc:
        print(f"webmend train rl: {exc}", file=sys.stderr)
        return 2
    record = {"kind": "rl", "init": init.model, "init_run": init.run_id, "system_prompt": init.system_prompt,
              "preset": args.preset, "config": rl.config_dict(cfg), "evaluator_config": eval_cfg.config_hash(),
              "tasks": [t["id"] for t in tasks], "code_version": code_version(), "updates": len(lines),
              "checkpoint": "checkpoint", "final_params": lines[-1]["params_after"] if lines else None}
    (out / "rl_run.json").write_text(json.dumps(record, indent=2, sort_keys=True, default=str) + "\n")
    for line in lines:
        print(json.dumps({"update": line["update"], "mean_reward": {k: v["mean_reward"] for k, v in line["roles"].items()},
                          "loss": [s.get("loss") for s in line["update_stats"]]}))
    print(f"{out}: {len(lines)} updates, checkpoint {out / 'checkpoint'}", file=sys.stderr)
    return 0
