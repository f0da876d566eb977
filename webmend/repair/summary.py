"""summary.json of a repair run, from its repairs.jsonl records (never from a browser).

The band transition matrix reads like the paper's Table 8: rows are original bands, columns final
bands, counts with row percentages; lift by strategy family and original state like Table 7.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Iterable

from webmend.schemas.vocab import STATES
from webmend.stage.progress import slowest

UNSCORED = "unscored"
BANDS = (*STATES, UNSCORED)


def mean(xs: list[float]) -> float | None:
    return round(sum(xs) / len(xs), 3) if xs else None


def transitions(records: list[dict]) -> dict[str, dict[str, dict]]:
    """{original band: {final band: {"count", "row_pct"}}}; unscored pages are their own row."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for r in records:
        counts[r["original_state"] or UNSCORED][r["final_state"] or UNSCORED] += 1
    out = {}
    for row in BANDS:
        n = sum(counts[row].values())
        if n:
            out[row] = {col: {"count": counts[row][col], "row_pct": round(100 * counts[row][col] / n, 1)}
                        for col in BANDS if counts[row][col]}
    return out


def lift_by_strategy(records: list[dict]) -> dict[str, dict[str, dict]]:
    """Accepted lift per strategy family and original state: attempts, accepted, mean accepted gain."""
    acc: dict[tuple[str, str], list] = defaultdict(lambda: [0, 0, []])
    for r in records:
        state = r["original_state"] or UNSCORED
        for a in r["attempts"]:
            cell = acc[(a["strategy"], state)]
            cell[0] += 1
            if a["accepted"]:
                cell[1] += 1
                cell[2].append((a["score_after"] or 0.0) - (a["score_before"] or 0.0))
    out: dict[str, dict[str, dict]] = defaultdict(dict)
    for (strategy, state), (n, ok, gains) in sorted(acc.items()):
        out[strategy][state] = {"attempts": n, "accepted": ok, "mean_gain": mean(gains)}
    return dict(out)


def operator_counts(records: list[dict]) -> dict[str, dict[str, int]]:
    """Per deterministic operator: how often it was proposed and how often its edit was kept."""
    out: dict[str, Counter] = defaultdict(Counter)
    for r in records:
        for a in r["attempts"]:
            if a["strategy"] != "operator":
                continue
            for name in a["name"].split("+"):
                out[name]["proposed"] += 1
                out[name]["accepted"] += int(a["accepted"])
    return {k: dict(v) for k, v in sorted(out.items())}


def unpassable_counts(records: list[dict]) -> dict[str, int]:
    """Failed test cases of the original pages that no correct page can pass, by rule."""
    rules = Counter(t["rule"] for r in records for t in (r.get("diagnosis") or {}).get("unpassable_tests") or [])
    return dict(sorted(rules.items()))


def summarize_repairs(records: Iterable[dict], elapsed_s: float) -> dict:
    records = list(records)
    scored = [r for r in records if r["original_score"] is not None]
    attempts = [a for r in records for a in r["attempts"]]
    evaluated = [a for a in attempts if a["eval_s"] > 0]
    return {
        "pages": len(records),
        "stop_reasons": dict(sorted(Counter(r["stop_reason"] for r in records).items())),
        "mean_score_before": mean([r["original_score"] for r in scored]),
        "mean_score_after": mean([r["final_score"] for r in scored]),
        "pages_improved": sum(1 for r in scored if (r["final_score"] or 0) > (r["original_score"] or 0)),
        "pages_up_a_band": sum(1 for r in scored if STATES.index(r["final_state"]) > STATES.index(r["original_state"])),
        "transitions": transitions(records),
        "lift_by_strategy": lift_by_strategy(records),
        "operators": operator_counts(records),
        "unpassable_checks": unpassable_counts(records),
        "attempts": len(attempts),
        "accepted": sum(1 for a in attempts if a["accepted"]),
        "early_rejected": sum(1 for a in attempts if a["early_rejected"]),
        "candidate_evaluations": len(evaluated),
        "candidate_eval_s": round(sum(a["eval_s"] for a in evaluated), 3),
        "llm_calls": sum(r["llm_calls"] for r in records),
        "cost_usd": round(sum(r["cost_usd"] or 0.0 for r in records), 6),
        "elapsed_s": round(elapsed_s, 3),
        # With workers in parallel the pages' seconds add up to more than the run's wall time.
        "slowest_page": slowest({r["id"]: r["elapsed_s"] for r in records}, elapsed_s or None),
    }
