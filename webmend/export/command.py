"""`webmend export` and `webmend manifest verify` (docs/cli.md, docs/export.md)."""

from __future__ import annotations

import json
import sys

from webmend.schemas.corpus import ROUTES


def add_export_arguments(p) -> None:
    p.add_argument("--data-root", default="runs/data", help="trace tables: a folder or fsspec URL (default runs/data)")
    p.add_argument("--routes", default=",".join(ROUTES), help="comma-separated: raw, filtered, refined (default all)")
    p.add_argument("--equal-size", type=int, help="N rows per route, stratified by family (seeded)")
    p.add_argument("--seed", type=int, help="seed of the equal-size sampling (default 0)")
    p.add_argument("--out", help="export folder or fsspec URL (default ROOT/corpus); versions go under it")
    p.add_argument("--config", help="export config file, TOML or JSON (docs/export.md)")
    p.add_argument("--benchmark", action="append", default=[], help="benchmark file for the decontamination re-check (repeatable)")
    p.add_argument("--run", dest="runs", action="append", help="read only this evaluation run (repeatable; default all)")
    p.add_argument("--min-score", type=float, help="the refined gate's score (default 80)")


def add_manifest_arguments(p) -> None:
    sub = p.add_subparsers(dest="manifest_command", required=True)
    v = sub.add_parser("verify", help="check a manifest's schema and re-hash every file it lists")
    v.add_argument("manifest", help="manifest.json (or its folder): a path or fsspec URL")


def run_export(args) -> int:
    from webmend.export.config import load_export_config
    from webmend.export.run import ExportBlocked, export_corpus

    routes = tuple(r.strip() for r in args.routes.split(",") if r.strip())
    cfg = load_export_config(args.config, routes=routes, equal_size=args.equal_size, seed=args.seed)
    if args.min_score is not None:
        data = cfg.model_dump()
        data["gate"]["min_score"] = args.min_score
        cfg = type(cfg).model_validate(data).check()  # validated: model_copy would skip the bounds
    try:
        outcome = export_corpus(args.data_root, args.out, cfg, args.benchmark, args.runs)
    except ExportBlocked as exc:
        print(f"webmend export: {exc}", file=sys.stderr)
        print(f"gate data docs: {exc.docs}", file=sys.stderr)
        return 1
    except RuntimeError as exc:  # the tables changed under the export (a page gone): nothing was published
        print(f"webmend export: {exc}", file=sys.stderr)
        return 1
    print(json.dumps({"status": outcome.status, "version": outcome.version, "manifest": outcome.manifest,
                      "rows": outcome.rows}, indent=2))
    return 0


def run_manifest(args) -> int:
    from webmend.export.manifest import verify_manifest

    problems = verify_manifest(args.manifest)
    for problem in problems:
        print(f"webmend manifest verify: {problem}", file=sys.stderr)
    if not problems:
        print(f"{args.manifest}: verified")
    return 1 if problems else 0
