"""Quality of the intake rules on the committed labelled sets, checked against the config's gates.

    python -m webmend.intake.quality [--config FILE]     # prints the figures; exit 1 below a gate

data/intake/family_labels.jsonl: prompts labelled with family and interactive flag ("dev" rows were
seen while writing the rules, "holdout" rows were not). data/intake/near_dup_pairs.jsonl: prompt
pairs labelled duplicate or not, by variant (whitespace, case, punctuation, small_edit,
distinct_same_topic). data/intake/decontam_cases.jsonl: prompts labelled contaminated (with the
benchmark item of data/bench/items.jsonl they leak) or clean, by variant (exact, near,
embedded_passage, clean_same_topic). data/intake/policy_labelled.jsonl: prompts labelled with the
policy rule that excludes them or null (allowed, mostly demos of the excluded things); "dev" rows
were written to build the rules from, "held_out" paraphrases were written before the rules and never
used to tune them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from webmend.intake.config import IntakeConfig, load_intake_config
from webmend.intake.decontam import Decontaminator, load_benchmarks
from webmend.intake.dedup import Deduplicator
from webmend.intake.family import classify_rules
from webmend.intake.policy_model import Complete, decide

DATA = Path(__file__).resolve().parents[2] / "data" / "intake"
FAMILY_LABELS = DATA / "family_labels.jsonl"
NEAR_DUP_PAIRS = DATA / "near_dup_pairs.jsonl"
DECONTAM_CASES = DATA / "decontam_cases.jsonl"
POLICY_LABELLED = DATA / "policy_labelled.jsonl"
DECONTAM_BENCHMARK = DATA.parents[0] / "bench" / "items.jsonl"


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def family_metrics(path: Path = FAMILY_LABELS) -> dict:
    rows = _rows(path)
    out: dict = {"rows": len(rows)}
    for split in ("all", "dev", "holdout"):
        subset = [r for r in rows if split == "all" or r.get("split", "dev") == split]
        if not subset:
            continue
        labels = [classify_rules(r["text"]) for r in subset]
        out[split] = {
            "rows": len(subset),
            "family_accuracy": round(sum(l.family == r["family"] for l, r in zip(labels, subset)) / len(subset), 4),
            "interactive_accuracy": round(sum(l.interactive == r["interactive"] for l, r in zip(labels, subset)) / len(subset), 4),
        }
    predicted = {r["id"]: classify_rules(r["text"]).family for r in rows}
    misses = Counter((r["family"], predicted[r["id"]]) for r in rows if predicted[r["id"]] != r["family"])
    out["confusions"] = {f"{a} -> {b}": n for (a, b), n in sorted(misses.items())}
    return out


def near_dup_metrics(cfg: IntakeConfig, path: Path = NEAR_DUP_PAIRS) -> dict:
    rows = _rows(path)
    tp = fp = fn = tn = 0
    by_variant: Counter = Counter()
    for r in rows:
        dedup = Deduplicator(cfg.dedup)
        dedup.check("a", r["a"])
        predicted = dedup.check("b", r["b"]) is not None
        tp += predicted and r["duplicate"]
        fp += predicted and not r["duplicate"]
        fn += (not predicted) and r["duplicate"]
        tn += (not predicted) and not r["duplicate"]
        by_variant[(r["variant"], predicted == r["duplicate"])] += 1
    variants = sorted({v for v, _ in by_variant})
    return {
        "pairs": len(rows),
        "precision": round(tp / (tp + fp), 4) if tp + fp else 0.0,
        "recall": round(tp / (tp + fn), 4) if tp + fn else 0.0,
        "counts": {"tp": tp, "fp": fp, "fn": fn, "tn": tn},
        "correct_by_variant": {v: f"{by_variant[(v, True)]}/{by_variant[(v, True)] + by_variant[(v, False)]}" for v in variants},
        "threshold": cfg.dedup.threshold,
    }


def decontam_metrics(cfg: IntakeConfig, path: Path = DECONTAM_CASES) -> dict:
    """Precision and recall of decontamination against data/bench/items.jsonl. A hit counts as a
    true positive only when it names the right benchmark item."""
    rows = _rows(path)
    decontaminator = Decontaminator(load_benchmarks([DECONTAM_BENCHMARK]), cfg.dedup, cfg.decontam)
    tp = fp = fn = tn = 0
    by_variant: Counter = Counter()
    caught_by: Counter = Counter()
    for r in rows:
        hit = decontaminator.check(r["text"])
        right = hit is not None and hit.benchmark_id == r["benchmark_id"]
        tp += r["contaminated"] and right
        fn += r["contaminated"] and not right
        fp += hit is not None and not right
        tn += hit is None and not r["contaminated"]
        by_variant[(r["variant"], right if r["contaminated"] else hit is None)] += 1
        if hit is not None:
            caught_by[hit.kind] += 1
    variants = sorted({v for v, _ in by_variant})
    return {
        "cases": len(rows),
        "precision": round(tp / (tp + fp), 4) if tp + fp else 0.0,
        "recall": round(tp / (tp + fn), 4) if tp + fn else 0.0,
        "counts": {"tp": tp, "fp": fp, "fn": fn, "tn": tn},
        "correct_by_variant": {v: f"{by_variant[(v, True)]}/{by_variant[(v, True)] + by_variant[(v, False)]}" for v in variants},
        "caught_by": dict(sorted(caught_by.items())),
        "settings": cfg.decontam.model_dump(),
    }


def policy_metrics(path: Path = POLICY_LABELLED, complete: Complete | None = None) -> dict:
    """Per split: recall (excluded / should be excluded), precision (right exclusions / all
    exclusions), demo_pass (allowed rows that pass / allowed rows) and rule_agreement (excluded rows
    whose rule is the labelled one or an accepted alternative). With `complete`, the policy model is
    asked too (rules + model), and the rows whose answer was unusable are counted."""
    rows = _rows(path)
    out: dict = {"rows": len(rows), "with_model": complete is not None}
    for split in ("dev", "held_out"):
        subset = [r for r in rows if r["split"] == split]
        out[split] = _policy_split(subset, [decide(r["text"], complete) for r in subset])
    return out


def _policy_split(rows: list[dict], decisions: list) -> dict:
    tp = fp = fn = tn = agree = 0
    missed, wrongly_excluded = [], []
    for r, d in zip(rows, decisions):
        should, did = r["rule"] is not None, d.verdict is not None
        tp, fp, fn, tn = tp + (should and did), fp + (did and not should), fn + (should and not did), tn + (not should and not did)
        agree += should and did and d.verdict.rule in [r["rule"], *r.get("also", [])]
        if should != did:
            (missed if should else wrongly_excluded).append(r["id"])
    return {
        "rows": len(rows),
        "recall": round(tp / (tp + fn), 4) if tp + fn else 0.0,
        "precision": round(tp / (tp + fp), 4) if tp + fp else 0.0,
        "demo_pass": round(tn / (tn + fp), 4) if tn + fp else 0.0,
        "rule_agreement": round(agree / tp, 4) if tp else 0.0,
        "counts": {"tp": tp, "fp": fp, "fn": fn, "tn": tn},
        "by_model": sum(d.verdict is not None and d.verdict.source == "model" for d in decisions),
        "model_unusable": sum(d.problem is not None for d in decisions),
        "missed": missed,
        "wrongly_excluded": wrongly_excluded,
    }


def quality_report(cfg: IntakeConfig) -> dict:
    fam, dup, decontam = family_metrics(), near_dup_metrics(cfg), decontam_metrics(cfg)
    policy = policy_metrics()
    g = cfg.quality
    gates = {
        "family_accuracy": (fam["all"]["family_accuracy"], g.family_accuracy_min),
        "interactive_accuracy": (fam["all"]["interactive_accuracy"], g.interactive_accuracy_min),
        "near_dup_precision": (dup["precision"], g.near_dup_precision_min),
        "near_dup_recall": (dup["recall"], g.near_dup_recall_min),
        "decontam_precision": (decontam["precision"], g.decontam_precision_min),
        "decontam_recall": (decontam["recall"], g.decontam_recall_min),
        "policy_held_out_recall": (policy["held_out"]["recall"], g.policy_held_out_recall_min),
        "policy_demo_pass": (policy["held_out"]["demo_pass"], g.policy_demo_pass_min),
    }
    return {
        "family": fam,
        "near_duplicates": dup,
        "decontamination": decontam,
        "policy": policy,
        "gates": {k: {"value": v, "min": m, "pass": v >= m} for k, (v, m) in gates.items()},
        "pass": all(v >= m for v, m in gates.values()),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m webmend.intake.quality", description=__doc__.split("\n\n")[0])
    p.add_argument("--config", help="intake config (TOML/JSON) whose thresholds and gates to use")
    report = quality_report(load_intake_config(p.parse_args(argv).config))
    print(json.dumps(report, indent=2))
    return 0 if report["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
