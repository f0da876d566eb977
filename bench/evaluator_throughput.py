"""Evaluator throughput on the committed benchmark corpus (data/bench), against today's runner.

Arms, one after the other in this one invocation, with the same number of worker processes:

* `fast`: this checkout's runner (the full experience protocol, layers 1-4, plus the test cases);
* `today`: the runner at a pinned commit (`--against`, default TODAY_COMMIT: main before the
  2026-12-02 evaluation-cost work), exported with `git archive` to a temporary folder and run by
  this same script in a subprocess, so both arms are measured the same way;
* with `--realtime-baseline`, the older baseline: this runner with browser reuse and virtual time
  off (a browser per page, real sleeping).

`--quick` runs every arm on QUICK_PAGES, one typical working page per family. `--repeat N` runs
this checkout's arm N times and reports the pages whose verdicts differ between runs.

CPU seconds are counted for the run's own process tree (worker processes, their Playwright drivers
and every Chromium process, sampled from /proc during the run) and machine-wide (/proc/stat,
which includes anything else running). Per page, each worker process measures its own process
tree around the page (per-process peaks sampled every 0.5 s, so only a process's last half second
before it exits is missed); medians per family come from those.
The public reference runner's 2.6 pages/min (held-out set, same concurrency, issue 13) is printed
as a fixed comparison: it is not installed here.

    .venv/bin/python bench/evaluator_throughput.py [--quick] [--workers 2] [--family F] [--against REV | --no-today]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The `today` arm runs this script against another copy of the code (see today_arm).
CODE = Path(os.environ.get("WEBMEND_BENCH_CODE") or ROOT)
sys.path.insert(0, str(CODE))

from webmend.browser.launch import process_tree_cpu  # noqa: E402
from webmend.config import EvalConfig  # noqa: E402
from webmend.evaluate.inputs import iter_pages, load_items  # noqa: E402
from webmend.evaluate.run import iter_records, run_evaluation  # noqa: E402

BENCH = ROOT / "data" / "bench"
THREE_D = "three_d_webgl"
TODAY_COMMIT = "83a117a"  # main at the start of 2026-12-02: the runner issue 13 measured
REFERENCE_PAGES_PER_MIN = 2.6  # the public reference runner, held-out set, 2 workers (issue 13)
TARGET_PAGES_PER_MIN = 10.0  # 4x the reference (issue 13)
PAGE_CPU_LOG = "WEBMEND_BENCH_PAGE_CPU"  # folder where worker processes log CPU-s per page


def _log_page_cpu() -> None:
    """In a worker process: wrap evaluate_input so each page's process-tree CPU is logged.

    Worker processes are spawned and import this script as their main module, so this runs in
    each of them (and in this process, for --workers 1)."""
    if not os.environ.get(PAGE_CPU_LOG):
        return
    import webmend.evaluate.records as records

    inner = records.evaluate_input
    if getattr(inner, "_bench_wrapped", False):
        return

    def measured(raw, *args, **kwargs):
        # Per-pid peaks sampled during the page: a renderer that exits with its context would
        # vanish from a plain before/after difference.
        with TreeCpu(period_s=0.5) as tree:
            record = inner(raw, *args, **kwargs)
        used = tree.seconds
        with open(Path(os.environ[PAGE_CPU_LOG]) / f"{os.getpid()}.jsonl", "a") as fh:
            fh.write(json.dumps({"id": raw.id, "cpu_s": round(used, 3)}) + "\n")
        return record

    measured._bench_wrapped = True
    records.evaluate_input = measured


_log_page_cpu()


def busy_cpu_seconds() -> float:
    with open("/proc/stat") as fh:
        fields = [int(x) for x in fh.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


class TreeCpu:
    """CPU seconds of this process and all its descendants (workers, Playwright drivers, every
    Chromium process), sampled from /proc while the run goes: the last peak seen per process is
    summed, so other work on the machine does not count. A process's final quarter second may be
    missed, which undercounts slightly. The sampling thread's own CPU (reading /proc on a busy
    machine costs tens of milliseconds a sample) is taken out."""

    def __init__(self, period_s: float = 0.25):
        self._peak: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, args=(period_s,), daemon=True)

    def __enter__(self):
        self._sample()
        self._base = dict(self._peak)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self._sample()

    @property
    def seconds(self) -> float:
        return sum(v - self._base.get(pid, 0.0) for pid, v in self._peak.items()) - self._own

    _own = 0.0

    def _loop(self, period_s: float) -> None:
        start = time.thread_time()
        while not self._stop.wait(period_s):
            self._sample()
        self._own = time.thread_time() - start

    def _sample(self) -> None:
        for pid, value in process_tree_cpu().items():
            self._peak[pid] = max(self._peak.get(pid, 0.0), value)


def run(paths: list[Path], items: dict, cfg: EvalConfig, workers: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="webmend-bench-") as out:
        cpu_log = Path(out) / "page_cpu"
        cpu_log.mkdir()
        os.environ[PAGE_CPU_LOG] = str(cpu_log)
        _log_page_cpu()
        cpu0, t0 = busy_cpu_seconds(), time.perf_counter()
        with TreeCpu() as tree:
            run_evaluation(iter_pages(paths), items, cfg, out, workers=workers)
        wall, cpu, tree_cpu = time.perf_counter() - t0, busy_cpu_seconds() - cpu0, tree.seconds
        records = list(iter_records(Path(out) / "results.jsonl"))
        page_cpu = {}
        for f in cpu_log.glob("*.jsonl"):
            for line in f.read_text().splitlines():
                row = json.loads(line)
                page_cpu[row["id"]] = row["cpu_s"]
    fam = defaultdict(lambda: {"pages": 0, "elapsed_s": 0.0, "cpu": []})
    family_cpu = defaultdict(list)
    for rec in records:
        category = (rec.get("item") or {}).get("category")
        key = THREE_D if category == THREE_D else "other"
        fam[key]["pages"] += 1
        fam[key]["elapsed_s"] += rec["elapsed_s"]
        if rec["id"] in page_cpu:
            fam[key]["cpu"].append(page_cpu[rec["id"]])
            family_cpu[category].append(page_cpu[rec["id"]])
    n = len(records)
    return {
        "pages": n,
        "wall_s": round(wall, 2),
        "pages_per_min": round(n / wall * 60, 2),
        "cpu_s_per_page": round(tree_cpu / n, 3),
        "machine_cpu_s_per_page": round(cpu / n, 3),
        "mean_page_s": {k: round(v["elapsed_s"] / v["pages"], 3) for k, v in fam.items()},
        # what `workers` processes would sustain on a corpus of only this family
        "family_pages_per_min": {k: round(workers * 60 * v["pages"] / v["elapsed_s"], 2) for k, v in fam.items()},
        # CPU-s per page measured by each worker around each page (see the module docstring)
        "median_page_cpu_s": {k: round(statistics.median(v["cpu"]), 2) for k, v in fam.items() if v["cpu"]},
        "median_page_cpu_s_by_family": {k: round(statistics.median(v), 2) for k, v in sorted(family_cpu.items(), key=str)},
        "statuses": _count(r["status"] for r in records),
        # The experience protocol (docs/experience.md): which pages needed layer 3, what it found.
        "layer3_share": round(sum(1 for r in records if 3 in (r.get("layers") or [])) / max(1, n), 3),
        "layer3_outcomes": _count((r.get("trace_summary") or {}).get("layer3_outcome") for r in records
                                  if 3 in (r.get("layers") or [])),
        "keyframes_per_page": round(sum(len(r.get("keyframes") or []) for r in records) / max(1, n), 2),
        "scores": {r["id"]: (r["score"] or {}).get("total") for r in records},
        # where the time went, page by page (what a profile of the next change should start from)
        "per_page": {r["id"]: {"elapsed_s": round(r["elapsed_s"], 1), "cpu_s": page_cpu.get(r["id"]),
                               "status": r["status"], "layers": r.get("layers"),
                               "tests_passed": sum(1 for t in r.get("tests") or [] if t.get("passed")),
                               "verdicts": "".join("1" if t.get("passed") else "0" for t in r.get("tests") or []),
                               "layer3_outcome": (r.get("trace_summary") or {}).get("layer3_outcome")}
                     for r in records},
    }


def _count(values) -> dict:
    out: dict = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return out


# The --quick subset: one typical, working page per family (data/bench/README.md lists quality and
# libraries). Picking the first page alphabetically gave a broken page for 3D (webgl_galaxy_001
# throws before it draws) and for games (game_asteroids_001's loop never starts), so the subset
# understated what a working page of those families costs.
QUICK_PAGES = {
    # good; a to-do list (form, list, localStorage) with Google Fonts and Font Awesome, as many pages load
    "apps_tools": "app_todo_001",
    # good; a canvas game with a requestAnimationFrame loop and keyboard control
    "games_simulations": "game_snake_001",
    # good; a Chart.js dashboard (Chart.js animates after every change, like most chart libraries)
    "data_visualization": "viz_sales_dashboard_001",
    # good; three.js from a script tag, every test passes. The product viewer and terrain cost
    # more per page, and the shader gallery (preserveDrawingBuffer) never skips hidden frames
    "three_d_webgl": "webgl_solar_system_001",
    # good; a GSAP timeline. The p5 flow field ran into the 60 s wall cap on a loaded machine,
    # which would make the subset's figures depend on load
    "visual_art_animation": "art_gsap_sunrise_001",
    # good; Tailwind Play CDN, Font Awesome and Google Fonts, the typical landing page
    "content_marketing": "landing_saas_001",
}


def stratified(paths: list[Path], items: dict) -> list[Path]:
    """QUICK_PAGES among `paths`; a family whose chosen page was filtered out (--limit) falls
    back to its first page, so every family present still gets one."""
    chosen = set(QUICK_PAGES.values())
    by_family: dict = {}
    for p in paths:
        fam = (items.get(p.stem) or {}).get("category")
        if fam not in by_family or (p.stem in chosen and by_family[fam].stem not in chosen):
            by_family[fam] = p
    return [p for p in paths if p in by_family.values()]


def today_arm(rev: str, args) -> dict:
    """This script's `fast` arm run against the code at `rev` (git archive into a temp folder)."""
    with tempfile.TemporaryDirectory(prefix="webmend-today-") as code:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "webmend"], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", code], input=archive.stdout, check=True)
        out = Path(code) / "arm.json"
        cmd = [sys.executable, str(Path(__file__).resolve()), "--no-today", "--workers", str(args.workers),
               "--json", str(out), *(["--family", args.family] if args.family else []),
               *(["--limit", str(args.limit)] if args.limit else []), *(["--quick"] if args.quick else [])]
        subprocess.run(cmd, check=True, env={**os.environ, "WEBMEND_BENCH_CODE": code}, stdout=subprocess.DEVNULL)
        return json.loads(out.read_text())["fast"]


