"""Executing a contract on one page in the hardened evaluator (docs/icg-format.md, "Execution").

`execute_contract(html, contract, cfg)` is the whole call the RL stage uses as its reward: the page
runs in the evaluator's sandbox (offline, seeded randomness, virtual clock, one wall-clock budget),
each transition runs from its from-state, reached by replaying the chain of already-passed
transitions from S0 on a fresh document, and the outcomes are scored by `score_contract`.

Every fresh document runs the same prefix the same way: its load, the initial checks, then each
transition of the chain in full (steps, the `change` polls after every step, the `after` checks and
the to-state's predicate), so a state reached by continuing on a live document is the state a
replay reaches. That is what lets the depth-first walk share prefixes: the first transition out of
a newly reached state continues on the document that reached it; only its siblings pay a replay.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from webmend.browser.page_errors import BudgetExhausted, PageCrashed, PageHung
from webmend.browser.session import PageSession
from webmend.browser.worker import BrowserWorker, get_worker
from webmend.config import EvalConfig
from webmend.evaluate.contract_score import ContractScore, TransitionOutcome, score_contract
from webmend.evaluate.page import PageBudget, page_profile, page_shared
from webmend.evaluate.testcases import StepFailed, StepRunner, within_node_cap
from webmend.schemas.contract import INITIAL_STATE, Assertion, Contract, Transition, contract_hash

log = logging.getLogger(__name__)

# (screenshot png, statement, task prompt) -> (holds or None when not decided, evidence)
StatementCheck = Callable[[bytes, str, str], tuple[bool | None, str]]


@dataclass
class ContractRun:
    """What executing one contract on one page gave: outcomes, the initial checks and the score."""

    score: ContractScore
    transitions: dict[str, TransitionOutcome]
    initial: dict[str, bool | None]
    initial_reasons: dict[str, str]
    documents: int  # fresh loads
    transitions_run: int  # transitions executed, replays included
    page_faults: list[str] = field(default_factory=list)  # hangs and crashes seen, in order
    elapsed_s: float = 0.0

    unmet: list[dict] = field(default_factory=list)  # {id, kind, text} of the requirements with z = 0
    # The call during which the page's wall-clock budget ran out (empty: it did not): the score
    # then says how much of the contract the machine had time for, not what the page does.
    out_of_time: str = ""

    def to_dict(self) -> dict:
        s = self.score
        return {"unmet": self.unmet,
            "transition_validity": s.transition_validity, "req_explicit": s.req_explicit, "req_implicit": s.req_implicit,
            "reward": s.reward, "requirements": s.requirements, "labels": s.labels,
            "transitions": {tid: {"status": o.status, "failed_step": o.failed_step, "reason": o.reason,
                                  "reasons": o.reasons, "assertions": o.assertions, "steps": o.steps} for tid, o in self.transitions.items()},
            "initial": self.initial, "initial_reasons": self.initial_reasons,
            "documents": self.documents, "transitions_run": self.transitions_run, "page_faults": self.page_faults,
        }


class _Verdicts:
    """Assertion verdicts of one transition run, each failure's reason, and the first one."""

    def __init__(self):
        self.values: dict[str, bool | None] = {}
        self.reasons: dict[str, str] = {}
        self.reason = ""

    def fail(self, key: str, reason: str) -> None:
        self.values[key] = False
        self.reasons[key] = reason
        self.reason = self.reason or f"{key}: {reason}"


