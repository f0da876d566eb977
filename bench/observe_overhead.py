"""What the canvas observations cost (issue 36): evaluation wall time of a draw-heavy canvas page
(9,600 fillText and 800 arcs a frame, 3 s of page time) with today's observe.js against the one
before observations (drawn text only, f22a4dd), interleaved on one warm browser, in one run.
Prints each run and the median ratio new / old.

    .venv/bin/python bench/observe_overhead.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time
from pathlib import Path

import webmend.browser.page_scripts as page_scripts
import webmend.browser.session as session
from webmend.browser.worker import BrowserWorker
from webmend.config import EvalConfig
from webmend.evaluate.page import evaluate_page

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "f22a4dd"  # the last commit before observe.js recorded positions, circles and storage
PAGE = ROOT / "bench" / "pages" / "canvas_draw_heavy.html"
ITEM = {"id": "heavy", "test_cases": [{"id": "t", "steps": [{"action": "wait", "ms": 3000},
                                                            {"action": "assert_screenshot_not_blank"}]}]}


def baseline_js() -> str:
    text = subprocess.run(["git", "show", f"{BASELINE}:webmend/browser/assets/observe.js"], cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout
    return text.replace("__WM_OBSERVE_KEY__", page_scripts.OBSERVE_KEY)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    scripts = {"old": baseline_js(), "new": page_scripts.OBSERVE_JS}
    cfg, html = EvalConfig(), PAGE.read_text()
    worker = BrowserWorker(cfg)
    times: dict[str, list[float]] = {"old": [], "new": []}
    try:
        evaluate_page(html, cfg, ITEM, worker=worker)  # warm the browser, unmeasured
        for _ in range(args.repeat):
            for name, js in scripts.items():
                session.OBSERVE_JS = js  # what PageSession.open installs
                started = time.perf_counter()
                status = evaluate_page(html, cfg, ITEM, worker=worker)["status"]
                times[name].append(time.perf_counter() - started)
                print(f"{name}: {times[name][-1]:.2f} s ({status})", flush=True)
    finally:
        worker.close()
    old, new = statistics.median(times["old"]), statistics.median(times["new"])
    print(f"median old {old:.2f} s, new {new:.2f} s, ratio new/old {new / old:.2f}")


if __name__ == "__main__":
    main()
