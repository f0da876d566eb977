"""Regression-aware acceptance: is a re-evaluated candidate a better verified checkpoint?

A higher total is not enough (htmlcure.txt 3.4): a candidate is rejected when a test case the
checkpoint passes now fails (or a contract transition it passes), when a protected dimension drops beyond the tolerance, when it gains
a `tampering` flag or a page fault, or when it does not improve. An operator candidate may keep
an equal total when its defect is verifiably gone: it fixed something the score does not price.
"""

from __future__ import annotations

from dataclasses import dataclass

from webmend.config import RepairConfig
from webmend.schemas.vocab import DIMENSIONS

EPS = 1e-6


@dataclass(frozen=True)
class Verdict:
    accepted: bool
    reason: str
    tests_fixed: tuple[str, ...]
    tests_broken: tuple[str, ...]


def test_flips(before: dict, after: dict) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(fixed, broken): test ids that went from failing to passing, and from passing to failing."""
    was = {t["id"]: t["passed"] for t in before.get("tests") or []}
    now = {t["id"]: t["passed"] for t in after.get("tests") or []}
    fixed = tuple(sorted(i for i, ok in now.items() if ok and was.get(i) is False))
    broken = tuple(sorted(i for i, ok in was.items() if ok and not now.get(i, False)))
    return fixed, broken


def transition_flips(before: dict, after: dict) -> tuple[str, ...]:
    """Contract transitions the checkpoint passes and the candidate fails or is blocked on."""
    def passed(record: dict) -> dict[str, bool]:
        transitions = (record.get("contract") or {}).get("transitions") or {}
        return {tid: t["status"] == "passed" for tid, t in transitions.items()}

    was, now = passed(before), passed(after)
    return tuple(sorted(i for i, ok in was.items() if ok and not now.get(i, False)))


def total(record: dict) -> float | None:
    return (record.get("score") or {}).get("total")


def judge(candidate: dict, checkpoint: dict, rcfg: RepairConfig, fix_verified: bool | None = None) -> Verdict:
    """fix_verified: None for model candidates; for operator candidates, whether every defect the
    operators targeted is gone from the candidate's evidence."""
    fixed, broken = test_flips(checkpoint, candidate)

    def verdict(ok: bool, reason: str) -> Verdict:
        return Verdict(ok, reason, fixed, broken)

    if (candidate["status"] != "ok" and checkpoint["status"] == "ok") or total(candidate) is None:
        return verdict(False, f"page fault: {candidate['status']} ({candidate.get('reason', '')[:120]})")
    if broken:
        return verdict(False, "regression: passing test cases now fail: " + ", ".join(broken))
    if broken_transitions := transition_flips(checkpoint, candidate):
        return verdict(False, "regression: passing contract transitions now fail: " + ", ".join(broken_transitions))
    if "tampering" in candidate.get("flags", []) and "tampering" not in checkpoint.get("flags", []):
        return verdict(False, "regression: the candidate tampers with the evaluator")
    dropped = _dropped_dimensions(candidate, checkpoint, rcfg)
    if dropped:
        return verdict(False, "regression: protected dimensions dropped: " + ", ".join(dropped))
    gain = total(candidate) - (total(checkpoint) or 0.0)
    if fix_verified is False:
        return verdict(False, "the targeted defect is still in the evidence")
    if gain < -EPS:
        return verdict(False, f"lower total ({gain:+.2f})")
    if gain <= EPS and not fix_verified:
        return verdict(False, "no gain")
    return verdict(True, f"accepted ({gain:+.2f})" + (", defect verified gone" if fix_verified else ""))


def _dropped_dimensions(candidate: dict, checkpoint: dict, rcfg: RepairConfig) -> list[str]:
    out = []
    for dim in DIMENSIONS:
        if dim not in rcfg.protected_dimensions:
            continue
        before, after = (checkpoint.get("score") or {}).get(dim), (candidate.get("score") or {}).get(dim)
        if before is not None and after is not None and before - after > rcfg.dimension_tolerance:
            out.append(f"{dim} {before:.1f}->{after:.1f}")
    return out