class _Walk:
    """The depth-first walk over the contract's states on one PageSession."""

    def __init__(self, session: PageSession, contract: Contract, share_prefixes: bool, judge: StatementCheck | None = None):
        self.s = session
        self.judge = judge
        self.c = contract
        self.share = share_prefixes
        self.by_from: dict[str, list[Transition]] = {}
        for t in contract.transitions:
            self.by_from.setdefault(t.from_, []).append(t)
        self.by_id = {t.id: t for t in contract.transitions}
        self.predicates = {st.id: st.predicate for st in contract.states if st.predicate}
        self.reach: dict[str, list[str]] = {INITIAL_STATE: []}  # state -> passed chain reaching it
        self.outcomes: dict[str, TransitionOutcome] = {}
        self.initial: dict[str, bool | None] | None = None
        self.initial_reasons: dict[str, str] = {}
        self.live: list[str] | None = None  # the chain the current document has run; None: unusable
        self.runner: StepRunner | None = None
        self.documents = self.runs = 0
        self.out_of_time = ""
        self.load_fault: Exception | None = None  # a hang or crash while a fresh document loaded

    async def run(self) -> None:
        await self._explore(INITIAL_STATE)
        if self.documents == 0:  # nothing leaves S0: the initial checks still get their document
            try:
                await self._fresh()
            except (PageHung, PageCrashed, BudgetExhausted) as exc:
                log.info("contract %s: the page failed while loading: %s", self.c.task.id, exc)
        for t in self.c.transitions:  # never reached from S0
            if t.id not in self.outcomes:
                self.outcomes[t.id] = _blocked(t, self._blocked_reason(t))

    async def _explore(self, state: str) -> None:
        for t in self.by_from.get(state, []):
            if t.id in self.outcomes:
                continue
            chain = self.reach[state]
            self.outcomes[t.id] = await self._attempt(t, chain)
            if self.outcomes[t.id].status == "passed" and t.to not in self.reach:
                self.reach[t.to] = chain + [t.id]
                await self._explore(t.to)

    async def _attempt(self, t: Transition, chain: list[str]) -> TransitionOutcome:
        if self.out_of_time:
            return TransitionOutcome("failed", reason=f"not run: the page's wall-clock budget ran out during {self.out_of_time}")
        try:
            if not (self.share and self.live == chain):
                if self.load_fault is not None:
                    # Loading is deterministic: every fresh load would hang or crash the same way.
                    return self._fault(self.load_fault)
                failure = await self._reach(chain)
                if failure:
                    return _blocked(t, failure)
            outcome = await self._transition(t)
        except (PageHung, PageCrashed, BudgetExhausted) as exc:
            outcome = self._fault(exc)
        except Exception as exc:  # a browser-level failure fails this transition, not the contract
            log.warning("transition %s: %s", t.id, exc)
            self.live = None
            outcome = TransitionOutcome("failed", reason=f"browser error: {str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__}")
        self.live = chain + [t.id] if outcome.status == "passed" else None
        return outcome

    def _fault(self, exc: Exception) -> TransitionOutcome:
        self.live = None
        if isinstance(exc, BudgetExhausted):
            self.out_of_time = str(exc)
            return TransitionOutcome("failed", reason=f"not finished: the page's wall-clock budget ran out during {exc}")
        what = "page hung" if isinstance(exc, PageHung) else "renderer crashed"
        return TransitionOutcome("failed", reason=f"{what} during {exc}")

    async def _reach(self, chain: list[str]) -> str:
        """A fresh document brought along `chain`; the reason it could not be, or ''."""
        self.live = None
        failure = await self._fresh()
        if failure:
            return failure
        for tid in chain:
            replay = await self._transition(self.by_id[tid])
            if replay.status != "passed":  # the page behaved differently on a second run
                return f"replaying {tid} failed: {replay.reason}"
        return ""

    async def _fresh(self) -> str:
        """Load a new document (own origin, empty storage) and run the initial checks on it."""
        self.documents += 1
        # "since the document loaded" counts what it threw while loading (a SyntaxError, say)
        errors_before_load = self.s.shared.events.error_total
        try:
            await self.s.load(f"c{self.documents}")
        except (PageHung, PageCrashed) as exc:
            self.load_fault = exc
            raise
        self.runner = StepRunner(self.s, errors_before_load, helpers=self.c.helpers or "", own_scope=True)
        try:
            await within_node_cap(self.s)
        except StepFailed as exc:
            return f"load: {exc}"
        verdicts = _Verdicts()
        for a in self.c.initial_contract.checks:
            await self._check(a, verdicts)
        if self.initial is None:  # the first document's verdicts are the initial contract's
            self.initial = {a.id: verdicts.values.get(a.id) for a in self.c.initial_contract.checks}
            self.initial_reasons = dict(verdicts.reasons)
        # S0 itself is a state to reach: a page that does not load into it blocks what starts there.
        reached = _Verdicts()
        await self._predicate(INITIAL_STATE, reached)
        return reached.reason

    async def _transition(self, t: Transition) -> TransitionOutcome:
        """Run `t` on the current document: steps with the change polls, then the after checks."""
        self.runs += 1
        verdicts = _Verdicts()
        pending = [a for a in t.assertions if a.when == "change" and not a.judged]
        never = [a for a in t.assertions if a.when == "never" and not a.judged]
        steps: list[dict] = []
        for i, step in enumerate(t.steps):
            try:
                await self.runner.run(step.model_dump(by_alias=True, exclude_unset=True))
            except StepFailed as exc:
                steps.append({"action": step.action, "ok": False, "reason": str(exc)})
                for a in t.assertions:
                    verdicts.values.setdefault(a.id, None if a.judged else False)
                return TransitionOutcome("failed", verdicts.values, i, f"step {i} ({step.action}): {exc}",
                                         dict(verdicts.reasons), steps)
            steps.append({"action": step.action, "ok": True, "reason": ""})
            for a in list(pending):
                if await self._holds(a):
                    verdicts.values[a.id] = True
                    pending.remove(a)
            for a in list(never):
                if await self._holds(a):
                    verdicts.fail(a.id, f"became true after step {i} ({step.action})")
                    never.remove(a)
        for a in pending:
            verdicts.fail(a.id, "never became true during the transition")
        for a in never:
            verdicts.values[a.id] = True
        for a in t.assertions:
            if a.when == "after" or a.judged:
                await self._check(a, verdicts)
        try:
            await within_node_cap(self.s)
        except StepFailed as exc:
            verdicts.fail(t.to, str(exc))
        await self._predicate(t.to, verdicts)
        failed = any(v is False for v in verdicts.values.values())
        return TransitionOutcome("failed" if failed else "passed", verdicts.values, None, verdicts.reason,
                                 dict(verdicts.reasons), steps)

    async def _holds(self, a: Assertion) -> bool:
        try:
            await self.runner.run(a.check.model_dump(by_alias=True, exclude_unset=True))
            return True
        except StepFailed:
            return False

    async def _check(self, a: Assertion, verdicts: _Verdicts) -> None:
        if a.judged:
            await self._judged(a, verdicts)
            return
        try:
            await self.runner.run(a.check.model_dump(by_alias=True, exclude_unset=True))
            verdicts.values[a.id] = True
        except StepFailed as exc:
            verdicts.fail(a.id, str(exc))

    async def _judged(self, a: Assertion, verdicts: _Verdicts) -> None:
        """Natural language only: the statement judge decides on the viewport as it is now; without
        one (or when its call fails) the assertion is not run and counts for nothing."""
        verdicts.values[a.id] = None
        if self.judge is None:
            return
        png = await self.s.screenshot_png()
        # The model call is blocking I/O: off the event loop (the page's clock is paused meanwhile).
        holds, evidence = await asyncio.get_running_loop().run_in_executor(None, self.judge, png, a.text or "",
                                                                           self.c.task.prompt)
        if holds is False:
            verdicts.fail(a.id, f"judged false: {evidence}"[:300])
        elif holds:
            verdicts.values[a.id] = True

    async def _predicate(self, state: str, verdicts: _Verdicts) -> None:
        expression = self.predicates.get(state)
        if expression is None:
            return
        try:
            await self.runner.run({"action": "assert_js_value", "expression": expression, "expected": True})
        except StepFailed as exc:
            verdicts.fail(f"state {state}", f"predicate false ({exc})")

    def stop(self, why: str) -> None:
        for t in self.c.transitions:
            self.outcomes.setdefault(t.id, TransitionOutcome("failed", reason=f"not run: {why}"))

    def _blocked_reason(self, t: Transition) -> str:
        into = [u.id for u in self.c.transitions if u.to == t.from_ and u.from_ != t.from_]
        failed = [f"{u} {self.outcomes[u].status}" for u in into if u in self.outcomes]
        return f"state {t.from_} not reached" + (f" ({', '.join(failed)})" if failed else "")


