"""Intake throughput: prompts per second through filter + dedup + decontamination, and peak memory.

A seeded generator writes N synthetic prompts (default 100,000) shaped like a crawl's yield: mostly
distinct requests, plus exact duplicates (case/whitespace/punctuation), near-duplicates (small
edits), policy violations, questions, too-short lines, copies of benchmark prompts and benchmark
passages pasted into posts (caught by the word n-gram check). They run
through the same `Intake` stage `webmend prompts` uses (no LLM), against data/bench + data/samples
as benchmarks. Peak memory is the process's max RSS (resource.getrusage), which includes the
interpreter and libraries; --tracemalloc adds Python-heap peak (and slows the run down).

    .venv/bin/python bench/intake.py [--n 100000] [--seed 7] [--tracemalloc]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from webmend.intake.config import IntakeConfig  # noqa: E402
from webmend.intake.decontam import Decontaminator, load_benchmarks  # noqa: E402
from webmend.intake.pipeline import Intake, run_intake  # noqa: E402
from webmend.intake.sources import RawPrompt  # noqa: E402

BENCHMARKS = [ROOT / "data" / "bench" / "items.jsonl", ROOT / "data" / "samples" / "items.jsonl"]

VERBS = ["Build", "Create", "Make", "Design", "Implement", "Write", "Code up", "I need"]
THINGS = [
    "a snake game", "a to-do app", "a sales dashboard", "a 3D solar system with three.js", "a landing page for a bakery",
    "a generative art piece with p5.js", "a pomodoro timer", "a kanban board", "a weather chart", "a memory card game",
    "a markdown editor", "a particle galaxy in WebGL", "a portfolio site", "a mortgage calculator", "a sorting visualizer",
    "an analog clock", "a breakout game", "a recipe manager", "a force-directed network graph", "a fireworks animation",
    "a tetris clone", "a habit tracker", "a pricing page", "a heatmap of visits", "a voxel sandbox", "a drawing pad",
]
FEATURES = [
    "dark mode", "keyboard shortcuts", "localStorage persistence", "a score counter", "smooth animations", "tooltips",
    "a settings panel", "drag and drop", "responsive layout down to 375px", "an undo button", "sound effects",
    "a restart button", "filter chips", "a legend", "export to PNG", "a search box", "a progress bar", "a timer",
    "accessible labels", "a level selector", "a color picker", "zoom and pan", "a help modal", "confetti on success",
]
THEMES = ["neon", "pastel", "retro", "minimal", "brutalist", "glassmorphism", "paper", "space", "forest", "ocean"]
BAD = [
    "Make a page that logs into my bank account and shows my balance.",
    "Connect it to our internal API and show the numbers for the board meeting.",
    "Use my api key sk-abcdefghijklmnopqrstu1234 to fetch the data.",
    "Email the results to someone.real@gmail.com every day.",
]
QUESTIONS = ["How do I center a div?", "Which framework is best for beginners?", "Why is my canvas blurry on retina?"]


def synthetic(n: int, seed: int, bench_prompts: list[str]) -> list[RawPrompt]:
    rng = random.Random(seed)
    made: list[str] = []
    out = []
    for i in range(n):
        roll = rng.random()
        if made and roll < 0.10:  # exact duplicate after normalisation
            text = rng.choice([str.upper, str.lower, lambda s: "  " + s.replace(" ", "  ") + "\n"])(rng.choice(made))
        elif made and roll < 0.15:  # near duplicate: one feature swapped
            words = rng.choice(made).split(", ")
            text = ", ".join(words[:-1] + [rng.choice(FEATURES) + "."])
        elif roll < 0.17:
            text = rng.choice(BAD)
        elif roll < 0.19:
            text = rng.choice(QUESTIONS)
        elif roll < 0.20:
            text = "Pong."
        elif roll < 0.201:
            text = rng.choice(bench_prompts)
        elif roll < 0.202:  # a benchmark passage inside a post: only the n-gram check sees it
            words = rng.choice(bench_prompts).split()
            start = rng.randrange(len(words) - 20)
            text = f"Hi all, my brief says: {' '.join(words[start:start + 20])} Any tips? Thanks, number {i}."
        else:
            feats = rng.sample(FEATURES, 3)
            text = (f"{rng.choice(VERBS)} {rng.choice(THINGS)} in a {rng.choice(THEMES)} style, "
                    f"number {rng.randrange(10**6)}, with {feats[0]}, {feats[1]}, {feats[2]}.")
            made.append(text)
        out.append(RawPrompt(id=f"syn-{i}", text=text, kind="prompt", source="synthetic"))
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=100_000)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--tracemalloc", action="store_true", help="also measure the Python heap peak (slower)")
    args = p.parse_args()

    cfg = IntakeConfig()
    benchmarks = load_benchmarks(BENCHMARKS)
    raws = synthetic(args.n, args.seed, [b.prompt for b in benchmarks])
    if args.tracemalloc:
        tracemalloc.start()
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    intake = Intake(cfg, decontaminator=Decontaminator(benchmarks, cfg.dedup, cfg.decontam))
    result = run_intake(raws, intake)
    elapsed = time.perf_counter() - started
    figures = {
        "prompts": args.n,
        "seed": args.seed,
        "elapsed_s": round(elapsed, 2),
        "prompts_per_s": round(args.n / elapsed, 1),
        "kept": len(result.kept),
        "rejected_by_reason": dict(sorted(Counter(r.reason for r in result.rejects).items())),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "rss_before_run_mib": round(rss_before / 1024, 1),
        "contaminated_by_match": dict(sorted(Counter(r.rule for r in result.rejects if r.reason == "contaminated").items())),
        "dedup_threshold": cfg.dedup.threshold,
        "num_perm": cfg.dedup.num_perm,
        "ngram_n": cfg.decontam.ngram_n,
    }
    if args.tracemalloc:
        figures["python_heap_peak_mib"] = round(tracemalloc.get_traced_memory()[1] / 2**20, 1)
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
