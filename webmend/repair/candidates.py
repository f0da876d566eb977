"""Candidates for a round: deterministic operator edits first, then what the model proposes.

A Candidate is a whole page (or, when it failed before it could be one, the reason why) with
where it came from: strategy, mode, operator or model, the router rule, and the model's usage.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from webmend.config import RepairConfig
from webmend.repair.operators import apply_all, detect_all
from webmend.schemas.repair import Diagnosis


@dataclass(frozen=True)
class Candidate:
    html: str | None
    strategy: str
    mode: str
    name: str
    rule: str
    operators: tuple[str, ...] = ()
    error: str = ""  # why there is no page (html is None)
    usage: dict = field(default_factory=dict)  # prompt_tokens, completion_tokens, cost_usd, cache_hit
    llm_call: bool = False  # a model was asked (a cache hit counts: it is an answer)


def operator_candidates(d: Diagnosis, html: str, rejected: set[tuple[str, ...]], cfg: RepairConfig) -> list[Candidate]:
    """All detected fixes as one candidate; once that combination was rejected, each fix on its
    own (at most a round's worth), skipping any single fix that was itself rejected."""
    if not cfg.operators:
        return []
    found = detect_all(d, html)
    if not found:
        return []
    names = tuple(op.name for op, _ in found)
    if names not in rejected:
        return [_candidate(html, found, "operators: " + ", ".join(names))]
    singles = [(op, f) for op, f in found if (op.name,) not in rejected]
    return [_candidate(html, [fix], f"operator {fix[0].name} alone (the combination was rejected)")
            for fix in singles[: cfg.candidates_per_round]]


def _candidate(html: str, fixes: list, rule: str) -> Candidate:
    names = tuple(op.name for op, _ in fixes)
    return Candidate(html=apply_all(html, fixes), strategy="operator", mode="operator", name="+".join(names),
                     rule=rule, operators=names)
