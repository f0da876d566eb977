"""Determinism sweep: evaluate each page several times and report any page whose evidence differs
between runs (timings aside), with the first field that differs.

Races with Chromium's real frames (hover, scroll and animation events) show up only on some
runs and mostly under load, so --busy starts that many busy-loop processes for the sweep's
duration. The default page set is every fixture page with known behaviour (experience/, pages/,
games/dev/) plus the benchmark corpus.

    .venv/bin/python bench/determinism_sweep.py [--runs 3] [--busy 2] [--limit N] [--items FILE]
        [--save FILE] [--against FILE] [PAGE ...]

--items (HTMLBench-format JSONL, e.g. data/bench/items.jsonl) runs each page's test cases too,
matched by the page's file name (app_todo_001.html -> app_todo_001). --save writes each page's
first run (timings aside) to a JSON file; --against compares every run with such a file, so a busy
sweep is checked against a quiet one as well as against itself.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from webmend.browser.worker import BrowserWorker  # noqa: E402
from webmend.config import EvalConfig  # noqa: E402
from webmend.evaluate.inputs import load_items, match_item  # noqa: E402
from webmend.evaluate.page import evaluate_page  # noqa: E402
from webmend.evaluate.replay_check import comparable, first_difference  # noqa: E402

FIXTURES = ROOT / "data" / "fixtures"
DEFAULT_SETS = [FIXTURES / "experience", FIXTURES / "pages", FIXTURES / "games" / "dev", ROOT / "data" / "bench" / "pages"]


def _spin() -> None:
    while True:
        pass


def default_pages() -> list[Path]:
    return [p for d in DEFAULT_SETS for p in sorted(d.glob("*.html"))]


def sweep(pages: list[Path], runs: int, items: dict | None = None,
          against: dict | None = None, saved: dict | None = None) -> list[tuple[Path, str | None]]:
    """(page, first difference or None) per page; against: {page: comparable} of an earlier sweep;
    saved: filled with this sweep's first run of each page."""
    cfg = EvalConfig()
    worker = BrowserWorker(cfg)
    found = []
    try:
        for page in pages:
            html = page.read_text(encoding="utf-8", errors="replace")
            item = match_item(items or {}, page.stem)
            first, *others = [comparable(evaluate_page(html, cfg, item, worker=worker)) for _ in range(runs)]
            name = str(page.relative_to(ROOT))
            if saved is not None:
                saved[name] = first
            earlier = [] if against is None or name not in against else [("quiet", against[name])]
            diff = next((f"{label}: {d}" for label, d in (
                *((label, first_difference(ref, first)) for label, ref in earlier),
                *(("rerun", first_difference(first, o)) for o in others)) if d), None)
            print(f"{'DIFFERS' if diff else 'same   '} {page.relative_to(ROOT)}" + (f"  {diff}" if diff else ""), flush=True)
            found.append((page, diff))
    finally:
        worker.close()
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pages", nargs="*", type=Path)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--busy", type=int, default=0, help="busy-loop processes running during the sweep")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--items", type=Path, help="test items (JSONL): run each page's test cases too")
    ap.add_argument("--save", type=Path, help="write each page's first run (timings aside) to this JSON file")
    ap.add_argument("--against", type=Path, help="compare every run with a file --save wrote")
    args = ap.parse_args()
    pages = [p.resolve() for p in args.pages] or default_pages()
    pages = pages[: args.limit] if args.limit else pages
    spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.busy)]
    for s in spinners:
        s.start()
    t0 = time.monotonic()
    try:
        saved = {} if args.save else None
        against = json.loads(args.against.read_text()) if args.against else None
        found = sweep(pages, args.runs, load_items(args.items) if args.items else None, against, saved)
    finally:
        for s in spinners:
            s.terminate()
    if args.save:
        args.save.write_text(json.dumps(saved, sort_keys=True))
    differing = [p for p, d in found if d]
    print(f"\n{len(found) - len(differing)}/{len(found)} pages identical over {args.runs} runs"
          f"{' and to ' + str(args.against) if args.against else ''} "
          f"({args.busy} busy processes, {time.monotonic() - t0:.0f} s)")
    return 1 if differing else 0


if __name__ == "__main__":
    raise SystemExit(main())
