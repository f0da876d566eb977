"""Does repair generalise? The held-out-half check of a model's repairs, through the CLI a user runs.

Each chosen item's test cases are split in two by position (even: the loop sees them; odd: kept
back). `webmend repair` runs with the model on the seen half only; then the kept-back half is run
on the original and on the exported page. Prints, in one run: seen and kept-back cases passed
before -> after, mean total before -> after, model calls, candidates evaluated / accepted /
rejected (and why), calls per accepted candidate, pages up a band, checks flagged unpassable, and
seconds per candidate evaluation.

    OPENAI_API_BASE=http://127.0.0.1:PORT/v1 OPENAI_API_KEY=x .venv/bin/python bench/repair_heldout.py \
        --ids app_pomodoro_001 game_memory_001 --model openai/NAME --out out/heldout [--rounds 3] [--timeout 3000]

`--items`/`--pages` default to data/bench. Nothing here is timed as a target: the figures are counts.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WEBMEND = [sys.executable, "-m", "webmend.cli"]


def split_items(items_path: Path, ids: list[str], out: Path) -> tuple[Path, Path]:
    """items_seen.jsonl (even-positioned cases) and items_held.jsonl (odd) for the chosen ids."""
    items = {json.loads(line)["id"]: json.loads(line) for line in items_path.read_text().splitlines() if line.strip()}
    missing = [i for i in ids if i not in items]
    if missing:
        sys.exit(f"no item for: {', '.join(missing)}")
    paths = out / "items_seen.jsonl", out / "items_held.jsonl"
    for parity, path in enumerate(paths):
        rows = [{**items[i], "test_cases": items[i]["test_cases"][parity::2]} for i in ids]
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return paths


def run(args: list[str], env_note: str) -> None:
    print(f"$ webmend {' '.join(args)}  # {env_note}", flush=True)
    subprocess.run([*WEBMEND, *args], cwd=ROOT, check=True)


def passed(results: Path) -> dict[str, tuple[int, int, float | None]]:
    """id -> (cases passed, cases, total) from an evaluate --out folder."""
    out = {}
    for line in (results / "results.jsonl").read_text().splitlines():
        r = json.loads(line)
        tests = r.get("tests") or []
        out[r["id"]] = (sum(t["passed"] for t in tests), len(tests), (r.get("score") or {}).get("total"))
    return out


def report(out: Path, repairs: list[dict], before: dict, after: dict) -> None:
    attempts = [a for r in repairs for a in r["attempts"]]
    evaluated = [a for a in attempts if a["eval_s"] > 0]
    model = [a for a in attempts if a["strategy"] != "operator"]
    accepted = [a for a in model if a["accepted"]]
    calls = sum(r["llm_calls"] for r in repairs)
    reasons = Counter(_reason_kind(a["reason"]) for a in model if not a["accepted"])
    seen_b = sum(len(r["diagnosis"]["passing_tests"]) for r in repairs)
    seen_n = sum(len(r["diagnosis"]["passing_tests"]) + len(r["diagnosis"]["failed_tests"]) for r in repairs)
    seen_a = sum(len((r["final_diagnosis"] or r["diagnosis"])["passing_tests"]) for r in repairs)
    flagged = sum(len(r["diagnosis"].get("unpassable_tests") or []) for r in repairs)
    held_b, held_a, held_n = (sum(v[0] for v in before.values()), sum(v[0] for v in after.values()),
                              sum(v[1] for v in before.values()))
    lost = sum(1 for i in before if after.get(i, (0,))[0] < before[i][0])
    scored = [r for r in repairs if r["original_score"] is not None]
    lines = [
        f"pages {len(repairs)}; stop reasons {dict(Counter(r['stop_reason'] for r in repairs))}",
        f"seen cases passed {seen_b}/{seen_n} -> {seen_a}/{seen_n}; checks flagged unpassable {flagged}",
        f"kept-back cases passed {held_b}/{held_n} -> {held_a}/{held_n} (pages losing a kept-back pass: {lost})",
        "mean total (seen half) {:.1f} -> {:.1f}".format(*_means(scored)),
        f"model calls {calls}; model candidates {len(model)}, evaluated {sum(1 for a in model if a['eval_s'] > 0)}, "
        f"accepted {len(accepted)}; rejected share {1 - len(accepted) / max(len(model), 1):.2f}; "
        f"calls per accepted candidate {calls / max(len(accepted), 1):.2f}",
        f"rejections by kind {dict(reasons.most_common())}",
        f"pages up a band {sum(1 for r in scored if _up(r))}; seconds per candidate evaluation "
        f"{sum(a['eval_s'] for a in evaluated) / max(len(evaluated), 1):.1f}",
        f"tokens in/out {sum(a.get('prompt_tokens') or 0 for a in model)}/{sum(a.get('completion_tokens') or 0 for a in model)}",
    ]
    for r in repairs:
        lines.append(f"  {r['id']}: {r['original_score']} ({r['original_state']}) -> {r['final_score']} ({r['final_state']}); "
                     f"kept-back {before.get(r['id'], (0, 0))[:2]} -> {after.get(r['id'], (0, 0))[:2]}; stop {r['stop_reason']}")
    text = "\n".join(lines)
    (out / "report.txt").write_text(text + "\n")
    print(text)


def _reason_kind(reason: str) -> str:
    return reason.split(":")[0].split("(")[0].strip()


def _means(scored: list[dict]) -> tuple[float, float]:
    n = max(len(scored), 1)
    return sum(r["original_score"] for r in scored) / n, sum(r["final_score"] for r in scored) / n


def _up(r: dict) -> bool:
    order = ("Low", "Mid", "High")
    return order.index(r["final_state"]) > order.index(r["original_state"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ids", nargs="+", required=True)
    ap.add_argument("--items", type=Path, default=ROOT / "data/bench/items.jsonl")
    ap.add_argument("--pages", type=Path, default=ROOT / "data/bench/pages")
    ap.add_argument("--model", required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=3000.0)
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    out = a.out.resolve()
    (out / "pages").mkdir(parents=True, exist_ok=True)
    for i in a.ids:
        shutil.copyfile(a.pages / f"{i}.html", out / "pages" / f"{i}.html")
    seen, held = split_items(a.items, a.ids, out)
    run(["repair", str(out / "pages"), "--tests", str(seen), "--model", a.model, "--rounds", str(a.rounds),
         "--out", str(out / "repair"), "--timeout", str(a.timeout), "--max-retries", "1", "--workers", str(a.workers)],
        "the loop sees the even-positioned cases")
    for name, pages in (("held_before", out / "pages"), ("held_after", out / "repair" / "pages")):
        run(["evaluate", str(pages), "--tests", str(held), "--out", str(out / name), "--workers", str(a.workers)],
            "the kept-back half")
    repairs = [json.loads(line) for line in (out / "repair" / "repairs.jsonl").read_text().splitlines()]
    report(out, repairs, passed(out / "held_before"), passed(out / "held_after"))


if __name__ == "__main__":
    main()
