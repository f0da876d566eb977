"""summary.json: one object describing a results.jsonl (pages by status, mean score, pass rates)."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Iterable

from webmend.config import EvalConfig
from webmend.evaluate.scoring import SCORING_VERSION
from webmend.schemas.results import Summary
from webmend.schemas.vocab import DIMENSIONS


def _rate(acc: dict) -> dict:
    total = acc["weight_total"]
    return {**acc, "rate": round(acc["weight_passed"] / total, 4) if total else None}


def summarize(records: Iterable[dict], cfg: EvalConfig, elapsed_s: float) -> dict:
    statuses, states, flags = Counter(), Counter(), Counter()
    totals: list[float] = []
    dims: dict[str, list[float]] = defaultdict(list)
    by_cat: dict[str, dict] = defaultdict(lambda: {"pages": 0, "weight_passed": 0.0, "weight_total": 0.0})
    by_diff: dict[str, dict] = defaultdict(lambda: {"pages": 0, "weight_passed": 0.0, "weight_total": 0.0})
    overall = {"weight_passed": 0.0, "weight_total": 0.0}
    blocked = 0
    cdn_hits = cdn_subs = cdn_misses = 0
    pages = 0
    for rec in records:
        pages += 1
        statuses[rec["status"]] += 1
        flags.update(rec["flags"])
        blocked += rec["blocked_requests_total"]
        if rec["state"]:
            states[rec["state"]] += 1
        if rec["score"]:
            totals.append(rec["score"]["total"])
            for d in DIMENSIONS:
                if rec["score"][d] is not None:
                    dims[d].append(rec["score"][d])
        net = ((rec.get("evidence") or {}).get("network")) or {}
        cdn_hits += len(net.get("cdn", {}))
        cdn_subs += sum(1 for v in net.get("cdn", {}).values() if v.get("substitution"))
        cdn_misses += len(net.get("cdn_misses", []))
        tests = rec["tests"]
        if not tests:
            continue
        passed = sum(t["weight"] for t in tests if t["passed"])
        total = sum(t["weight"] for t in tests)
        overall["weight_passed"] += passed
        overall["weight_total"] += total
        item = rec.get("item") or {}
        for key, acc in ((item.get("category") or "unknown", by_cat), (item.get("difficulty") or "unknown", by_diff)):
            acc[key]["pages"] += 1
            acc[key]["weight_passed"] += passed
            acc[key]["weight_total"] += total
    looked_up = cdn_hits + cdn_misses
    summary = {
        "scoring_version": SCORING_VERSION,
        "config_hash": cfg.config_hash(),
        "pages": pages,
        "pages_by_status": dict(sorted(statuses.items())),
        "pages_by_state": dict(sorted(states.items())),
        "flags": dict(sorted(flags.items())),
        "mean_score": round(sum(totals) / len(totals), 3) if totals else None,
        "mean_dimensions": {d: (round(sum(v) / len(v), 3) if (v := dims.get(d)) else None) for d in DIMENSIONS},
        "weighted_pass_rate": round(overall["weight_passed"] / overall["weight_total"], 4) if overall["weight_total"] else None,
        "pass_rate_by_category": {k: _rate(v) for k, v in sorted(by_cat.items())},
        "pass_rate_by_difficulty": {k: _rate(v) for k, v in sorted(by_diff.items())},
        "blocked_requests_total": blocked,
        "cdn": {"urls_served": cdn_hits, "substitutions": cdn_subs, "misses": cdn_misses,
                "hit_rate": round(cdn_hits / looked_up, 4) if looked_up else 1.0},
        "elapsed_s": round(elapsed_s, 3),
    }
    return Summary.model_validate(summary).model_dump(mode="json")
