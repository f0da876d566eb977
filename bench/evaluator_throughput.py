"""Evaluator throughput on the committed benchmark corpus (data/bench), against a baseline.

Baseline = the same runner with browser reuse and virtual time switched off (a browser per page,
real sleeping in waits). Both run with the same number of worker processes, one after the other,
in this one invocation, and the ratios are printed. --quick runs the baseline on a stratified
subset (one typical working page per family, QUICK_PAGES), since real-time waits make it slow.

The fast run is the full experience protocol (layers 1-4, docs/experience.md) plus the test cases;
it reports the share of pages that needed layer 3. A third arm runs layers 1-2 only (no rollout,
no keyframes) on the baseline's pages, so the cost of layers 3-4 shows beside it.

CPU seconds are counted two ways: for the run's own process tree (worker processes, their
Playwright drivers and every Chromium process, sampled from /proc during the run) and
machine-wide (from /proc/stat, which includes anything else running on the machine).

    .venv/bin/python bench/evaluator_throughput.py [--quick] [--workers 2] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from webmend.browser.launch import process_tree_cpu  # noqa: E402
from webmend.config import EvalConfig  # noqa: E402
from webmend.evaluate.inputs import iter_pages, load_items  # noqa: E402
from webmend.evaluate.run import iter_records, run_evaluation  # noqa: E402

BENCH = ROOT / "data" / "bench"
THREE_D = "three_d_webgl"


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
        cpu0, t0 = busy_cpu_seconds(), time.perf_counter()
        with TreeCpu() as tree:
            run_evaluation(iter_pages(paths), items, cfg, out, workers=workers)
        wall, cpu, tree_cpu = time.perf_counter() - t0, busy_cpu_seconds() - cpu0, tree.seconds
        records = list(iter_records(Path(out) / "results.jsonl"))
    fam = defaultdict(lambda: {"pages": 0, "elapsed_s": 0.0})
    for rec in records:
        key = THREE_D if (rec.get("item") or {}).get("category") == THREE_D else "other"
        fam[key]["pages"] += 1
        fam[key]["elapsed_s"] += rec["elapsed_s"]
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
        "statuses": _count(r["status"] for r in records),
        # The experience protocol (docs/experience.md): which pages needed layer 3, what it found.
        "layer3_share": round(sum(1 for r in records if 3 in (r.get("layers") or [])) / max(1, n), 3),
        "layer3_outcomes": _count((r.get("trace_summary") or {}).get("layer3_outcome") for r in records
                                  if 3 in (r.get("layers") or [])),
        "keyframes_per_page": round(sum(len(r.get("keyframes") or []) for r in records) / max(1, n), 2),
        "scores": {r["id"]: (r["score"] or {}).get("total") for r in records},
        # where the time went, page by page (what a profile of the next change should start from)
        "per_page": {r["id"]: {"elapsed_s": round(r["elapsed_s"], 1), "layers": r.get("layers"),
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="baseline (and the layers 1-2 arm) on one typical page per family (QUICK_PAGES)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0, help="only the first N pages (smoke runs)")
    ap.add_argument("--family", help="only this family's pages (e.g. three_d_webgl)")
    ap.add_argument("--no-baseline", action="store_true", help="only the fast runner (no baseline runs)")
    ap.add_argument("--route-libraries", action="store_true",
                    help="library bodies through the request route instead of the mirror server (cdn_server = false)")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    items = load_items(BENCH / "items.jsonl")
    paths = sorted((BENCH / "pages").glob("*.html"))
    if args.family:
        paths = [p for p in paths if (items.get(p.stem) or {}).get("category") == args.family]
    if args.limit:
        paths = paths[: args.limit]
    cfg = EvalConfig(cdn_server=not args.route_libraries)
    base_cfg = cfg.model_copy(update={"virtual_time": False, "reuse_browser": False})
    base_paths = stratified(paths, items) if args.quick else paths
    fast = run(paths, items, cfg, args.workers)
    if args.no_baseline:
        _report({"corpus_pages": len(paths), "workers": args.workers, "fast": fast}, args.json)
        return
    fast_on_subset = run(base_paths, items, cfg, args.workers) if args.quick else fast
    base = run(base_paths, items, base_cfg, args.workers)
    # Layers 1-2 only (no rollout, no keyframes) on the same pages: what layers 3-4 cost.
    lean_cfg = cfg.model_copy(update={"experience": cfg.experience.model_copy(
        update={"layer3": "never", "keyframes_in_fast_mode": False})})
    lean = run(base_paths, items, lean_cfg, args.workers)
    report = {
        "corpus_pages": len(paths),
        "test_cases": sum(len((items.get(p.stem) or {}).get("test_cases", [])) for p in paths),
        "workers": args.workers,
        "fast": {k: v for k, v in fast.items() if k != "scores"},
        "baseline_subset": [p.stem for p in base_paths] if args.quick else "all",
        "fast_on_baseline_pages": {k: v for k, v in fast_on_subset.items() if k not in ("scores", "per_page")},
        "baseline": {k: v for k, v in base.items() if k not in ("scores", "per_page")},
        "layers_1_2_only_on_baseline_pages": {k: v for k, v in lean.items() if k not in ("scores", "per_page")},
        "speedup_pages_per_min": round(fast_on_subset["pages_per_min"] / base["pages_per_min"], 2),
        "cpu_ratio_baseline_over_fast": round(base["cpu_s_per_page"] / fast_on_subset["cpu_s_per_page"], 2),
        "target_pages_per_min": 30,
        "meets_target": fast["pages_per_min"] >= 30,
    }
    _report(report, args.json)


def _report(report: dict, json_path: str | None) -> None:
    print(json.dumps(report, indent=2))
    if json_path:
        Path(json_path).write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
