"""Repair on the bundled samples and the bench corpus, deterministic operators only; then the LLM
path with a scripted model on the repair fixtures, with early rejection on and off (the baseline).

Operators arm: for each corpus, `webmend repair` (run_repair, no model) over its pages, using the
stored evaluations of an earlier `webmend evaluate` run when --from-samples / --from-bench name
one (else the originals are evaluated first). Prints mean score before and after, pages that moved
up a band, proposed/accepted edits per operator, candidate evaluations and wall time per page, and
checks the invariant on every page: the final score is never below the original and no test case
that passed originally fails in the exported checkpoint.

Scripted-model arm: a scripted OpenAI-compatible server on 127.0.0.1 (tests/llm/llm_server.py)
answers the repair prompts of data/fixtures/repair_llm with a regressing patch first and a good
one next; it prints LLM calls per accepted page and the candidate evaluation time with early
rejection against a baseline run without it, in this one invocation.

    .venv/bin/python bench/repair.py [--from-samples DIR] [--from-bench DIR] [--skip-operators] [--workers 1]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the scripted LLM server the tests use

from webmend.config import RepairConfig  # noqa: E402
from webmend.evaluate.inputs import iter_pages, iter_responses, load_items  # noqa: E402
from webmend.evaluate.run import iter_records  # noqa: E402
from webmend.repair.run import REPAIRS, load_evaluations, run_repair  # noqa: E402

CORPORA = {
    "samples": (ROOT / "data/samples", ["pages"], "responses.jsonl"),
    "bench": (ROOT / "data/bench", ["pages"], None),
    "fixtures": (ROOT / "data/fixtures/repair", ["."], None),  # one page per operator's defect
}


def corpus_inputs(name: str) -> tuple[list, dict]:
    folder, pages, responses = CORPORA[name]
    inputs = list(iter_pages([folder / p for p in pages]))
    inputs = [raw for raw in inputs if not raw.id.startswith("README")]
    if responses:
        inputs += list(iter_responses(folder / responses, start=len(inputs)))
    return inputs, load_items(folder / "items.jsonl")


def invariant_violations(records: list[dict]) -> list[str]:
    bad = []
    for r in records:
        if r["original_score"] is not None and (r["final_score"] or 0) < r["original_score"] - 1e-9:
            bad.append(f"{r['id']}: final {r['final_score']} < original {r['original_score']}")
        kept = set((r["final_diagnosis"] or r["diagnosis"])["passing_tests"])
        lost = set(r["diagnosis"]["passing_tests"]) - kept
        if lost:
            bad.append(f"{r['id']}: passing tests lost {sorted(lost)}")
    return bad


def operators_arm(name: str, from_dir: str | None, workers: int, out: Path) -> dict:
    inputs, items = corpus_inputs(name)
    evaluations = load_evaluations(from_dir) if from_dir else {}
    started = time.perf_counter()
    summary = run_repair(inputs, items, evaluations, RepairConfig(), out, workers=workers)
    wall = time.perf_counter() - started
    records = list(iter_records(out / REPAIRS))
    scored = [r for r in records if r["original_score"] is not None]
    return {
        "corpus": name, "pages": len(records), "scored": len(scored),
        "mean_before": summary["mean_score_before"], "mean_after": summary["mean_score_after"],
        "pages_improved": summary["pages_improved"], "pages_up_a_band": summary["pages_up_a_band"],
        "operators": summary["operators"], "transitions": summary["transitions"],
        "candidate_evaluations_per_page": round(summary["candidate_evaluations"] / max(1, len(records)), 3),
        "candidate_eval_s_per_page": round(summary["candidate_eval_s"] / max(1, len(records)), 2),
        "wall_s_per_page": round(wall / max(1, len(records)), 2),
        "originals_evaluated_here": sum(1 for r in inputs if r.id not in evaluations),
        "invariant_violations": invariant_violations(records),
    }


def scripted_arm(workers: int, out: Path) -> dict:
    """LLM calls per accepted page, and early rejection against the baseline (it off)."""
    from llm.llm_server import ScriptedLLMServer, chat_reply

    folder = ROOT / "data/fixtures/repair_llm"
    items = load_items(folder / "items.jsonl")
    counter = (folder / "counter.html").read_text()
    fixed = counter.replace("() => { show(); }", "() => { n = 0; show(); }")
    breaking = {"patches": [{"old_str": "n += 1;", "new_str": "n = Math.min(n + 1, 1);"},
                            {"old_str": "() => { show(); }", "new_str": "() => { n = 0; show(); }"}]}
    good = {"patches": [{"old_str": "() => { show(); }", "new_str": "() => { n = 0; show(); }"}]}
    arms = {}
    for early in (True, False):
        patch_answers = iter([breaking] + [good] * 10)  # the first patch regresses, the next ones fix

        def answer(request):
            if "complete HTML document only" in request.user_text:  # rewrite mode (the Low page)
                return chat_reply(f"```html\n{fixed}\n```")
            return chat_reply(json.dumps(next(patch_answers)))

        with ScriptedLLMServer(fallback=answer) as server:
            os.environ.update(OPENAI_API_BASE=server.base_url, OPENAI_API_KEY="sk-bench-not-a-secret")
            from webmend.llm.settings import GenerationSettings
            from webmend.repair.run import ModelSpec

            spec = ModelSpec("openai/scripted", GenerationSettings(workers=1).model_dump_json(),
                             str(out / f"cache-{early}"))
            rcfg = RepairConfig(early_reject=early, candidates_per_round=1, max_rounds=3)
            arm_out = out / f"early-{early}"
            summary = run_repair(list(iter_pages([folder / "counter.html", folder / "blank.html"])), items, {}, rcfg,
                                 arm_out, model=spec, workers=workers)
            records = list(iter_records(arm_out / REPAIRS))
            rejected = [a for r in records for a in r["attempts"] if not a["accepted"] and a["eval_s"] > 0]
            arms[early] = {"llm_calls": summary["llm_calls"], "accepted_pages": sum(
                1 for r in records if any(a["accepted"] and a["strategy"] != "operator" for a in r["attempts"])),
                "rejected_eval_s": round(sum(a["eval_s"] for a in rejected), 2),
                "candidate_eval_s": summary["candidate_eval_s"], "early_rejected": summary["early_rejected"],
                "requests": len(server.requests), "invariant_violations": invariant_violations(records)}
    on, off = arms[True], arms[False]
    return {"with_early_rejection": on, "baseline_without": off,
            "llm_calls_per_accepted_page": round(on["llm_calls"] / max(1, on["accepted_pages"]), 2),
            "rejected_candidate_eval_time_ratio": round(on["rejected_eval_s"] / max(1e-9, off["rejected_eval_s"]), 3),
            "share_of_candidate_eval_time_saved": round(1 - on["candidate_eval_s"] / max(1e-9, off["candidate_eval_s"]), 3)}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--from-samples", help="an evaluate --out folder of the samples (stored verdicts)")
    p.add_argument("--from-bench", help="an evaluate --out folder of data/bench")
    p.add_argument("--corpora", nargs="+", choices=tuple(CORPORA), default=["samples", "bench"],
                   help="which corpora the operators arm runs on")
    p.add_argument("--skip-operators", action="store_true", help="only the scripted-model arm")
    p.add_argument("--skip-scripted", action="store_true", help="only the operators arm")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--out", help="keep outputs here (default: a temporary folder)")
    a = p.parse_args()
    out = Path(a.out or tempfile.mkdtemp(prefix="bench-repair-"))
    report = {}
    if not a.skip_operators:
        stored = {"samples": a.from_samples, "bench": a.from_bench}
        report["operators"] = [operators_arm(name, stored.get(name), a.workers, out / name) for name in a.corpora]
    if not a.skip_scripted:
        report["scripted_model"] = scripted_arm(a.workers, out / "scripted")
    print(json.dumps(report, indent=2))
    print(f"outputs: {out}", file=sys.stderr)
    bad = [v for arm in report.get("operators", []) for v in arm["invariant_violations"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
