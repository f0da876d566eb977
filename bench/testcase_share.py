"""Test cases with the same timeline sharing one document (evaluate/testcase_share.py): what it saves
and whether any record changes, on the bench corpus, against a document per case in the same run.

For each page, its test cases alone (no experience protocol) run twice on a warm worker, one
page at a time: first with a document per case, then with sharing on. Prints per page the fresh
documents loaded (and how many sharing planned: more were loaded when a case's JavaScript would
have changed the page and went back to a document of its own), the CPU seconds of the whole
process tree (Chromium, the Playwright driver, this process) and wall seconds each way, and
whether the records are identical; then the totals and their ratios, and every page whose records
differ.

    .venv/bin/python bench/testcase_share.py [--family F] [PAGE_ID ...]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from evaluator_process_split import Split  # noqa: E402

from webmend.config import EvalConfig  # noqa: E402
from webmend.evaluate.inputs import load_items  # noqa: E402

BENCH = ROOT / "data" / "bench"


def run_cases_once(worker, cfg: EvalConfig, html: str, cases: list) -> dict:
    """The page's test cases on one session: records, fresh documents, CPU and wall seconds."""
    from webmend.evaluate.page import PageBudget, page_profile, page_shared
    from webmend.evaluate.testcase_share import run_cases
    from webmend.browser.session import PageSession

    profile = page_profile(html)
    shared = page_shared(html, cfg, PageBudget(time.monotonic(), cfg.limits, len(cases)), profile)

    async def job(browser):
        shared.policy.mirror_port = worker.mirror_port(browser)
        session = PageSession(browser, shared)
        try:
            await session.open()
            return await run_cases(session, cases, {})
        finally:
            await session.close()

    started = time.perf_counter()
    with Split() as split:
        records = worker.run(job, wall_s=900, profile=profile)
    return {"records": records, "loads": shared.policy.log.page_loads, "cpu_s": sum(split.by_kind().values()),
            "wall_s": time.perf_counter() - started}


def main() -> None:
    from webmend.browser.worker import get_worker
    from webmend.evaluate.testcase_share import share_groups

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pages", nargs="*", help="bench page ids (default: every page)")
    ap.add_argument("--family", help="only this family's pages")
    args = ap.parse_args()
    items = load_items(BENCH / "items.jsonl")
    pages = args.pages or sorted(i for i, it in items.items() if not args.family or it.get("category") == args.family)
    cfg = EvalConfig(mode="fast")
    alone_cfg = cfg.model_copy(update={"share_observation_documents": False})
    worker = get_worker(cfg)
    totals = {"alone": [0, 0.0, 0.0], "shared": [0, 0.0, 0.0]}
    differ = []
    for page_id in pages:
        html = (BENCH / "pages" / f"{page_id}.html").read_text(encoding="utf-8")
        cases = items[page_id]["test_cases"]
        runs = {"alone": run_cases_once(worker, alone_cfg, html, cases), "shared": run_cases_once(worker, cfg, html, cases)}
        for arm, run in runs.items():
            totals[arm] = [totals[arm][0] + run["loads"], totals[arm][1] + run["cpu_s"], totals[arm][2] + run["wall_s"]]
        same = runs["alone"]["records"] == runs["shared"]["records"]
        if not same:
            differ.append({"page": page_id, "cases": [
                [a["id"], a["passed"], a["error"], b["passed"], b["error"]]
                for a, b in zip(runs["alone"]["records"], runs["shared"]["records"]) if a != b]})
        planned = len(cases) - sum(len(g) - 1 for g in share_groups(cases, {}, cfg.limits.max_wait_ms).values())
        print(json.dumps({"page": page_id, "cases": len(cases), "identical": same, "planned_loads_shared": planned,
                          **{f"{k}_{arm}": round(r[k], 2) for arm, r in runs.items() for k in ("loads", "cpu_s", "wall_s")}}))
    (la, ca, wa), (ls, cs, ws) = totals["alone"], totals["shared"]
    print(json.dumps({"pages": len(pages), "loads": [la, ls], "cpu_s": [round(ca, 1), round(cs, 1)],
                      "wall_s": [round(wa, 1), round(ws, 1)], "loads_ratio": round(ls / max(la, 1), 3),
                      "cpu_ratio": round(cs / max(ca, 1e-9), 3), "wall_ratio": round(ws / max(wa, 1e-9), 3),
                      "pages_with_different_records": len(differ)}))
    for d in differ:
        print(json.dumps(d))


if __name__ == "__main__":
    main()
