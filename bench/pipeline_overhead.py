"""Orchestration overhead of build-refined-pool: the same corpus evaluated directly (`webmend
evaluate`, its own process pool) and through the flow (Prefect + a local Dask cluster, traces
written to a data root), plus the flow's speed-up from one to two Dask workers.

    .venv/bin/python bench/pipeline_overhead.py --pages 200          # the target size
    .venv/bin/python bench/pipeline_overhead.py --pages 20 --json out/bench/pipeline.json

The default corpus (`--corpus counters`) is --pages distinct generated pages (a small counter app,
seeded: title, colours, words and step differ, so every page has its own content hash and nothing
is skipped as done) with 1-3 quick test cases each, about 2.5-3 s of evaluation per page: a 200-page
run of all three arms takes about half an hour on two cores. `--corpus samples` repeats the bundled
sample answers with distinct ids (`P#k#rN`, which still match their prompt's test item): real
pages, WebGL among them, far slower. Both paths run as fresh processes against the same inputs
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
import random
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


# A small counter app: distinct in title, colours, words and step (so in content hash), cheap to load.
_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>body{{font-family:sans-serif;margin:2rem;background:{bg};color:#222}}
button{{padding:.5rem 1rem;margin:.25rem;background:{fg};color:#fff;border:0;border-radius:4px}}
#count{{font-size:2rem}} li{{margin:.2rem 0}}</style></head>
<body><main><h1>{title}</h1><p>{blurb}</p>
<p>Count: <span id="count">0</span></p>
<button id="inc">Add {step}</button><button id="reset">Reset</button>
<ul id="log"></ul></main>
<script>
let n = 0;
const count = document.getElementById('count'), log = document.getElementById('log');
document.getElementById('inc').addEventListener('click', () => {{
  n += {step}; count.textContent = n;
  const li = document.createElement('li'); li.textContent = '{word} ' + n; log.appendChild(li);
}});
document.getElementById('reset').addEventListener('click', () => {{ n = 0; count.textContent = n; log.innerHTML = ''; }});
</script></body></html>"""
_WORDS = ("apples", "birds", "clouds", "dunes", "embers", "ferns", "gears", "harbours", "islands", "jets")


def counter_page(i: int, rng: random.Random) -> tuple[dict, dict]:
    """(response record, test item) of page i: 1-3 quick test cases on a counter app."""
    word, step = _WORDS[i % len(_WORDS)], rng.randint(1, 9)
    html = _PAGE.format(title=f"Counter {i}: {word}", bg=f"#{rng.randrange(0xdddddd, 0xffffff):06x}",
                        fg=f"#{rng.randrange(0x202020, 0x606060):06x}", step=step, word=word,
                        blurb=" ".join(rng.choice(_WORDS) for _ in range(rng.randint(6, 14))))
    cases = [
        {"id": "tc_01", "name": "one click adds the step", "weight": 2,
         "steps": [{"action": "click", "selector": "#inc"},
                   {"action": "assert_text_contains", "selector": "#count", "text": str(step)}]},
        {"id": "tc_02", "name": "reset clears", "weight": 1,
         "steps": [{"action": "click", "selector": "#inc"}, {"action": "click", "selector": "#reset"},
                   {"action": "assert_text_contains", "selector": "#count", "text": "0"}]},
        {"id": "tc_03", "name": "the log grows", "weight": 1,
         "steps": [{"action": "click", "selector": "#inc"}, {"action": "click", "selector": "#inc"},
                   {"action": "assert_count", "selector": "#log li", "eq": 2}]},
    ][: 1 + i % 3]
    page_id = f"counter_{i:04d}"
    item = {"id": page_id, "category": "apps_tools", "sub_type": "counter", "difficulty": "easy",
            "has_interaction": True, "prompt": f"A counter page that adds {step} per click.", "test_cases": cases}
    return {"id": page_id, "response": f"Here is the page:\n```html\n{html}\n```"}, item


def build_cheap_corpus(n: int, folder: Path, seed: int = 20261130) -> tuple[Path, Path]:
    """n distinct counter pages as raw answers plus their test items: (responses.jsonl, items.jsonl)."""
    rng = random.Random(seed)
    pairs = [counter_page(i, rng) for i in range(n)]
    responses, items = folder / "responses.jsonl", folder / "items.jsonl"
    responses.write_text("".join(json.dumps(r) + "\n" for r, _ in pairs))
    items.write_text("".join(json.dumps(t) + "\n" for _, t in pairs))
    return responses, items


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


def run_direct(corpus: Path, items: Path, workers: int, work: Path) -> dict:
    out = work / f"direct-{workers}"
    wall, load = timed([str(BIN / "webmend"), "evaluate", "--responses", str(corpus), "--tests",
                        str(items), "--out", str(out), "--workers", str(workers)], None, work / "direct.log")
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return {**figures_of(wall, load, workers, [r["elapsed_s"] for r in records]),
            "statuses": sorted(r["status"] for r in records)}


def run_flow(corpus: Path, items: Path, workers: int, batch_size: int, env: dict, work: Path) -> dict:
    root = work / f"flow-{workers}"
    wall, load = timed([sys.executable, "-m", "webmend.flows.build_refined_pool", "--responses", str(corpus),
                        "--items", str(items), "--data-root", str(root), "--n-workers", str(workers),
                        "--batch-size", str(batch_size)], env, work / "flow.log")
    _, rows = run_query(str(root), "SELECT status, elapsed_s FROM evaluations")
    return {**figures_of(wall, load, workers, [r[1] for r in rows]), "statuses": sorted(r[0] for r in rows)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--pages", type=int, default=200, help="corpus size")
    p.add_argument("--corpus", choices=("counters", "samples"), default="counters",
                   help="counters: distinct generated counter pages with 1-3 quick test cases each (default); "
                        "samples: the bundled sample answers repeated (slow pages, WebGL among them)")
    p.add_argument("--workers", type=int, default=2, help="workers for the overhead comparison")
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--no-scaling", action="store_true", help="skip the one-worker flow run")
    p.add_argument("--json", help="also write the figures here")
    args = p.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="webmend-bench-") as tmp:
        work = Path(tmp)
        if args.corpus == "counters":
            corpus, items = build_cheap_corpus(args.pages, work)
        else:
            corpus, items = build_corpus(args.pages, work / "responses.jsonl"), SAMPLES / "items.jsonl"
        with local_server(work / "prefect-home", scheduler=False) as api_url:
            env = prefect_env(work / "prefect-home", api_url)
            direct = run_direct(corpus, items, args.workers, work)
            flow = run_flow(corpus, items, args.workers, args.batch_size, env, work)
            one = None if args.no_scaling else run_flow(corpus, items, 1, args.batch_size, env, work)
    if direct["statuses"] != flow["statuses"]:
        print("warning: the two paths disagree on statuses", file=sys.stderr)
    figures = {
        "pages": args.pages, "corpus": args.corpus, "workers": args.workers, "batch_size": args.batch_size,
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
