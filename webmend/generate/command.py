"""`webmend generate`: build the client, cache and data root from the CLI flags and run generation."""

from __future__ import annotations

import argparse
import json
import sys
import time
import uuid
from pathlib import Path

from webmend.llm.settings import add_settings_arguments, settings_from_args
from webmend.stage.progress import terminal_report

DEFAULT_OUT = "out/generate"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("prompts", help="prompts: JSONL of {id, prompt} (HTMLBench items work) or a prompts .parquet")
    p.add_argument("--model", required=True, help="litellm model string, e.g. openai/gpt-4o-mini, hosted_vllm/NAME")
    p.add_argument("--samples", type=int, default=1, help="samples per prompt and temperature (ids P, P#1, P#2, ...)")
    p.add_argument("--temperatures", type=float, nargs="+", help="sample at each of these temperatures")
    p.add_argument("--out", default=DEFAULT_OUT, help="output folder (responses.jsonl, summary.json)")
    p.add_argument("--cache-dir", help="response cache folder (default OUT/cache); share it to share answers")
    p.add_argument("--data-root", help="data root for the generations table (default: OUT)")
    p.add_argument("--run-id", help="run id recorded on every row (default: time-based)")
    add_settings_arguments(p)  # --max-tokens, --seed, --workers, --rpm, --tpm, spend cap, --timeout, --max-retries


def run_command(args: argparse.Namespace) -> int:
    # Imported here: litellm takes seconds to import, other subcommands should not pay for it.
    from webmend.generate.prompts import load_prompts
    from webmend.generate.run import run_generation
    from webmend.generate.samples import GenerationConfig
    from webmend.llm.cache import ResponseCache
    from webmend.store import DataRoot

    settings = settings_from_args(args)
    cfg = GenerationConfig.from_settings(args.model, settings, args.samples, args.temperatures)
    prompts = load_prompts(args.prompts)
    out = Path(args.out)
    summary = run_generation(
        prompts, cfg, settings.client(args.model), out, cache=ResponseCache(args.cache_dir or out / "cache"),
        data_root=DataRoot(args.data_root or out), run_id=args.run_id or _run_id(),
        workers=settings.workers, report=terminal_report(),
    )
    print(json.dumps(summary, indent=2))
    print(f"responses: {summary['responses']}", file=sys.stderr)
    stopped = summary["stopped"] or {}
    return 1 if stopped.get("by") == "auth" else 0


def _run_id() -> str:
    return f"gen-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{uuid.uuid4().hex[:6]}"