def ratios(fast: dict, today: dict) -> dict:
    out = {"pages_per_min": round(fast["pages_per_min"] / today["pages_per_min"], 2),
           "cpu_s_per_page_today_over_fast": round(today["cpu_s_per_page"] / fast["cpu_s_per_page"], 2)}
    for k, v in fast.get("median_page_cpu_s", {}).items():
        if today.get("median_page_cpu_s", {}).get(k):
            out[f"median_page_cpu_today_over_fast_{k}"] = round(today["median_page_cpu_s"][k] / v, 2)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0, help="only the first N pages (smoke runs)")
    ap.add_argument("--family", help="only this family's pages (e.g. three_d_webgl)")
    ap.add_argument("--against", default=TODAY_COMMIT, help="the commit whose runner is the `today` arm")
    ap.add_argument("--no-today", action="store_true", help="no `today` arm (only this checkout's runner)")
    ap.add_argument("--realtime-baseline", action="store_true",
                    help="also the older baseline: browser per page and real time (with --quick on QUICK_PAGES)")
    ap.add_argument("--quick", action="store_true", help="every arm on one typical page per family (QUICK_PAGES)")
    ap.add_argument("--route-libraries", action="store_true",
                    help="library bodies through the request route instead of the mirror server (cdn_server = false)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run this checkout's arm N times and report pages whose verdicts differ between runs")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    items = load_items(BENCH / "items.jsonl")
    paths = sorted((BENCH / "pages").glob("*.html"))
    if args.family:
        paths = [p for p in paths if (items.get(p.stem) or {}).get("category") == args.family]
    if args.limit:
        paths = paths[: args.limit]
    if args.quick:
        paths = stratified(paths, items)
    cfg = EvalConfig(cdn_server=not args.route_libraries)
    fast = run(paths, items, cfg, args.workers)
    pages = sum(len((items.get(p.stem) or {}).get("test_cases", [])) for p in paths)
    report = {"corpus_pages": len(paths), "test_cases": pages, "workers": args.workers, "code": str(CODE), "fast": fast,
              "reference_pages_per_min": REFERENCE_PAGES_PER_MIN,
              "vs_reference": round(fast["pages_per_min"] / REFERENCE_PAGES_PER_MIN, 2),
              "target_pages_per_min": TARGET_PAGES_PER_MIN,
              "meets_target": fast["pages_per_min"] >= TARGET_PAGES_PER_MIN}
    if args.repeat > 1:
        again = [run(paths, items, cfg, args.workers) for _ in range(args.repeat - 1)]
        report["determinism"] = _determinism([fast, *again])
    if not args.no_today:
        today = today_arm(args.against, args)
        report.update(today_commit=args.against, today=today, fast_vs_today=ratios(fast, today),
                      verdicts_changed=_verdict_changes(fast, today))
    if args.realtime_baseline:
        base_cfg = cfg.model_copy(update={"virtual_time": False, "reuse_browser": False})
        report["realtime_baseline"] = {k: v for k, v in run(paths, items, base_cfg, args.workers).items()
                                       if k not in ("scores", "per_page")}
    _report(report, args.json)


