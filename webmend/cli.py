"""webmend command line. Flags and output files are a contract: see docs/cli.md."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path

from webmend.config import load_config
from webmend.contracts.command import add_contract_arguments
from webmend.export.command import add_export_arguments, add_manifest_arguments
from webmend.training.command import add_train_arguments
from webmend.generate.command import add_arguments as add_generate_arguments
from webmend.intake.command import add_crawl_arguments, add_prompts_arguments
from webmend.schemas.vocab import STATES
from webmend.stage.signals import ending_children


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="webmend", description="Experience, score and repair LLM-written HTML pages.")
    p.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = p.add_subparsers(dest="command", required=True)

    ev = sub.add_parser("evaluate", help="evaluate pages and/or raw model answers")
    ev.add_argument("pages", nargs="*", help="HTML files or folders of them (id = relative path without extension)")
    ev.add_argument("--responses", help='JSONL of {"id", "prompt"?, "response"} raw model answers')
    ev.add_argument("--tests", help="HTMLBench-format items (JSONL), matched to pages by id")
    ev.add_argument("--contracts", nargs="+", help="task contracts (.json, .jsonl or folders), matched to pages as items are")
    ev.add_argument("--mode", choices=("fast", "full"), default=None, help="fast: no judge (default); full: the visual judge")
    ev.add_argument("--judge-model", help="PROVIDER/MODEL for --mode full, as litellm names it (e.g. openai/gpt-4o)")
    ev.add_argument("--out", default="out/evaluate", help="output folder (results.jsonl, summary.json)")
    ev.add_argument("--workers", type=int, default=1, help="browser worker processes")
    ev.add_argument("--config", help="TOML or JSON config file (see docs/config.md)")
    ev.add_argument("--data-root", help="also write the trace tables here (folder or fsspec URL) for `webmend sql`")

    rp = sub.add_parser("repair", help="repair pages: operators, then a model's patches/rewrites, regression-checked")
    rp.add_argument("pages", nargs="*", help="HTML files or folders of them (ids as for evaluate)")
    rp.add_argument("--responses", help='JSONL of {"id", "prompt"?, "response"} raw model answers')
    rp.add_argument("--tests", help="HTMLBench-format items (JSONL): the test cases every candidate must keep passing")
    rp.add_argument("--contracts", nargs="+", help="task contracts (as for evaluate): their passing transitions are kept too")
    rp.add_argument("--from", dest="from_dir", help="an evaluate --out folder: its records are the originals' verdicts")
    rp.add_argument("--model", help="PROVIDER/MODEL that writes patches and rewrites (litellm string)")
    rp.add_argument("--judge-model", help="PROVIDER/MODEL (vision) that compares keyframes before/after each candidate")
    rp.add_argument("--no-llm", action="store_true", help="deterministic operators only (the default without --model)")
    rp.add_argument("--rounds", type=int, help="rounds per page at most (default 8)")
    rp.add_argument("--bands", nargs="+", choices=STATES, help="repair only pages in these bands")
    rp.add_argument("--out", default="out/repair", help="output folder (repairs.jsonl, pages/, summary.json, report.html)")
    rp.add_argument("--workers", type=int, default=1, help="browser worker processes")
    rp.add_argument("--config", help="repair config file, TOML or JSON (docs/repair.md); [evaluation] is the evaluator's")
    rp.add_argument("--data-root", help="also write the repair_attempts and checkpoints tables here, for `webmend sql`")
    rp.add_argument("--max-cost", type=float, help="spend cap: USD per worker process")
    rp.add_argument("--max-total-tokens", type=int, help="spend cap: tokens per worker process")
    rp.add_argument("--timeout", type=float, default=600.0, help="seconds per model call before it is retried")
    rp.add_argument("--max-retries", type=int, default=5, help="retries of one call on 429/5xx/timeouts")

    rs = sub.add_parser("rescore", help="recompute scores from stored evidence, without a browser")
    rs.add_argument("dir", help="an evaluate output folder")
    rs.add_argument("--config", help="config whose scoring settings to apply")

    sq = sub.add_parser("sql", help="query the trace tables of a data root with DuckDB (docs/queries.md)")
    sq.add_argument("query", nargs="?", help='SQL over the tables as views, e.g. "SELECT count(*) FROM evaluations"')
    sq.add_argument("--root", default="runs/data", help="data root: a folder or fsspec URL (default runs/data)")
    sq.add_argument("--format", choices=("table", "json", "csv"), default="table", help="output format")
    sq.add_argument("--example", help="run a shipped example query by name instead (see docs/queries.md)")
    sq.add_argument("--save-db", nargs="?", const="", metavar="PATH",
                    help="also write a DuckDB file with the views (default ROOT/webmend.duckdb)")

    gen = sub.add_parser("generate", help="generate pages for prompts through litellm (docs/generation.md)")
    add_generate_arguments(gen)

    pr = sub.add_parser("prompts", help="filter, dedup and decontaminate prompt sources (docs/intake.md)")
    add_prompts_arguments(pr)
    cr = sub.add_parser("crawl", help="crawl allow-listed sites politely for task prompts (docs/intake.md)")
    add_crawl_arguments(cr)
    ex = sub.add_parser("export", help="export gated SFT corpora (raw, filtered, refined) with a manifest (docs/export.md)")
    add_export_arguments(ex)
    mf = sub.add_parser("manifest", help="check an export manifest (docs/export.md)")
    add_manifest_arguments(mf)
    ct = sub.add_parser("contract", help="build, execute and filter interaction contracts (docs/icg-format.md)")
    add_contract_arguments(ct)
    tr = sub.add_parser("train", help="train on an exported corpus: LlamaFactory SFT (docs/training.md)")
    add_train_arguments(tr)
    sub.add_parser("stages", help="list the pipeline's stages with the tables they read and write (docs/architecture.md)")
    md = sub.add_parser("model", help="check that a model answers in the formats the stages need (docs/models.md)")
    mc = md.add_subparsers(dest="model_command", required=True).add_parser(
        "check", help="ask the stages' own prompts for a tiny task; read the answers with their own parsers")
    mc.add_argument("--model", help="PROVIDER/MODEL for generation, repair and contracts (litellm string)")
    mc.add_argument("--judge-model", help="PROVIDER/MODEL of a vision model for the visual judge")
    mc.add_argument("--timeout", type=float, default=600.0, help="seconds per call before it is retried")
    mc.add_argument("--max-retries", type=int, default=2, help="retries of one call on 429/5xx/timeouts")
    mc.add_argument("--max-tokens", type=int, default=8000, help="answer budget per call")
    return p


def cmd_evaluate(args) -> int:
    from webmend.evaluate.inputs import iter_pages, iter_responses, load_items
    from webmend.evaluate.run import RESULTS, iter_records, run_evaluation
    from webmend.evaluate.traces import write_results_traces
    from webmend.evaluate.inputs import match_item
    from webmend.evaluate.inputs import input_hash
    from webmend.pool.batches import batch_hash
    from webmend.stage.progress import terminal_report

    if not args.pages and not args.responses:
        print("webmend evaluate: give PAGES and/or --responses FILE", file=sys.stderr)
        return 2
    if args.responses and not Path(args.responses).is_file():
        print(f"webmend evaluate: --responses {args.responses}: no such file", file=sys.stderr)
        return 2
    cfg = load_config(args.config)
    if args.mode:
        cfg = cfg.model_copy(update={"mode": args.mode})
    if cfg.mode == "full":
        judge = cfg.judge.model_copy(update={
            "model": args.judge_model or cfg.judge.model,
            "cache_dir": cfg.judge.cache_dir or str(Path(args.out) / "judge-cache"),
        })
        if not judge.model:
            print("webmend evaluate: --mode full needs --judge-model PROVIDER/MODEL (or judge.model in the config)", file=sys.stderr)
            return 2
        cfg = cfg.model_copy(update={"judge": judge})
        from webmend.evaluate.judging import get_judge

        try:
            get_judge(cfg)  # a model string litellm cannot place is a configuration error: fail now
        except ValueError as exc:
            print(f"webmend evaluate: {exc}", file=sys.stderr)
            return 2
    items = load_items(args.tests)
    if args.contracts:
        from webmend.contracts.command import items_with_contracts

        try:
            items = items_with_contracts(items, args.contracts)
        except (ValueError, FileNotFoundError) as exc:
            print(f"webmend evaluate: --contracts: {exc}", file=sys.stderr)
            return 2
    hashes: list[str] = []  # input hash per input index, for the trace tables
    key_hashes: list[str] = []  # what names each input in the batch keys (with its contract's hash)

    def inputs():
        n = 0
        for raw in iter_pages(args.pages):
            n = raw.index + 1
            yield raw
        if args.responses:
            yield from iter_responses(args.responses, start=n)

    def hashed(stream):
        for raw in stream:
            hashes.append(input_hash(raw))
            key_hashes.append(batch_hash(hashes[-1], match_item(items, raw.id)))
            yield raw

    stream = hashed(inputs()) if args.data_root else inputs()
    summary = run_evaluation(stream, items, cfg, args.out, workers=max(1, args.workers), report=terminal_report(),
                             total=sum(1 for _ in inputs()))
    print(json.dumps({k: summary[k] for k in ("pages", "pages_by_status", "pages_by_state", "mean_score", "weighted_pass_rate")}, indent=2))
    print(f"results: {Path(args.out) / 'results.jsonl'}", file=sys.stderr)
    if args.data_root:
        from webmend.evaluate.traces import input_fields

        fields = (input_fields(raw, match_item(items, raw.id), cfg.min_page_chars) for raw in inputs())
        written = write_results_traces(iter_records(Path(args.out) / RESULTS), hashes, args.data_root, cfg.config_hash(),
                                       fields=fields, key_hashes=key_hashes)
        print(f"traces: {args.data_root} (run {written['run_id']}: {written['written']} batches written, "
              f"{written['skipped']} already there)", file=sys.stderr)
    return 0


def cmd_repair(args) -> int:
    from webmend.repair.command import run_repair_command

    attach = None
    if args.contracts:
        from webmend.contracts.command import items_with_contracts

        def attach(items: dict) -> dict:
            return items_with_contracts(items, args.contracts)
    return run_repair_command(args, attach)


def cmd_rescore(args) -> int:
    from webmend.evaluate.rescore import rescore_dir

    summary = rescore_dir(Path(args.dir), load_config(args.config))
    print(json.dumps({k: summary[k] for k in ("pages", "mean_score", "pages_by_state")}, indent=2))
    return 0


def cmd_sql(args) -> int:
    import duckdb

    from webmend.store import DataRoot
    from webmend.store.duckdb_views import build_database, example_queries, format_result, run_query

    root = DataRoot(args.root)
    if args.save_db is not None:
        print(f"database: {build_database(root, args.save_db or None)}", file=sys.stderr)
    query = args.query
    if args.example:
        examples = example_queries()
        if args.example not in examples:
            raise ValueError(f"no example {args.example!r}; examples: {', '.join(examples)}")
        query = examples[args.example]
    if not query:
        if args.save_db is not None:
            return 0
        raise ValueError("give a QUERY, --example NAME or --save-db")
    try:
        columns, rows = run_query(root, query)
    except duckdb.Error as exc:  # a bad query is the user's to fix: no traceback
        print(f"webmend sql: {exc}", file=sys.stderr)
        return 1
    print(format_result(columns, rows, args.format))
    return 0


def cmd_generate(args) -> int:
    from webmend.generate.command import run_command

    return run_command(args)


def cmd_prompts(args) -> int:
    from webmend.intake.command import run_prompts

    return run_prompts(args)


def cmd_crawl(args) -> int:
    from webmend.intake.command import run_crawl

    return run_crawl(args)


def cmd_export(args) -> int:
    from webmend.export.command import run_export

    return run_export(args)


def cmd_contract(args) -> int:
    from webmend.contracts.command import run_contract

    return run_contract(args)


def cmd_manifest(args) -> int:
    from webmend.export.command import run_manifest

    return run_manifest(args)


def cmd_train(args) -> int:
    from webmend.training.command import run_train

    return run_train(args)


def cmd_stages(args) -> int:
    from webmend.pool.stages import PIPELINE
    from webmend.stage.spec import render_markdown

    print(render_markdown(list(PIPELINE)), end="")
    return 0


def cmd_model(args) -> int:
    from webmend.model_check import run_command

    return run_command(args)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    handler = {"evaluate": cmd_evaluate, "repair": cmd_repair, "rescore": cmd_rescore, "sql": cmd_sql, "generate": cmd_generate,
               "prompts": cmd_prompts, "crawl": cmd_crawl, "export": cmd_export, "manifest": cmd_manifest,
               "contract": cmd_contract, "train": cmd_train, "model": cmd_model, "stages": cmd_stages}[args.command]
    try:
        with ending_children():  # SIGTERM/SIGINT end the run's workers and browsers too
            return handler(args)
    except (ValueError, FileNotFoundError) as exc:
        print(f"webmend {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
