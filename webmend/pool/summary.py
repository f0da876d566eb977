"""A run's summary from its committed trace files: counts by status and band, mean scores, the
slowest pages and the top failures, as a dict and as markdown (the flow's Prefect artifact).

Read from the data root, not from memory, so a resumed run summarises the whole corpus, including
the batches an earlier (killed) run committed.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence


from webmend.schemas.vocab import EVALUATOR_FAILURE_STATUSES, PAGE_FAULT_STATUSES, SCORE_FIELDS, STATES
from webmend.store import DataRoot

BANDS = tuple(reversed(STATES))  # best first, as the summary table lists them
# Pages that got no score: the page broke its browser, or the evaluator failed on it.
FAILURE_STATUSES = (*EVALUATOR_FAILURE_STATUSES, *PAGE_FAULT_STATUSES)


def summarize_pool(root: DataRoot | str, keys: Sequence[str], *, slowest: int = 5, top: int = 5) -> dict:
    root = root if isinstance(root, DataRoot) else DataRoot(root)
    evals = root.read_keys("evaluations", keys).to_pylist()
    tests = root.read_keys("test_results", keys).to_pylist()
    means = {}
    for d in SCORE_FIELDS:
        values = [r[f"score_{d}"] for r in evals if r[f"score_{d}"] is not None]
        means[d] = round(sum(values) / len(values), 2) if values else None
    failed_tests = Counter(t["test_id"] for t in tests if not t["passed"])
    failures = [r for r in evals if r["status"] in FAILURE_STATUSES]
    return {
        "batches": len(keys),
        "batches_committed": sum(1 for k in keys if root.exists("evaluations", k)),
        "pages": len(evals),
        "by_status": dict(sorted(Counter(r["status"] for r in evals).items())),
        "by_band": {b or "unscored": n for b in (*BANDS, None) if (n := sum(1 for r in evals if r["state"] == b))},
        "mean_scores": means,
        "slowest": [{"id": r["id"], "status": r["status"], "elapsed_s": r["elapsed_s"]}
                    for r in sorted(evals, key=lambda r: (-(r["elapsed_s"] or 0), r["id"]))[:slowest]],
        "top_failed_tests": [{"test_id": t, "failures": n} for t, n in
                             sorted(failed_tests.items(), key=lambda kv: (-kv[1], kv[0]))[:top]],
        "failed_pages": [{"id": r["id"], "status": r["status"], "reason": r["reason"]}
                         for r in sorted(failures, key=lambda r: r["id"])[:top]],
    }


def _table(header: Sequence[str], rows: Sequence[Sequence]) -> list[str]:
    cell = lambda v: "-" if v is None else str(v).replace("|", "\\|").replace("\n", " ")[:120]  # noqa: E731
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(cell(v) for v in row) + " |" for row in rows)]


def summary_markdown(summary: dict, *, run_id: str, data_root: str) -> str:
    """The markdown artifact of a run."""
    lines = [f"# build-refined-pool: {run_id}", "",
             f"{summary['pages']} pages in {summary['batches_committed']}/{summary['batches']} committed batches; "
             f"data root `{data_root}`.", "", "## Pages by status", ""]
    lines += _table(("status", "pages"), list(summary["by_status"].items()))
    lines += ["", "## Pages by band", ""]
    lines += _table(("band", "pages"), list(summary["by_band"].items()))
    lines += ["", "## Mean scores (scored pages)", ""]
    lines += _table(("dimension", "mean"), list(summary["mean_scores"].items()))
    lines += ["", "## Slowest pages", ""]
    lines += _table(("page", "status", "seconds"), [(s["id"], s["status"], s["elapsed_s"]) for s in summary["slowest"]])
    lines += ["", "## Top failures", ""]
    lines += _table(("test case", "failures"), [(t["test_id"], t["failures"]) for t in summary["top_failed_tests"]])
    if summary["failed_pages"]:
        lines += [""]
        lines += _table(("page", "status", "reason"), [(p["id"], p["status"], p["reason"]) for p in summary["failed_pages"]])
    return "\n".join(lines) + "\n"