def _blocked(t: Transition, reason: str) -> TransitionOutcome:
    """A blocked transition's assertions failed (judged ones: not run), as score_contract counts them."""
    return TransitionOutcome("blocked", {a.id: None if a.judged else False for a in t.assertions}, None, reason)


def execute_contract(html: str, contract: Contract | dict, cfg: EvalConfig, worker: BrowserWorker | None = None,
                     share_prefixes: bool = True, judge: StatementCheck | None = None) -> ContractRun:
    """Run `contract` on `html` and score it. Deterministic: the same page and contract give the
    same outcomes whether prefixes are shared or replayed. judge: decides `judged` assertions
    (judge.statement.StatementJudge); without it they are not run.

    As in evaluate_page, a page that hung while loading is walked once more with the step cap
    doubled, from the same budget, when the first walk used at most limits.hang_retry_max_share of
    it: a real loop hangs again cheaply, a load slowed by a busy machine gets through."""
    contract = contract if isinstance(contract, Contract) else Contract.model_validate(contract)
    worker = worker or get_worker(cfg)
    started = time.perf_counter()
    # One wall-clock budget for the page: the probe's share plus one test case's per transition.
    budget = PageBudget(time.monotonic(), cfg.limits, len(contract.transitions) + 1)
    profile = page_profile(html)
    walk, shared = _walk_once(html, contract, cfg, worker, share_prefixes, judge, budget, profile, scale=1)
    if isinstance(walk.load_fault, PageHung) and budget.used_share(profile) <= cfg.limits.hang_retry_max_share:
        again, again_shared = _walk_once(html, contract, cfg, worker, share_prefixes, judge, budget, profile, scale=2)
        if again_shared.exhausted_during is None:
            walk, shared = again, again_shared
    initial = walk.initial if walk.initial is not None else {a.id: False for a in contract.initial_contract.checks}
    score = score_contract(contract, walk.outcomes, initial)
    faults = list(shared.events.hangs) + ["crash"] * shared.events.crashes
    unmet = [{"id": r.id, "kind": r.kind, "text": r.text} for r in contract.requirements if not score.labels.get(r.id)]
    return ContractRun(score, {t.id: walk.outcomes[t.id] for t in contract.transitions}, initial, walk.initial_reasons,
                       walk.documents, walk.runs, faults, time.perf_counter() - started, unmet,
                       shared.exhausted_during or "")


