"""Contract execution cost: the hand-written tasks (data/contracts/TASK/) on their reference pages,
with shared prefixes (the depth-first walk continues on the live document) against the baseline
that replays every transition's chain from a fresh load.

Per task and mode it runs `execute_contract` on each reference page `--repeat` times on one warm
browser (a first unmeasured run warms it) and prints, as JSON:

* `s_per_contract`: median wall seconds of one contract on one page;
* `transitions_per_s`: the contract's transitions (each counted once) per wall second;
* `documents`, `transitions_run`: fresh loads and transition executions (replays included);
* `speedup`: unshared s_per_contract / shared, per task and over all tasks (total seconds);
* `same_results`: whether both modes gave identical outcomes on every page (they must).

    .venv/bin/python bench/contracts.py [--repeat 3] [--task todo_list]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from webmend.browser.worker import BrowserWorker
from webmend.config import EvalConfig
from webmend.evaluate.contract_run import execute_contract

TASKS_DIR = Path(__file__).resolve().parents[1] / "data" / "contracts"


def _outcomes(run) -> dict:
    d = run.to_dict()
    return {k: v for k, v in d.items() if k not in ("documents", "transitions_run")}


def measure(task: Path, worker: BrowserWorker, cfg: EvalConfig, repeat: int) -> dict:
    contract = json.loads((task / "contract.json").read_text())
    pages = sorted((task / "refs").glob("*.html"))
    n = len(contract["transitions"])
    out, results = {"transitions": n, "pages": len(pages)}, {}
    for share in (True, False):
        times, docs, runs = [], [], []
        for page in pages:
            html = page.read_text()
            execute_contract(html, contract, cfg, worker=worker, share_prefixes=share)  # warm-up
            for _ in range(repeat):
                t0 = time.perf_counter()
                run = execute_contract(html, contract, cfg, worker=worker, share_prefixes=share)
                times.append(time.perf_counter() - t0)
            docs.append(run.documents)
            runs.append(run.transitions_run)
            results.setdefault(page.name, []).append(_outcomes(run))
        median = statistics.median(times)
        out["shared" if share else "unshared"] = {
            "s_per_contract": round(median, 3), "transitions_per_s": round(n / median, 2),
            "documents": round(statistics.mean(docs), 2), "transitions_run": round(statistics.mean(runs), 2),
            "total_s": round(sum(times), 3),
        }
    out["speedup"] = round(out["unshared"]["s_per_contract"] / out["shared"]["s_per_contract"], 2)
    out["same_results"] = all(a == b for a, b in results.values())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--task", action="append", help="only these tasks (default: every task with refs/)")
    args = ap.parse_args()
    tasks = [p for p in sorted(TASKS_DIR.iterdir()) if (p / "refs").is_dir() and (not args.task or p.name in args.task)]
    cfg = EvalConfig()
    worker = BrowserWorker(cfg)
    try:
        report = {t.name: measure(t, worker, cfg, args.repeat) for t in tasks}
    finally:
        worker.close()
    shared = sum(r["shared"]["total_s"] for r in report.values())
    unshared = sum(r["unshared"]["total_s"] for r in report.values())
    report["all"] = {"shared_total_s": round(shared, 2), "unshared_total_s": round(unshared, 2),
                     "speedup": round(unshared / shared, 2) if shared else None,
                     "same_results": all(r["same_results"] for r in report.values())}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
