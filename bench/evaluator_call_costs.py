"""What the evaluator's recurring browser calls cost, per call, on one warm worker.

A page's evaluation is a few hundred of a handful of calls (fresh loads, frame waits, captures,
Playwright locators); this prints each one's CPU (whole process tree) and wall per call, and its
CPU as a ratio of a trivial document's fresh load measured in the same run (the baseline: what any
document costs before the page's own work). Issue 13 uses it to say which lever can still pay.

    .venv/bin/python bench/evaluator_call_costs.py [--calls N] [PAGE_ID ...]   (default: QUICK_PAGES minus 3D)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from evaluator_process_split import BENCH, Split  # noqa: E402
from evaluator_throughput import QUICK_PAGES  # noqa: E402

from webmend.browser.session import PageSession  # noqa: E402
from webmend.config import EvalConfig  # noqa: E402
from webmend.evaluate.page import PageBudget, page_profile, page_shared  # noqa: E402

TRIVIAL = "<!doctype html><html><head><title>t</title></head><body><h1>Hello</h1><button>x</button></body></html>"
JPEG = {"format": "jpeg", "quality": 80, "optimizeForSpeed": True}


def with_load_ms(cfg: EvalConfig, load_ms: int) -> EvalConfig:
    return cfg.model_copy(update={"limits": cfg.limits.model_copy(update={"load_ms": load_ms})})


async def measure(s: PageSession, calls: int) -> dict[str, tuple[float, float]]:
    """{call: (CPU-ms, wall ms) per call}. Fresh loads go to new origins, as test cases do; each
    locator pair runs on a fresh document (Playwright injects its selector engine on first use)."""
    acc: dict[str, list[float]] = {}

    async def timed(name: str, coro) -> None:
        started = time.perf_counter()
        with Split() as split:
            await coro
        cpu, wall = acc.setdefault(name, [0.0, 0.0])
        acc[name] = [cpu + sum(split.by_kind().values()), wall + time.perf_counter() - started]

    for i in range(calls):
        await timed("fresh load", s.load(100 + i))
        await timed("first locator use", s.page.locator("h1").count())
        await timed("locator again", s.page.locator("h1").count())
        await timed("frame wait", s._settle_frames())
        await timed("capture (jpeg)", s._capture(JPEG))
        await timed("thumbnail", s.thumb())
        await timed("advance 100 ms", s.advance(100))
    return {k: (1000 * cpu / calls, 1000 * wall / calls) for k, (cpu, wall) in acc.items()}


def run_page(worker, html: str, cfg: EvalConfig, calls: int) -> dict[str, tuple[float, float]]:
    profile = page_profile(html)
    shared = page_shared(html, cfg, PageBudget(time.monotonic(), cfg.limits, calls * 4), profile)

    async def job(browser):
        shared.policy.mirror_port = worker.mirror_port(browser)
        session = PageSession(browser, shared)
        try:
            await session.open()
            await session.load(1)  # the tab and renderer are warm before anything is counted
            await asyncio.sleep(0.2)
            return await measure(session, calls)
        finally:
            await session.close()

    return worker.run(job, wall_s=600, profile=profile)


def main() -> None:
    from webmend.browser.worker import get_worker

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pages", nargs="*", help="bench page ids (default: the typical page of each non-3D family)")
    ap.add_argument("--calls", type=int, default=12, help="calls of each kind per page")
    args = ap.parse_args()
    pages = args.pages or [p for fam, p in QUICK_PAGES.items() if fam != "three_d_webgl"]
    cfg = EvalConfig(mode="fast")
    worker = get_worker(cfg)
    baseline = run_page(worker, TRIVIAL, cfg, args.calls)
    base_ms = baseline["fresh load"][0] or 1.0
    rows = [("trivial", baseline)]
    for page_id in pages:
        html = (BENCH / "pages" / f"{page_id}.html").read_text(encoding="utf-8")
        costs = run_page(worker, html, cfg, args.calls)
        costs["fresh load, load_ms 0"] = run_page(worker, html, with_load_ms(cfg, 0), args.calls)["fresh load"]
        rows.append((page_id, costs))
    for page_id, costs in rows:
        print(json.dumps({"page": page_id, "calls": args.calls, "per_call": {
            k: {"cpu_ms": round(cpu, 1), "wall_ms": round(wall, 1), "cpu_vs_trivial_load": round(cpu / base_ms, 2)}
            for k, (cpu, wall) in costs.items()}}))


if __name__ == "__main__":
    main()
