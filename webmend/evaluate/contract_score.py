"""Contract scores from executed transitions (WebLoop's definitions, docs/icg-format.md "Scores").

Pure: the executor reports per transition its status and each assertion's verdict; this turns them
into T, per-requirement scores, the labels z, Re, Ri and r_web = 0.5 T + 0.25 Re + 0.25 Ri.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from webmend.schemas.contract import Contract, requirement_links

TRANSITION_STATUSES = ("passed", "failed", "blocked")  # blocked: its from-state could not be reached
WEIGHTS = (0.5, 0.25, 0.25)  # T, Re, Ri


@dataclass(frozen=True)
class TransitionOutcome:
    status: str  # TRANSITION_STATUSES
    assertions: dict[str, bool | None] = field(default_factory=dict)  # id -> verdict; None: not run (judged, no judge)
    failed_step: int | None = None
    reason: str = ""  # the first failure
    reasons: dict[str, str] = field(default_factory=dict)  # every failed assertion (or state) -> why, in full
    steps: list[dict] = field(default_factory=list)  # {action, ok, reason} of each step run, in order


@dataclass(frozen=True)
class ContractScore:
    transition_validity: float  # T
    requirements: dict[str, float]  # id -> share of its checks that passed
    labels: dict[str, int]  # z: 1 only when every check of the requirement passed
    req_explicit: float  # Re
    req_implicit: float  # Ri
    reward: float  # r_web


def score_contract(contract: Contract, outcomes: dict[str, TransitionOutcome],
                   initial: dict[str, bool | None] | None = None) -> ContractScore:
    """outcomes: one per transition (a missing one counts as blocked); initial: verdicts of the
    initial contract's checks. A blocked transition's assertions count as failed; assertions not
    run (judged, without a judge) count for nothing."""
    verdicts: dict[str, bool | None] = dict(initial or {})
    passed = 0
    for t in contract.transitions:
        out = outcomes.get(t.id, TransitionOutcome("blocked"))
        passed += out.status == "passed"
        for a in t.assertions:
            verdicts[a.id] = False if out.status == "blocked" else out.assertions.get(a.id, False)
    T = passed / len(contract.transitions) if contract.transitions else 0.0
    shares, labels = {}, {}
    for rid, link in requirement_links(contract).items():
        if link["assertions"]:
            checks = [verdicts.get(a) for a in link["assertions"]]
        else:
            checks = [outcomes.get(tid, TransitionOutcome("blocked")).status == "passed" for tid in link["transitions"]]
        ran = [bool(v) for v in checks if v is not None]
        shares[rid] = sum(ran) / len(ran) if ran else 0.0
        labels[rid] = int(bool(ran) and all(ran))
    re_, ri = (_mean([shares[r.id] for r in contract.requirements if r.kind == kind]) for kind in ("explicit", "implicit"))
    # A task without implicit requirements is scored on its explicit ones for both halves.
    ri = re_ if ri is None else ri
    re_ = 0.0 if re_ is None else re_
    ri = 0.0 if ri is None else ri
    reward = WEIGHTS[0] * T + WEIGHTS[1] * re_ + WEIGHTS[2] * ri
    return ContractScore(round(T, 6), shares, labels, round(re_, 6), round(ri, 6), round(reward, 6))


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None
