"""The intake stage: raw prompts in, kept prompts and reasoned rejects out.

Order matters and is fixed: unusable records, then the exclusion policy's rules (before any text
reaches an LLM), the optional rewrite (rules again on its output), length and scope, the policy
model when one is given (only for what the rules and the cheap checks let through), decontamination
(a benchmark match must not claim a dedup slot), dedup, and finally the family label. Every input
ends as exactly one kept prompt or one reject with a reason from REJECT_REASONS.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterable

from webmend.intake.config import IntakeConfig
from webmend.intake.decontam import Contamination, Decontaminator
from webmend.intake.dedup import Deduplicator, Fingerprint
from webmend.intake.family import FamilyLabel, classify
from webmend.intake.policy import PolicyVerdict, check_policy, redact
from webmend.intake.policy_model import ask_policy_model
from webmend.intake.rewrite import rewrite_post
from webmend.intake.scope import check_scope
from webmend.intake.sources import RawPrompt
from webmend.schemas.hashing import sha256_hex

log = logging.getLogger(__name__)

Complete = Callable[[list[dict]], str]


@dataclass(frozen=True)
class Kept:
    id: str
    prompt: str
    raw: RawPrompt
    label: FamilyLabel
    original: str | None  # the raw post when the prompt is a rewrite


@dataclass(frozen=True)
class Rejected:
    id: str
    text: str  # redacted
    reason: str
    detail: str
    raw: RawPrompt
    rule: str | None = None
    matched_id: str | None = None
    similarity: float | None = None
    benchmark_file: str | None = None
    matched_ngrams: int | None = None  # contaminated by n-gram overlap: shared benchmark n-grams
    policy_source: str | None = None  # reason policy: "rule", "model" or "source" (the source's own opt-out)


@dataclass
class IntakeResult:
    kept: list[Kept] = field(default_factory=list)
    rejects: list[Rejected] = field(default_factory=list)
    inputs_hash: str = ""  # sha256 over the inputs' texts in order: names the run
    elapsed_s: float = 0.0
    policy_model: dict | None = None  # with a policy model: calls asked, exclusions, unusable answers


class _Reject(Exception):
    def __init__(self, reason: str, detail: str, **extra):
        super().__init__(detail)
        self.reason, self.detail, self.extra = reason, detail, extra


class Intake:
    """One run's state: the dedup memory and the ids handed out so far."""

    def __init__(self, cfg: IntakeConfig, *, decontaminator: Decontaminator | None = None,
                 rewrite: Complete | None = None, classify_llm: Complete | None = None,
                 policy_llm: Complete | None = None):
        if decontaminator is not None and decontaminator.dedup_settings != cfg.dedup:
            raise ValueError("the decontaminator must sign with the run's dedup settings")
        self.cfg = cfg
        self.decontaminator = decontaminator
        self.rewrite = rewrite
        self.classify_llm = classify_llm
        self.policy_llm = policy_llm
        self.policy_stats: dict = {"asked": 0, "excluded": 0, "unusable": []}
        self.dedup = Deduplicator(cfg.dedup)
        self._ids: Counter = Counter()

    def process(self, raw: RawPrompt) -> Kept | Rejected:
        pid = self._unique_id(raw.id)
        text, original = raw.text, None
        try:
            self._check_source(raw)
            if raw.needs_rewrite and self.rewrite is not None:
                text, original = self._rewritten(raw), raw.text
            self._check_text(pid, text)
            fp = self.dedup.signer.fingerprint(text)  # one signature serves decontam and dedup
            self._check_decontam(text, fp)
            self._check_dedup(pid, text, fp)
        except _Reject as rej:
            return Rejected(pid, redact(text), rej.reason, rej.detail, raw, **rej.extra)
        label = classify(text, raw.hints, self.classify_llm, self.cfg.family.llm_below_confidence)
        return Kept(pid, text, raw, label, original)

    def _unique_id(self, given: str) -> str:
        # '#' marks sample ids downstream (P#k), so it never appears in a prompt id.
        base = given.replace("#", "-").strip() or "prompt"
        self._ids[base] += 1
        return base if self._ids[base] == 1 else f"{base}~{self._ids[base]}"

    def _check_source(self, raw: RawPrompt) -> None:
        if raw.problem:
            raise _Reject("malformed_input", raw.problem)
        if raw.source_policy:
            rule, detail = raw.source_policy
            raise _Reject("policy", detail, rule=rule, policy_source="source")
        _raise_policy(check_policy(raw.text))

    def _rewritten(self, raw: RawPrompt) -> str:
        result = rewrite_post(raw.text, self.rewrite, min_chars=self.cfg.min_prompt_chars)
        if result.not_a_task:
            raise _Reject("not_a_web_task", "the rewriter found no request for a web page", rule="rewriter")
        if result.prompt is None:
            raise _Reject("rewrite_failed", result.error or "no rewrite")
        return result.prompt

    def _check_text(self, pid: str, text: str) -> None:
        _raise_policy(check_policy(text))
        n = len(text)
        if not self.cfg.min_prompt_chars <= n <= self.cfg.max_prompt_chars:
            raise _Reject("length", f"{n} characters; allowed {self.cfg.min_prompt_chars}-{self.cfg.max_prompt_chars}")
        why = check_scope(text)
        if why:
            raise _Reject("not_a_web_task", why, rule="scope")
        self._ask_policy_model(pid, text)

    def _ask_policy_model(self, pid: str, text: str) -> None:
        if self.policy_llm is None:
            return
        answer = ask_policy_model(text, self.policy_llm)
        self.policy_stats["asked"] += 1
        if answer.problem:
            self.policy_stats["unusable"].append({"id": pid, "problem": answer.problem})
        if answer.verdict:
            self.policy_stats["excluded"] += 1
            _raise_policy(answer.verdict)

    def _check_decontam(self, text: str, fp: Fingerprint) -> None:
        if self.decontaminator is None:
            return
        hit: Contamination | None = self.decontaminator.check(text, fp)
        if hit:
            detail = f"{hit.kind} match of benchmark prompt {hit.benchmark_id}"
            if hit.matched_ngrams is not None:
                detail += (f": {hit.matched_ngrams} shared {self.cfg.decontam.ngram_n}-word n-grams"
                           f" ({hit.similarity:.0%} of the benchmark prompt's)")
            raise _Reject("contaminated", detail, rule=hit.kind, matched_id=hit.benchmark_id,
                          similarity=hit.similarity, benchmark_file=hit.benchmark_file,
                          matched_ngrams=hit.matched_ngrams)

    def _check_dedup(self, pid: str, text: str, fp: Fingerprint) -> None:
        match = self.dedup.check(pid, text, fp)
        if match is None:
            return
        reason = "duplicate" if match.kind == "exact" else "near_duplicate"
        raise _Reject(reason, f"{match.kind} match of kept prompt {match.key}", matched_id=match.key,
                      similarity=match.similarity)


def _raise_policy(verdict: PolicyVerdict | None) -> None:
    if verdict:
        raise _Reject("policy", f"{verdict.source}: {verdict.detail}", rule=verdict.rule, policy_source=verdict.source)


def run_intake(raws: Iterable[RawPrompt], intake: Intake) -> IntakeResult:
    result = IntakeResult()
    started = time.perf_counter()
    digest = []
    for raw in raws:
        digest.append(sha256_hex(raw.text))
        outcome = intake.process(raw)
        (result.kept if isinstance(outcome, Kept) else result.rejects).append(outcome)
    result.inputs_hash = sha256_hex("\n".join(digest))
    result.elapsed_s = round(time.perf_counter() - started, 3)
    if intake.policy_llm is not None:
        result.policy_model = {**intake.policy_stats, "unusable": list(intake.policy_stats["unusable"])}
    log.info("intake: %d kept, %d rejected", len(result.kept), len(result.rejects))
    return result
