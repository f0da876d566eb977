"""Where one page's evaluation CPU goes, by process type: the Chromium renderer, GPU, browser and
utility processes, the Playwright driver (node), and this Python process.

Each page is evaluated on a warm worker (another page first, so browser start-up is not counted),
in fast mode, one page at a time, with the process tree sampled every 0.2 s (per-process peaks, so
a process's last 0.2 s before it exits may be missed). Prints one line per page and, per type, its
share of the total: the figures say which lever can pay (issue 13: request routing and CDP traffic
live in the browser process and the driver; documents and scripts in the renderer).

    .venv/bin/python bench/evaluator_process_split.py [PAGE_ID ...]   (default: QUICK_PAGES minus 3D)
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from evaluator_throughput import QUICK_PAGES  # noqa: E402

from webmend.config import EvalConfig, load_config  # noqa: E402
from webmend.evaluate.inputs import RawInput, load_items  # noqa: E402

BENCH = ROOT / "data" / "bench"
WARM_UP = "game_snake_001"


def kind(proc: psutil.Process) -> str:
    try:
        cmd = " ".join(proc.cmdline())
    except psutil.Error:
        return "gone"
    for flag, name in (("--type=renderer", "renderer"), ("--type=gpu-process", "gpu"), ("--type=utility", "utility")):
        if flag in cmd:
            return name
    if "chrom" in cmd and "--type=" not in cmd:
        return "browser"
    if "node" in cmd or "playwright" in cmd:
        return "driver"
    return "python" if proc.pid == psutil.Process().pid else "other"


class Split:
    """CPU seconds per process type of this process's tree while the block runs."""

    def __init__(self):
        self.peaks: dict[int, tuple[str, float]] = {}
        self._stop = threading.Event()

    def _sample(self) -> None:
        me = psutil.Process()
        for proc in [me, *me.children(recursive=True)]:
            try:
                t = proc.cpu_times()
            except psutil.Error:
                continue
            name = self.peaks[proc.pid][0] if proc.pid in self.peaks else kind(proc)
            self.peaks[proc.pid] = (name, t.user + t.system)

    def __enter__(self):
        self._sample()
        self.base = {pid: v for pid, (_, v) in self.peaks.items()}
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.wait(0.2):
            self._sample()

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self._sample()

    def by_kind(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for pid, (name, v) in self.peaks.items():
            out[name] = out.get(name, 0.0) + v - self.base.get(pid, 0.0)
        return {k: round(v, 2) for k, v in sorted(out.items(), key=lambda kv: -kv[1]) if v > 0.005}


def raw_input(page_id: str, items: dict) -> RawInput:
    html = (BENCH / "pages" / f"{page_id}.html").read_text(encoding="utf-8")
    return RawInput(0, page_id, "bench", html, None, items[page_id]["prompt"])


def main() -> None:
    from webmend.browser.worker import get_worker
    from webmend.evaluate.records import evaluate_input

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pages", nargs="*", help="bench page ids (default: the typical page of each non-3D family)")
    ap.add_argument("--config", help="TOML or JSON config file, as `webmend evaluate --config` (default: fast mode)")
    args = ap.parse_args()
    pages = args.pages or [p for fam, p in QUICK_PAGES.items() if fam != "three_d_webgl"]
    items = load_items(BENCH / "items.jsonl")
    cfg = load_config(args.config) if args.config else EvalConfig(mode="fast")
    worker = get_worker(cfg)
    evaluate_input(raw_input(WARM_UP, items), items[WARM_UP], cfg, worker)
    totals: dict[str, float] = {}
    for page_id in pages:
        started = time.perf_counter()
        with Split() as split:
            rec = evaluate_input(raw_input(page_id, items), items[page_id], cfg, worker)
        parts = split.by_kind()
        for k, v in parts.items():
            totals[k] = totals.get(k, 0.0) + v
        print(json.dumps({"page": page_id, "status": rec["status"], "wall_s": round(time.perf_counter() - started, 1),
                          "cpu_s": round(sum(parts.values()), 2), "by_process": parts,
                          "score": rec["score"]["total"],
                          "tests_passed": sum(1 for t in rec["tests"] if t.get("passed"))}))
    whole = sum(totals.values()) or 1.0
    print(json.dumps({"share": {k: round(v / whole, 3) for k, v in sorted(totals.items(), key=lambda kv: -kv[1])},
                      "cpu_s_total": round(whole, 2), "pages": len(pages)}))


if __name__ == "__main__":
    main()
