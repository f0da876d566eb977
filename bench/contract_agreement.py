"""How well contracts built by a model rank pages like people do (issue 36, "Measure against people").

For each task folder (`task.json`, `refs/*.html`, `graded/*.html` with `graded/grades.json`
{FILE: {grade, why}}) and the task's contract from `contract build`'s contracts.jsonl, it runs
`execute_contract` on every reference and graded page and prints, as JSON:

* `kept`, `sent_back`: whether the contract was kept, and whether that took the send-back
  (from the build's rejects.jsonl / summary; a task with no kept contract has no scores);
* `T_refs`: T on each reference implementation (the executability filter keeps a contract when
  3 references reach 0.6);
* per graded page: the human grade, r_web, T, and the evaluator's fast-mode score without a
  contract (the baseline a contract should beat);
* `spearman_contract`, `spearman_no_contract`: rank correlation of r_web and of the plain score
  with the grades.

    .venv/bin/python bench/contract_agreement.py --contracts OUT/contracts.jsonl --rejects OUT/rejects.jsonl \\
        data/canvas_tasks/solar_system data/canvas_tasks/mandelbrot
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd

from webmend.browser.worker import BrowserWorker
from webmend.config import EvalConfig
from webmend.evaluate.contract_run import execute_contract
from webmend.evaluate.inputs import RawInput
from webmend.evaluate.records import evaluate_input


def _jsonl(path: str | None) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()] if path else []


def plain_score(html: str, name: str, cfg: EvalConfig, worker: BrowserWorker) -> float | None:
    record = evaluate_input(RawInput(0, name, name, html), None, cfg, worker)
    return (record.get("score") or {}).get("total")


def measure(folder: Path, contract: dict | None, rejected: dict | None, cfg: EvalConfig, worker: BrowserWorker) -> dict:
    out: dict = {"task": folder.name, "kept": contract is not None,
                 "sent_back": bool((contract or {}).get("_sent_back") or (rejected or {}).get("sent_back"))}
    if rejected:
        out["reject_reasons"] = rejected.get("problems", [])[:5]
    if contract is None:
        return out
    contract = {k: v for k, v in contract.items() if not k.startswith("_")}
    out["T_refs"] = {p.name: execute_contract(p.read_text(), contract, cfg, worker=worker).score.transition_validity
                     for p in sorted((folder / "refs").glob("*.html"))}
    grades = json.loads((folder / "graded" / "grades.json").read_text())
    rows = []
    for name, g in sorted(grades.items()):
        html = (folder / "graded" / name).read_text()
        run = execute_contract(html, contract, cfg, worker=worker)
        rows.append({"page": name, "grade": g["grade"], "r_web": run.score.reward, "T": run.score.transition_validity,
                     "plain": plain_score(html, name, cfg, worker)})
    frame = pd.DataFrame(rows)
    out["graded"] = rows
    out["spearman_contract"] = round(float(frame["grade"].corr(frame["r_web"], method="spearman")), 3)
    out["spearman_no_contract"] = round(float(frame["grade"].corr(frame["plain"], method="spearman")), 3)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tasks", nargs="+", type=Path)
    ap.add_argument("--contracts", required=True)
    ap.add_argument("--rejects")
    ap.add_argument("--sent-back", default="", help="comma-separated task ids whose kept contract took the send-back")
    args = ap.parse_args()
    kept = {c["task"]["id"]: c for c in _jsonl(args.contracts)}
    for tid in filter(None, args.sent_back.split(",")):
        if tid in kept:
            kept[tid]["_sent_back"] = True
    rejected = {r["task_id"]: r for r in _jsonl(args.rejects)}
    cfg = EvalConfig()
    worker = BrowserWorker(cfg)
    try:
        for folder in args.tasks:
            tid = json.loads((folder / "task.json").read_text())["id"]
            print(json.dumps(measure(folder, kept.get(tid), rejected.get(tid), cfg, worker)), flush=True)
    finally:
        worker.close()


if __name__ == "__main__":
    main()
