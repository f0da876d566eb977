"""`webmend repair`: check every argument before any work starts, then run the repair stage.

Bad arguments (a missing --from folder, items that match no page, an unknown model string, a model
together with --no-llm) exit with status 2 and one line saying what is wrong.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from webmend.config import RepairConfig, load_model_config
from webmend.evaluate.inputs import iter_pages, iter_responses, load_items, match_item
from webmend.stage.progress import terminal_report

DEFAULT_OUT = "out/repair"


class UsageError(ValueError):
    pass


def repair_config(args: argparse.Namespace) -> RepairConfig:
    rcfg = load_model_config(args.config, RepairConfig)
    update = {}
    if args.rounds is not None:
        update["max_rounds"] = args.rounds
    if args.bands:
        update["bands"] = tuple(args.bands)
    return rcfg.model_validate({**rcfg.model_dump(), **update}) if update else rcfg


def model_spec(args: argparse.Namespace, out: Path):
    if args.model and args.no_llm:
        raise UsageError("--model and --no-llm contradict each other")
    if not args.model:
        return None
    return _spec(args.model, args, out)


def judge_spec(args: argparse.Namespace, out: Path):
    if args.judge_model and not args.model:
        raise UsageError("--judge-model compares a model's candidates: give --model too")
    return _spec(args.judge_model, args, out) if args.judge_model else None


def _spec(model: str, args: argparse.Namespace, out: Path):
    from webmend.llm.client import provider_of
    from webmend.llm.settings import GenerationSettings
    from webmend.repair.run import ModelSpec

    provider_of(model)  # ValueError for a model string litellm cannot place
    settings = GenerationSettings(max_cost=args.max_cost, max_total_tokens=args.max_total_tokens,
                                  timeout=args.timeout, max_retries=args.max_retries, workers=1)
    return ModelSpec(model, settings.model_dump_json(), str(out / "llm-cache"))


def read_inputs(args: argparse.Namespace) -> list:
    if not args.pages and not args.responses:
        raise UsageError("give PAGES and/or --responses FILE")
    if args.responses and not Path(args.responses).is_file():
        raise UsageError(f"--responses {args.responses}: no such file")
    inputs = list(iter_pages(args.pages))
    if args.responses:
        inputs += list(iter_responses(args.responses, start=len(inputs)))
    return inputs


def check_matches(inputs: list, items: dict, evaluations: dict, args: argparse.Namespace) -> None:
    if items and not any(match_item(items, raw.id) for raw in inputs):
        raise UsageError(f"--tests/--contracts: no item matches any page id (ids: {[r.id for r in inputs[:5]]} ...)")
    if args.from_dir and not any(raw.id in evaluations for raw in inputs):
        raise UsageError(f"--from {args.from_dir}: no stored evaluation has the id of any page")


def run_repair_command(args: argparse.Namespace, attach_contracts: Callable[[dict], dict] | None = None) -> int:
    """attach_contracts: the items with their tasks' contracts attached (the CLI wires the
    contracts stage in; repair only reads what an item carries)."""
    from webmend.repair.run import load_evaluations, run_repair

    out = Path(args.out)
    try:
        rcfg = repair_config(args)
        spec = model_spec(args, out)
        judge = judge_spec(args, out)
        inputs = read_inputs(args)
        items = load_items(args.tests)
        if attach_contracts is not None:
            try:
                items = attach_contracts(items)
            except (ValueError, FileNotFoundError) as exc:
                raise UsageError(f"--contracts: {exc}") from None
        evaluations = load_evaluations(args.from_dir)
        check_matches(inputs, items, evaluations, args)
    except UsageError as exc:
        print(f"webmend repair: {exc}", file=sys.stderr)
        return 2
    summary = run_repair(inputs, items, evaluations, rcfg, out, model=spec, workers=max(1, args.workers),
                         report=terminal_report(), data_root=args.data_root,
                         judge=judge, frames_from=args.from_dir)
    from webmend.repair.report import write_report

    write_report(out)
    keys = ("pages", "mean_score_before", "mean_score_after", "pages_up_a_band", "accepted", "llm_calls", "stop_reasons")
    print(json.dumps({k: summary[k] for k in keys}, indent=2))
    print(f"repairs: {out / 'repairs.jsonl'}; report: {out / 'report.html'}", file=sys.stderr)
    return 0