def _walk_once(html: str, contract: Contract, cfg: EvalConfig, worker: BrowserWorker, share_prefixes: bool,
               judge: StatementCheck | None, budget: PageBudget, profile: str, scale: int):
    shared = page_shared(html, cfg, budget, profile, scale)
    shared.init_script = contract.init_script or ""

    async def job(browser) -> _Walk:
        shared.policy.mirror_port = worker.mirror_port(browser)
        session = PageSession(browser, shared)
        walk = _Walk(session, contract, share_prefixes, judge)
        try:
            await session.open()
            await walk.run()
        except (PageHung, PageCrashed, BudgetExhausted) as exc:  # opening the tab: nothing ran
            walk.stop(f"the page failed during {exc}")
        finally:
            if shared.exhausted_during is None:
                await session.close()
        return walk

    wall_s = shared.deadline - time.monotonic() + cfg.limits.overrun_grace_s
    walk = worker.run(job, wall_s=max(wall_s, 1.0), profile=profile)
    if shared.exhausted_during is not None:
        worker.recycle(profile)
    return walk, shared


def statement_judge(cfg: EvalConfig, contract: Contract) -> StatementCheck | None:
    """Full mode with a judge model decides judged assertions; otherwise they are not run."""
    checks = [a for t in contract.transitions for a in t.assertions] + list(contract.initial_contract.checks)
    if cfg.mode != "full" or not cfg.judge.model or not any(a.judged for a in checks):
        return None
    from webmend.evaluate.judge.statement import StatementJudge
    from webmend.evaluate.judging import get_judge

    return StatementJudge(get_judge(cfg))


def contract_record(html: str, contract: Contract | dict, cfg: EvalConfig, worker: BrowserWorker) -> dict:
    """The result record's `contract` field (schemas/results.py ContractResult). An executor
    failure is recorded with its reason and null scores, never raised: the page's record stands."""
    c = contract if isinstance(contract, Contract) else Contract.model_validate(contract)
    base = {"task_id": c.task.id, "contract_hash": contract_hash(c)}
    try:
        run = execute_contract(html, c, cfg, worker=worker, judge=statement_judge(cfg, c))
    except Exception as exc:  # an executor defect must not lose the page's evaluation
        log.error("contract %s could not be executed: %s", c.task.id, exc, exc_info=True)
        return {**base, "transition_validity": None, "req_explicit": None, "req_implicit": None, "reward": None,
                "error": f"executor error: {type(exc).__name__}: {exc}"[:300]}
    out = {**base, **run.to_dict(), "elapsed_s": round(run.elapsed_s, 3)}
    if run.out_of_time:  # the outcomes stay as evidence; scores and labels would be the machine's
        out.update(transition_validity=None, req_explicit=None, req_implicit=None, reward=None, requirements={},
                   labels={}, unmet=[], error=f"the page's wall-clock budget ran out during {run.out_of_time}: "
                                            "an evaluator outcome (run it again), not the page's")
    return out
