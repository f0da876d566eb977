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


def run_train(args) -> int:
    if args.train_command == "eval":
        return run_eval(args)
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
