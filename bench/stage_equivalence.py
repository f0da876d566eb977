"""Behaviour unchanged: run evaluate, repair (deterministic operators) and export through the CLI
on data/samples and data/bench with an earlier commit and with this working tree, in one run, and
compare every record and every exported row (wall-clock fields aside).

Refactors of the stage machinery (issue 37) must leave these identical; the script prints, per
set and stage, how many records are identical and the first differing field of each other one.

    .venv/bin/python bench/stage_equivalence.py --before REF [--sets samples bench] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from webmend.evaluate.replay_check import first_difference  # noqa: E402

SETS = {
    "samples": (["data/samples/pages", "--responses", "data/samples/responses.jsonl"], "data/samples/items.jsonl"),
    "bench": (["data/bench/pages"], "data/bench/items.jsonl"),
}
# Wall-clock measurements and the names of runs: allowed to differ. Everything else must not.
VOLATILE = {"elapsed_s", "eval_s", "run_id", "created_at", "exported_at", "written_at", "timings", "wall_s"}


def stable(value):
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [stable(v) for v in value]
    return value


def run_stages(tree: Path, inputs: list[str], items: str, out: Path, workers: int) -> None:
    """evaluate -> repair (no model) -> export, through the CLI of the code in `tree`."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cli = [sys.executable, "-m", "webmend.cli"]
    given = [str(ROOT / p) if p.startswith("data/") else p for p in inputs]
    steps = [
        ["evaluate", *given, "--tests", str(ROOT / items), "--out", str(out / "evaluate"),
         "--data-root", str(out / "root"), "--workers", str(workers)],
        ["repair", *given, "--tests", str(ROOT / items), "--from", str(out / "evaluate"), "--out", str(out / "repair"),
         "--data-root", str(out / "root"), "--no-llm", "--rounds", "3", "--workers", str(workers)],
        ["export", "--data-root", str(out / "root"), "--out", str(out / "corpus")],
    ]
    for step in steps:
        done = subprocess.run(cli + step, cwd=tree, env=env, capture_output=True, text=True)
        if done.returncode not in (0, 1):  # export exits 1 when its gate blocks: its rows are still compared
            raise SystemExit(f"{tree}: webmend {step[0]} failed ({done.returncode}):\n{done.stderr[-3000:]}")


def records(path: Path) -> dict[str, dict]:
    """Records by input position and id (a page and an answer may share an id)."""
    if not path.exists():
        return {}
    return {f"{n}:{r['id']}": stable(r) for n, r in enumerate(map(json.loads, path.read_text().splitlines())) if r}


def exported_rows(corpus: Path) -> tuple[dict[str, dict], dict[str, list]]:
    """Every row of every exported Parquet file by file (under its version folder) and row content,
    and each file's row order (rows come in the order the data root's files are scanned)."""
    rows, order = {}, {}
    for part in sorted(corpus.rglob("*.parquet")):
        name = "/".join(part.relative_to(corpus).parts[1:])  # without the version folder
        listed = [json.dumps(stable(row), sort_keys=True, default=str) for row in pq.read_table(part).to_pylist()]
        order[name] = listed
        for n, text in enumerate(sorted(listed)):
            rows[f"{name}#{n}"] = json.loads(text)
    return rows, order


def compare_order(label: str, before: dict[str, list], after: dict[str, list]) -> None:
    moved = [name for name in sorted(set(before) & set(after)) if before[name] != after[name]
             and sorted(before[name]) == sorted(after[name])]
    print(f"{label}: {len(moved)} file(s) with the same rows in another order" + (f" ({', '.join(moved)})" if moved else ""))


def compare(label: str, before: dict[str, dict], after: dict[str, dict]) -> int:
    diffs = []
    for key in sorted(set(before) | set(after)):
        if key not in before or key not in after:
            diffs.append(f"{key}: only {'after' if key not in before else 'before'}")
        elif (d := first_difference(before[key], after[key])) is not None:
            diffs.append(f"{key}: {d}")
    same = len(set(before) | set(after)) - len(diffs)
    print(f"{label}: {same}/{len(set(before) | set(after))} identical", flush=True)
    for line in diffs[:20]:
        print(f"    {line}")
    return len(diffs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="git commit to compare against (e.g. the issue's base)")
    ap.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--keep", type=Path, help="keep the outputs here (default: a temporary folder)")
    a = ap.parse_args()
    work = a.keep or Path(tempfile.mkdtemp(prefix="webmend-equivalence-"))
    base = work / "before-tree"
    if not base.exists():
        subprocess.run(["git", "worktree", "add", "--detach", str(base), a.before], cwd=ROOT, check=True,
                       capture_output=True)
    differing = 0
    try:
        for name in a.sets:
            inputs, items = SETS[name]
            runs = {}
            for side, tree in (("before", base), ("after", ROOT)):
                out = work / name / side
                run_stages(tree, inputs, items, out, a.workers)
                runs[side] = out
            b, f = runs["before"], runs["after"]
            differing += compare(f"{name} evaluate", records(b / "evaluate/results.jsonl"), records(f / "evaluate/results.jsonl"))
            differing += compare(f"{name} repair", records(b / "repair/repairs.jsonl"), records(f / "repair/repairs.jsonl"))
            (rows_b, order_b), (rows_f, order_f) = exported_rows(b / "corpus"), exported_rows(f / "corpus")
            differing += compare(f"{name} export rows", rows_b, rows_f)
            compare_order(f"{name} export order", order_b, order_f)
    finally:
        if not a.keep:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, capture_output=True)
    print("identical" if not differing else f"{differing} record(s) differ", flush=True)
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