def _verdict(run_: dict, pid: str) -> tuple:
    row = run_["per_page"].get(pid) or {}
    return row.get("status"), row.get("verdicts"), run_["scores"].get(pid)


def _determinism(runs: list[dict]) -> dict:
    """Pages whose status, test verdicts (one by one) or total score differ between runs."""
    differ = {pid: [_verdict(r, pid) for r in runs] for pid in runs[0]["per_page"]
              if len({_verdict(r, pid) for r in runs}) > 1}
    return {"runs": len(runs), "pages": len(runs[0]["per_page"]), "pages_identical": len(runs[0]["per_page"]) - len(differ),
            "differ": differ}


def _verdict_changes(fast: dict, today: dict) -> dict:
    """Pages whose status or passed test cases differ between the arms (score deltas beside)."""
    out = {}
    for pid, row in fast["per_page"].items():
        old = today["per_page"].get(pid) or {}
        if (row.get("status"), row.get("verdicts")) != (old.get("status"), old.get("verdicts")):
            out[pid] = {"today": [old.get("status"), old.get("verdicts")],
                        "fast": [row.get("status"), row.get("verdicts")],
                        "score": [today["scores"].get(pid), fast["scores"].get(pid)]}
    return out


def _report(report: dict, json_path: str | None) -> None:
    print(json.dumps(report, indent=2))
    if json_path:
        Path(json_path).write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
