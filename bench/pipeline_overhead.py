"""Orchestration overhead of build-refined-pool: the same corpus evaluated directly (`webmend
evaluate`, its own process pool) and through the flow (Prefect + a local Dask cluster, traces
written to a data root), plus the flow's speed-up from one to two Dask workers.

    .venv/bin/python bench/pipeline_overhead.py --pages 200          # the target size
    .venv/bin/python bench/pipeline_overhead.py --pages 20 --json out/bench/pipeline.json

The corpus is the bundled sample answers repeated to --pages with distinct ids (`P#k#rN`, which
still match their prompt's test item). Both paths run as fresh processes against the same inputs
and config, so interpreter and library start-up count on both sides; the flow also pays for the
Prefect server round trips, the Dask cluster start and the Parquet writes. The Prefect server
(a local one, temporary PREFECT_HOME) is started before timing: it is infrastructure, not a run.
overhead share = (flow wall - direct wall) / flow wall, at the same number of workers; on a shared
machine whose load changes between the runs, compare busy shares instead (the part of the workers'
wall time spent inside page evaluations, from the records' elapsed_s): overhead_share_busy =
direct busy share - flow busy share. Each run also reports the mean load average it ran under.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from webmend.flows.local import local_server, prefect_env  # noqa: E402
from webmend.store.duckdb_views import run_query  # noqa: E402

SAMPLES = ROOT / "data" / "samples"
BIN = Path(sys.executable).parent


def build_corpus(n: int, path: Path) -> Path:
    """The sample answers repeated to n lines, ids made distinct from the second round on."""
    lines = [json.loads(line) for line in (SAMPLES / "responses.jsonl").read_text().splitlines() if line.strip()]
    out = []
    for i in range(n):
        rec = dict(lines[i % len(lines)])
        if i >= len(lines):
            rec["id"] = f"{rec['id']}#r{i // len(lines)}"
        out.append(json.dumps(rec))
    path.write_text("\n".join(out) + "\n")
    return path


def timed(cmd: list[str], env: dict | None, log: Path) -> tuple[float, float]:
    """(wall seconds, mean 1-minute load average sampled every 5 s) of one command."""
    started = time.perf_counter()
    loads = []
    with open(log, "ab") as fh:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT)
        while proc.poll() is None:
            loads.append(os.getloadavg()[0])
            time.sleep(5)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[:3]} failed ({proc.returncode}); see {log}")
    return wall, sum(loads) / max(1, len(loads))


def figures_of(wall: float, load: float, workers: int, page_seconds: list[float]) -> dict:
    """busy share: the part of the workers' wall time spent inside page evaluations; the rest is
    start-up, orchestration, writing and idle workers (a load-independent view of overhead)."""
    busy = sum(page_seconds)
    return {"wall_s": round(wall, 1), "pages": len(page_seconds), "page_seconds": round(busy, 1),
            "busy_share": round(busy / (wall * workers), 3), "not_in_pages_s": round(wall - busy / workers, 1),
            "load_avg": round(load, 1)}


def run_direct(corpus: Path, workers: int, work: Path) -> dict:
    out = work / f"direct-{workers}"
    wall, load = timed([str(BIN / "webmend"), "evaluate", "--responses", str(corpus), "--tests",
                        str(SAMPLES / "items.jsonl"), "--out", str(out), "--workers", str(workers)], None, work / "direct.log")
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return {**figures_of(wall, load, workers, [r["elapsed_s"] for r in records]),
            "statuses": sorted(r["status"] for r in records)}


def run_flow(corpus: Path, workers: int, batch_size: int, env: dict, work: Path) -> dict:
    root = work / f"flow-{workers}"
    wall, load = timed([sys.executable, "-m", "webmend.flows.build_refined_pool", "--responses", str(corpus),
                        "--items", str(SAMPLES / "items.jsonl"), "--data-root", str(root), "--n-workers", str(workers),
                        "--batch-size", str(batch_size)], env, work / "flow.log")
    _, rows = run_query(str(root), "SELECT status, elapsed_s FROM evaluations")
    return {**figures_of(wall, load, workers, [r[1] for r in rows]), "statuses": sorted(r[0] for r in rows)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--pages", type=int, default=200, help="corpus size (the samples repeated, distinct ids)")
    p.add_argument("--workers", type=int, default=2, help="workers for the overhead comparison")
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--no-scaling", action="store_true", help="skip the one-worker flow run")
    p.add_argument("--json", help="also write the figures here")
    args = p.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="webmend-bench-") as tmp:
        work = Path(tmp)
        corpus = build_corpus(args.pages, work / "responses.jsonl")
        with local_server(work / "prefect-home", scheduler=False) as api_url:
            env = prefect_env(work / "prefect-home", api_url)
            direct = run_direct(corpus, args.workers, work)
            flow = run_flow(corpus, args.workers, args.batch_size, env, work)
            one = None if args.no_scaling else run_flow(corpus, 1, args.batch_size, env, work)
    if direct["statuses"] != flow["statuses"]:
        print("warning: the two paths disagree on statuses", file=sys.stderr)
    figures = {
        "pages": args.pages, "workers": args.workers, "batch_size": args.batch_size,
        "direct": {k: v for k, v in direct.items() if k != "statuses"},
        "flow": {k: v for k, v in flow.items() if k != "statuses"},
        "overhead_s": round(flow["wall_s"] - direct["wall_s"], 1),
        "overhead_share": round((flow["wall_s"] - direct["wall_s"]) / flow["wall_s"], 3),
        # Under a shared, changing load the wall clocks above drift; this compares the time outside
        # page evaluations instead (both paths evaluate the same pages).
        "overhead_share_busy": round(direct["busy_share"] - flow["busy_share"], 3),
        "same_statuses": direct["statuses"] == flow["statuses"],
    }
    if one is not None:
        figures["flow_1_worker"] = {k: v for k, v in one.items() if k != "statuses"}
        figures["speedup_from_1_worker"] = round(one["wall_s"] / flow["wall_s"], 2)
    print(json.dumps(figures, indent=2))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
