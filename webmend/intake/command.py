"""`webmend prompts` and `webmend crawl`: flags to stages to DIR/{prompts,rejects}.parquet + report.json."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path


def add_prompts_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("inputs", nargs="+", help="JSONL/Parquet/JSON/TXT prompt sources: forum dumps, prompt lists, HTMLBench items, three.js files.json")
    _add_common(p)


def add_crawl_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("seeds", help="text file of start URLs, one per line")
    p.add_argument("--allow", nargs="+", required=True, metavar="HOST", help="allow-listed hosts: host, host:port or .domain")
    p.add_argument("--max-pages", type=int, help="pages to fetch at most (config crawl.max_pages)")
    p.add_argument("--delay", type=float, help="seconds between requests to one host (config crawl.delay_s)")
    _add_common(p)


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--benchmark", nargs="+", default=[], metavar="FILE", help="benchmark prompt files to decontaminate against")
    p.add_argument("--rewrite-model", help="litellm model that rewrites raw posts into direct requests")
    p.add_argument("--classify-model", help="litellm model asked the policy question for every prompt the policy rules let "
                   "through, and for the family when the family rules are unsure")
    p.add_argument("--cache-dir", help="response cache folder for the models' answers (default OUT/cache): a rerun makes no new call")
    p.add_argument("--out", required=True, help="output folder: prompts.parquet, rejects.parquet, report.json")
    p.add_argument("--config", help="intake config, TOML or JSON (docs/intake.md)")
    p.add_argument("--data-root", help="also write the prompts / prompt_rejects tables to this data root")
    p.add_argument("--run-id", help="run id on every row (default: derived from inputs and config)")


def run_prompts(args: argparse.Namespace) -> int:
    from webmend.intake.sources import iter_sources

    return _run(args, iter_sources(args.inputs), extra={"inputs_files": list(args.inputs)})


def run_crawl(args: argparse.Namespace) -> int:
    from webmend.intake.crawl import Crawler

    cfg = _config(args)
    seeds = [line.strip() for line in Path(args.seeds).read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    crawler = Crawler(args.allow, cfg.crawl)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    code = _run(args, crawler.crawl(seeds), cfg=cfg, extra=lambda: _crawl_summary(crawler, out))
    return code


def _crawl_summary(crawler, out: Path) -> dict:
    from collections import Counter

    log_path = out / "crawl_log.jsonl"
    tmp = log_path.with_name(f".{log_path.name}.tmp-{os.getpid()}")
    tmp.write_text("".join(json.dumps(row) + "\n" for row in crawler.log_rows()), encoding="utf-8")
    os.replace(tmp, log_path)
    reasons = Counter(f"{e.action}:{(e.reason or '').split(' ->')[0]}" for e in crawler.log)
    return {"crawl": {"log": str(log_path), "urls": len(crawler.log), "by_outcome": dict(sorted(reasons.items()))}}


def _config(args):
    from webmend.intake.config import load_intake_config

    cfg = load_intake_config(args.config)
    crawl = {k: v for k, v in (("max_pages", getattr(args, "max_pages", None)), ("delay_s", getattr(args, "delay", None))) if v is not None}
    return cfg.model_copy(update={"crawl": cfg.crawl.model_copy(update=crawl)}) if crawl else cfg


def _run(args, raws, *, cfg=None, extra=None) -> int:
    from webmend.intake.decontam import Decontaminator, load_benchmarks
    from webmend.intake.output import write_outputs
    from webmend.intake.pipeline import Intake, run_intake

    cfg = cfg or _config(args)
    decontaminator = None
    if args.benchmark:
        decontaminator = Decontaminator(load_benchmarks(args.benchmark), cfg.dedup, cfg.decontam)
    cache_dir = args.cache_dir or Path(args.out) / "cache"
    classifier = _model(args.classify_model, cache_dir)
    intake = Intake(cfg, decontaminator=decontaminator, rewrite=_model(args.rewrite_model, cache_dir),
                    classify_llm=classifier, policy_llm=classifier)
    result = run_intake(raws, intake)
    more = extra() if callable(extra) else dict(extra or {})
    more["benchmark_files"] = list(args.benchmark)
    report = write_outputs(result, cfg, args.out, run_id=args.run_id, data_root=args.data_root, extra_report=more)
    print(json.dumps({k: report[k] for k in ("inputs", "kept", "rejected", "rejected_by_reason", "kept_by_family")}, indent=2))
    print(f"prompts: {Path(args.out) / 'prompts.parquet'}", file=sys.stderr)
    return 0


def _model(name: str | None, cache_dir):
    if not name:
        return None
    from webmend.llm.cache import ResponseCache
    from webmend.llm.complete import litellm_complete

    return litellm_complete(name, cache=ResponseCache(cache_dir))
