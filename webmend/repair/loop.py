"""The repair loop: `repair_page` turns one evaluated page into its best verified checkpoint.

Each round the deterministic operators propose first (all detected fixes together; singly once a
combination was rejected), then the router's LLM strategies fill the round up to two candidates.
Every candidate passes the cheap checks, is evaluated again with the same evaluator config and
test cases (its checkpoint's passing test cases first, so a regression stops it early) and is
judged against the checkpoint (acceptance.py). The exported page is the best checkpoint, never
the last edit. A journal of finished rounds lets a killed run resume where it stopped.
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from webmend.config import RepairConfig
from webmend.evaluate.page import EarlyRejected
from webmend.llm.limits import SpendCapReached
from webmend.evaluate.scoring import score_terms
from webmend.repair import acceptance
from webmend.repair.candidates import Candidate, operator_candidates
from webmend.repair.changes import diff_summary
from webmend.repair.diagnosis import diagnose, unpassable_ids
from webmend.repair.evaluation import evaluate_html
from webmend.repair.operators import BY_NAME
from webmend.repair.precheck import precheck
from webmend.repair.router import not_repairable, route
from webmend.schemas.hashing import sha256_hex
from webmend.schemas.repair import Attempt, HistoryEntry, RepairRecord, RouteDecision, TermMove
from webmend.schemas.vocab import DIMENSIONS
from webmend.schemas.contract import Contract, contract_hash

log = logging.getLogger(__name__)

# propose_llm(decision, checkpoint, diagnosis, attempts) -> candidates, some of them failed before
# they became pages (a malformed answer, a failed cheap check). See model.llm_proposer.
ProposeLLM = Callable[..., list]
# compare(checkpoint record, candidate record) -> (feedback text or None, usage of the call)
Compare = Callable[[dict, dict], tuple]


@dataclass
class Checkpoint:
    round: int
    html: str
    record: dict  # its evaluation record
    parent_hash: str | None = None

    @property
    def page_hash(self) -> str:
        return sha256_hex(self.html)

    @property
    def total(self) -> float | None:
        return acceptance.total(self.record)


@dataclass
class RepairTrace:
    """What repair_page returns: the record (repairs.jsonl) and every verified checkpoint."""

    record: dict
    best: Checkpoint
    checkpoints: list[Checkpoint]
    original: Checkpoint
    regressions: dict[str, str] = field(default_factory=dict)  # page hash -> page of a regressing candidate


@dataclass
class _State:
    checkpoint: Checkpoint
    rounds: int = 0
    stale_rounds: int = 0
    attempts: list[Attempt] = field(default_factory=list)
    routes: list[RouteDecision] = field(default_factory=list)
    checkpoints: list[Checkpoint] = field(default_factory=list)
    score_path: list[float | None] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    rejected_operator_sets: set[tuple[str, ...]] = field(default_factory=set)
    llm_calls: int = 0
    item: dict | None = None  # the task's item: test-case steps for D(h), and which checks no page can pass
    # Evaluated candidates rejected for a regression, by page hash: export's hard negatives
    # (a preference pair's rejected side). Not journaled: a resumed run keeps only its new ones.
    regressions: dict[str, str] = field(default_factory=dict)


def repair_page(page: str, item: dict | None, evaluation: dict, cfg: RepairConfig, llm: ProposeLLM | None = None, *,
                worker=None, journal: str | Path | None = None, keyframes_to: str | Path | None = None,
                progress: Callable[[str, Attempt], None] | None = None, judge: Compare | None = None) -> RepairTrace:
    """Repair one page. `evaluation` is its stored result record; under another evaluator config
    it is evaluated again first. `llm` proposes model candidates (None: operators only); `judge`
    compares a fully evaluated candidate with its checkpoint (contrast.visual_comparison)."""
    from webmend.browser.worker import get_worker

    started = time.perf_counter()
    worker = worker or get_worker(cfg.evaluation)
    page_id = evaluation.get("id", "page")
    evaluate = _evaluator(item, cfg, worker, page_id, keyframes_to)
    if evaluation.get("config_hash") != cfg.evaluation.config_hash():
        log.info("%s: stored evaluation is from another evaluator config; evaluating the original again", page_id)
        evaluation = evaluate(page)
    elif _contract_hash(item) != (evaluation.get("contract") or {}).get("contract_hash"):
        # The task's contract is part of the verdict: its transitions are preserved like test cases.
        log.info("%s: stored evaluation ran another contract (or none); evaluating the original again", page_id)
        evaluation = evaluate(page)
    original = Checkpoint(0, page, evaluation)
    st = _resume(journal, original) or _State(checkpoint=original, score_path=[original.total],
                                               seen={original.page_hash})
    st.item = item
    stop = _run_rounds(st, cfg, llm, evaluate, journal, progress, judge)
    return _trace(st, original, stop, cfg, time.perf_counter() - started)


def _contract_hash(item: dict | None) -> str | None:
    contract = (item or {}).get("contract")
    return contract_hash(Contract.model_validate(contract)) if contract else None


def _evaluator(item, cfg: RepairConfig, worker, page_id: str, keyframes_to):
    def evaluate(html: str, must_pass: frozenset[str] = frozenset()) -> dict:
        return evaluate_html(html, item, cfg.evaluation, worker, page_id, keyframes_to, must_pass)

    return evaluate


def _run_rounds(st: _State, cfg: RepairConfig, llm, evaluate, journal, progress, judge=None) -> str:
    first = diagnose(st.checkpoint.record, cfg.evaluation, item=st.item)
    if (untouched := not_repairable(first, cfg)) is not None:
        st.routes.append(route(first, cfg, 0))
        return untouched[0]
    while True:
        if (st.checkpoint.total or 0.0) >= cfg.target:
            return "target_reached"
        if st.rounds >= cfg.max_rounds:
            return "max_rounds"
        if st.stale_rounds >= cfg.patience:
            return "patience"
        round_no = st.rounds + 1
        diag = diagnose(st.checkpoint.record, cfg.evaluation, _history(st), st.item)
        decision = route(diag, cfg, round_no)
        candidates = operator_candidates(diag, st.checkpoint.html, st.rejected_operator_sets, cfg)
        room = cfg.candidates_per_round - len(candidates)
        if llm is not None and room > 0 and decision.strategies:
            decision = decision.model_copy(update={"strategies": decision.strategies[:room]})
            try:
                proposed = llm(decision, st.checkpoint, diag, st.attempts)
            except SpendCapReached:
                return "spend_cap"
            st.llm_calls += sum(1 for c in proposed if c.llm_call)
            candidates += proposed
        st.routes.append(decision)  # recorded even when it admits nothing: preservation is a decision
        if not candidates:
            return "no_candidates"
        before = st.checkpoint.total
        for n, cand in enumerate(candidates, 1):
            attempt = _try(st, cand, round_no, n, evaluate, cfg, judge)
            st.attempts.append(attempt)
            if cand.operators and not attempt.accepted:  # however it failed: never proposed again
                st.rejected_operator_sets.add(cand.operators)
            if progress:
                progress(st.checkpoint.record.get("id", ""), attempt)
        st.rounds = round_no
        gain = (st.checkpoint.total or 0.0) - (before or 0.0)
        st.stale_rounds = 0 if gain >= cfg.min_gain else st.stale_rounds + 1
        st.score_path.append(st.checkpoint.total)
        _write_journal(journal, st)


def _try(st: _State, cand: Candidate, round_no: int, n: int, evaluate, cfg: RepairConfig, judge=None) -> Attempt:
    """Evaluate one candidate and, when it is acceptable and better, make it the checkpoint."""
    base = dict(round=round_no, candidate=n, strategy=cand.strategy, mode=cand.mode, name=cand.name,
                rule=cand.rule, score_before=st.checkpoint.total, **cand.usage)
    if cand.html is None:  # failed before evaluation (malformed answer, cheap check)
        return Attempt(**base, page_hash=None, accepted=False, reason=cand.error, score_after=None,
                       dimensions={}, tests_fixed=[], tests_broken=[], eval_s=0.0)
    chash = sha256_hex(cand.html)
    base["changes"] = diff_summary(st.checkpoint.html, cand.html)
    if chash in st.seen:
        return Attempt(**base, page_hash=chash, accepted=False, reason="identical to an earlier candidate",
                       score_after=None, dimensions={}, tests_fixed=[], tests_broken=[], eval_s=0.0)
    st.seen.add(chash)
    cheap = precheck(st.checkpoint.html, cand.html)  # before any browser sees it
    if cheap:
        return Attempt(**base, page_hash=chash, accepted=False, reason=f"cheap check: {cheap}", score_after=None,
                       dimensions={}, tests_fixed=[], tests_broken=[], eval_s=0.0)
    must_pass = _passing(st.checkpoint.record) if cfg.early_reject else frozenset()
    t0 = time.perf_counter()
    try:
        record = evaluate(cand.html, must_pass)
    except EarlyRejected as exc:
        st.regressions[chash] = cand.html
        return Attempt(**base, page_hash=chash, accepted=False, early_rejected=True,
                       reason=f"regression (early): passing test case {exc.test.get('id')} now fails at step "
                              f"{exc.test.get('failed_step')} ({exc.test.get('failed_action')}): {exc.test.get('error')}",
                       score_after=None, dimensions={}, tests_fixed=[], tests_broken=[str(exc.test.get("id"))],
                       eval_s=round(time.perf_counter() - t0, 3))
    eval_s = round(time.perf_counter() - t0, 3)
    verdict = acceptance.judge(record, st.checkpoint.record, cfg, _fix_verified(cand, record, cfg, st.item))
    revived, died, still = _control_flips(st.checkpoint.record, record)
    feedback = None
    if judge is not None:
        feedback, usage = judge(st.checkpoint.record, record)
        st.llm_calls += int(bool(usage) and not usage.get("cache_hit"))
        if usage.get("cost_usd"):
            base["cost_usd"] = (base.get("cost_usd") or 0.0) + usage["cost_usd"]
    attempt = Attempt(**base, visual_feedback=feedback, page_hash=chash, accepted=verdict.accepted, reason=verdict.reason,
                      score_after=acceptance.total(record), dimensions=_dims(st.checkpoint.record, record),
                      tests_fixed=list(verdict.tests_fixed), tests_broken=list(verdict.tests_broken),
                      terms_moved=_terms_moved(st.checkpoint.record, record, cfg), controls_revived=revived, controls_died=died, eval_s=eval_s)
    if not verdict.accepted and verdict.reason.startswith("regression"):
        st.regressions[chash] = cand.html
    if verdict.accepted:
        new = Checkpoint(round_no, cand.html, record, parent_hash=st.checkpoint.page_hash)
        st.checkpoint = new
        st.checkpoints.append(new)
    return attempt


def _fix_verified(cand: Candidate, record: dict, cfg: RepairConfig, item: dict | None) -> bool | None:
    if not cand.operators:
        return None
    after = diagnose(record, cfg.evaluation, item=item)
    return all(BY_NAME[name].detect(after, cand.html) is None for name in cand.operators)


def _control_flips(before: dict, after: dict) -> tuple[list[str], list[str], list[str]]:
    """Contrastive evidence by selector: controls that came alive, controls that died, and dead
    controls the candidate left dead (what an edit aimed at them did not change)."""
    def dead(record: dict) -> set[str]:
        return set((record.get("trace_summary") or {}).get("dead_controls") or [])

    def tested(record: dict) -> set[str]:
        controls = ((record.get("evidence") or {}).get("probe") or {}).get("controls") or []
        return {c.get("selector") for c in controls}

    b, a = dead(before), dead(after)
    return sorted((b - a) & tested(after)), sorted((a - b) & tested(before)), sorted(b & a)


def _passing(record: dict) -> frozenset[str]:
    return frozenset(t["id"] for t in record.get("tests") or [] if t["passed"])


def _dims(before: dict, after: dict) -> dict:
    b, a = before.get("score") or {}, after.get("score") or {}
    return {d: {"before": b.get(d), "after": a.get(d)} for d in DIMENSIONS}


def _terms_moved(before: dict, after: dict, cfg: RepairConfig) -> list[TermMove]:
    """Why a dimension moved, below the dimension: each scoring term (0..1) that changed."""
    b, a = score_terms(before, cfg.evaluation), score_terms(after, cfg.evaluation)
    return [TermMove(dimension=dim, term=term, before=b.get(dim, {}).get(term), after=a.get(dim, {}).get(term))
            for dim in DIMENSIONS for term in sorted({*b.get(dim, {}), *a.get(dim, {})})
            if b.get(dim, {}).get(term) != a.get(dim, {}).get(term)]


def _history(st: _State) -> list[HistoryEntry]:
    return [HistoryEntry(round=a.round, strategy=a.strategy, name=a.name, accepted=a.accepted, reason=a.reason,
                         score_after=a.score_after, changes=a.changes, tests_fixed=a.tests_fixed,
                         tests_broken=a.tests_broken) for a in st.attempts]


def _trace(st: _State, original: Checkpoint, stop: str, cfg: RepairConfig, elapsed: float) -> RepairTrace:
    best = st.checkpoint
    costs = [a.cost_usd for a in st.attempts if a.cost_usd is not None]
    ev = cfg.evaluation
    rec = RepairRecord(
        index=original.record.get("index", 0), id=original.record.get("id", "page"), config_hash=cfg.config_hash(),
        original_hash=original.page_hash, final_hash=best.page_hash,
        original_score=original.total, final_score=best.total,
        original_state=original.record.get("state"), final_state=best.record.get("state"),
        best_round=best.round, rounds=st.rounds, stop_reason=stop, attempts=st.attempts, routes=st.routes,
        checkpoints=[_ref(c, st.item) for c in [original, *st.checkpoints]],
        score_path=st.score_path, diagnosis=diagnose(original.record, ev, item=st.item),
        final_diagnosis=diagnose(best.record, ev, _history(st), st.item) if best is not original else None,
        llm_calls=st.llm_calls, cost_usd=round(sum(costs), 6) if costs else None, page=None,
        keyframes_before=_frames(original.record), keyframes_after=_frames(best.record), elapsed_s=round(elapsed, 3),
    )
    return RepairTrace(rec.model_dump(mode="json"), best, st.checkpoints, original, dict(st.regressions))


def _ref(c: Checkpoint, item: dict | None) -> dict:
    return {"unpassable_tests": unpassable_ids(c.record, item), "round": c.round, "page_hash": c.page_hash, "parent_hash": c.parent_hash, "score": c.total,
            "state": c.record.get("state"), "status": c.record.get("status"), "flags": list(c.record.get("flags") or []),
            **_contract_ref(c.record)}


def _frames(record: dict) -> list[str]:
    return [k["file"] for k in record.get("keyframes") or [] if k.get("file")]


# ---- the journal: one JSON line per finished round --------------------------------------------

def _write_journal(path: str | Path | None, st: _State) -> None:
    if path is None:
        return
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    line = {"round": st.rounds, "stale_rounds": st.stale_rounds,
            "checkpoint": {"round": st.checkpoint.round, "html": st.checkpoint.html, "record": st.checkpoint.record,
                           "parent_hash": st.checkpoint.parent_hash},
            "new_checkpoints": [c.page_hash for c in st.checkpoints],
            "attempts": [a.model_dump(mode="json") for a in st.attempts if a.round == st.rounds],
            "route": st.routes[-1].model_dump(mode="json"), "score": st.checkpoint.total,
            "seen": sorted(st.seen), "rejected_operator_sets": sorted(st.rejected_operator_sets),
            "llm_calls": st.llm_calls}
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(line, sort_keys=True) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def _resume(path: str | Path | None, original: Checkpoint) -> _State | None:
    """The state after the last complete round in the journal (a torn last line is ignored)."""
    if path is None or not Path(path).exists():
        return None
    rounds = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        try:
            rounds.append(json.loads(line))
        except json.JSONDecodeError:
            break
    if not rounds:
        return None
    st = _State(checkpoint=original, score_path=[original.total], seen={original.page_hash})
    by_hash: dict[str, Checkpoint] = {}
    for r in rounds:
        c = r["checkpoint"]
        cp = Checkpoint(c["round"], c["html"], c["record"], c["parent_hash"])
        if cp.round > 0 and cp.page_hash not in by_hash:
            by_hash[cp.page_hash] = cp
            st.checkpoints.append(cp)
        st.checkpoint = cp
        st.attempts += [Attempt.model_validate(a) for a in r["attempts"]]
        st.routes.append(RouteDecision.model_validate(r["route"]))
        st.score_path.append(r["score"])
    last = rounds[-1]
    st.rounds, st.stale_rounds = last["round"], last["stale_rounds"]
    st.seen = set(last["seen"])
    st.rejected_operator_sets = {tuple(s) for s in last["rejected_operator_sets"]}
    st.llm_calls = last["llm_calls"]
    log.info("%s: resuming after round %d", original.record.get("id"), st.rounds)
    return st


def _contract_ref(record: dict) -> dict:
    """The checkpoint's own contract reward and labels, verified with it (export carries them)."""
    c = record.get("contract") or {}
    return {"contract_reward": c.get("reward"), "contract_labels": c.get("labels")} if c.get("reward") is not None else {}
