"""Test cases that share one freshly loaded document.

Every test case starts from a freshly loaded page (docs/testcase-format.md), and fresh documents
are most of what a page's evaluation costs (docs/benchmarks.md). Many test cases act on the page
in the same way: they let page time pass (`wait`), take thumbnails, or make the same actions
(the same click on the same element), and differ only in what they assert. Two cases whose
timelines (every step that is not an assertion) are the same see exactly the same document at
every point: the page runs the same steps either way, and an assertion changes nothing; so does a
case whose timeline is the first steps of another's, until its own steps end. So they run
together on one document: each timeline step once, each case's assertions between them as in its
own run. What they see is what each would have seen alone, and the records are the ones a
document per case gives.

What keeps it exact:
- only assertions (`READING`) are a case's own; every other step is shared, and only with cases
  that have the same step at the same place (waits by their page time, captures by kind, actions
  by every field);
- test-case JavaScript in an assertion runs under V8's side-effect check (`throwOnSideEffect`):
  an expression that would write to the page's objects, start a timer or draw from the seeded
  Math.random, or returns a promise that needs page time, is not run (`WouldChangePage`), and
  nothing on the shared document changed. Its case goes back to a document of its own, which has
  another origin than the shared one (shared_document), so it starts with empty storage; unless
  every other case on the document has ended there: then the document is its own from that point
  and it goes on there with the check off (_hand_over);
- a case that hangs, crashes or fails in a browser call on its own assertion gets that verdict, and
  the others still running go back to documents of their own: their own runs never made that call.
  A hang or crash during a shared timeline step is every running case's verdict, as each alone
  would have reached the same step of the same document; so is a shared action that fails (its
  element is missing), which fails every running case at that step.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field

from webmend.browser.page_errors import BudgetExhausted, WouldChangePage
from webmend.browser.session import PageSession
from webmend.evaluate.testcases import (StepFailed, StepRunner, fail, new_record, not_run, run_test_case, wait_ms,
                                        within_node_cap)

log = logging.getLogger(__name__)

# Steps that only look. Assertions read the DOM, styles or the evaluator's own counters;
# assert_js_value runs under the side-effect check.
READING = frozenset({
    "assert_js_value", "assert_text_contains", "assert_text_not_contains", "assert_count", "assert_visible",
    "assert_not_visible", "assert_no_horizontal_scroll", "assert_a11y_basic", "assert_semantic_html",
    "assert_console_clean", "assert_style", "assert_attribute", "assert_value",
})
# Steps that let page time pass or capture the viewport: done once for every case sharing a document.
TIMELINE = frozenset({"wait", "screenshot", "assert_screenshot_changed", "assert_screenshot_not_blank"})


def timeline(case: dict, max_wait_ms: float) -> tuple | None:
    """The case's timeline: its steps other than assertions, in order, as they must match for two
    cases to share a document (None for a case whose steps are not a list of objects with a named
    action: it runs alone, where a malformed step fails the case). Waits are matched by page time
    and captures by kind; any other step (an action) by all its fields."""
    steps = case.get("steps") or []
    if not isinstance(steps, list) or not all(isinstance(s, dict) and isinstance(s.get("action"), str) for s in steps):
        return None
    return tuple(_key(s, max_wait_ms) for s in steps if s.get("action") not in READING)


def _key(step: dict, max_wait_ms: float) -> tuple:
    action = step.get("action")
    if action == "wait":
        return ("wait", wait_ms(step, max_wait_ms))
    if action in TIMELINE:
        return (action, None)
    return ("act", json.dumps(step, sort_keys=True, default=str))


def share_groups(cases: list, skip, max_wait_ms: float) -> dict[int, list[int]]:
    """Cases that can share a document: {first case's index: all indices of its group, in order},
    for groups of at least two cases whose timelines are each a prefix of the longest one's: the
    document then runs exactly that one's steps, and a shorter case ends where its own steps end.
    Longest timelines are placed first, ties in case order."""
    timelines = [(i, timeline(case, max_wait_ms)) for i, case in enumerate(cases)
                 if isinstance(case, dict) and i not in skip]
    chains: list[tuple[tuple, list[int]]] = []  # (the longest timeline, members)
    for i, steps in sorted(((i, t) for i, t in timelines if t is not None), key=lambda it: (-len(it[1]), it[0])):
        chain = next((c for c in chains if c[0][:len(steps)] == steps), None)
        if chain is None:
            chains.append((steps, [i]))
        else:
            chain[1].append(i)
    return {min(members): sorted(members) for _, members in chains if len(members) > 1}


def planned_groups(cfg, cases: list, done: dict[int, dict]) -> dict[int, list[int]]:
    """share_groups for these cases under `cfg` (none when sharing is off)."""
    return share_groups(cases, done, cfg.limits.max_wait_ms) if cfg.share_observation_documents else {}


async def run_cases(session: PageSession, cases: list, done: dict[int, dict]) -> list[dict]:
    """Every test case on its own fresh document, except groups of cases with the same timeline
    (share_groups), which share one; `done`: records of cases already run (by index). A case its
    group gave back runs at its own turn. Once the page's budget is gone the rest are not run."""
    groups = planned_groups(session.cfg, cases, done)
    decided = dict(done)
    tests = []
    for i, case in enumerate(cases):
        if i in groups and session.shared.exhausted_during is None:
            decided.update(await run_shared(session, [(j, cases[j]) for j in groups[i]], shared_document(i + 1)))
        spent = session.shared.exhausted_during
        if i in decided:
            tests.append(decided[i])
        elif spent is not None:
            tests.append(not_run(case, f"the page's wall-clock budget ran out during {spent}"))
        else:
            tests.append(await run_test_case(session, case, i + 1))
    return tests


@dataclass
class _Member:
    index: int
    steps: list
    runner: StepRunner
    record: dict
    pos: int = 0  # the next step to run

    def at_timeline_step(self) -> bool:
        return self.pos < len(self.steps) and self.steps[self.pos].get("action") not in READING


@dataclass
class _Group:
    session: PageSession
    alive: list[_Member]
    actor: StepRunner  # runs the shared actions, with side effects (they are every case's own)
    own_document: list[int] = field(default_factory=list)  # indices that go back to a document of their own
    # Members whose assertion would have changed the page, stopped before it (see _hand_over).
    blocked: list[_Member] = field(default_factory=list)

    def drop(self, member: _Member) -> None:
        self.alive.remove(member)

    def give_back_all(self) -> None:
        self.own_document += [m.index for m in self.alive + self.blocked]
        self.alive, self.blocked = [], []

    def fail_all(self, exc: Exception) -> None:
        for m in self.alive:
            fail(m.record, m.pos, m.steps, exc)
        self.alive = []


def shared_document(doc_index: int) -> str:
    """The name of the document a group whose first case is document `doc_index` shares
    (network.page_url). Not that case's own name: a case the group gives back loads its own
    document afterwards, and that must start with empty storage, whatever the shared one kept."""
    return f"s{doc_index}"


async def run_shared(session: PageSession, members: list[tuple[int, dict]], doc_index: str) -> dict[int, dict]:
    """Run one group of cases with the same timeline (share_groups) on one fresh document.

    Returns the records of the cases decided here, by index; the others need a document of their
    own after all (run them with run_test_case)."""
    errors_at_start = session.shared.events.error_total
    records = {index: new_record(case) for index, case in members}
    try:
        await session.load(doc_index)
        await within_node_cap(session)
    except Exception as exc:  # as run_test_case records a failed load
        for index, case in members:
            fail(records[index], -1, case.get("steps") or [], exc)
        return records
    group = _Group(session, [_Member(index, case.get("steps") or [], StepRunner(session, errors_at_start, observe_only=True),
                                     records[index]) for index, case in members], StepRunner(session, errors_at_start))
    try:
        await _walk(group)
    except Exception as exc:  # a shared step, or the budget: every case still running ends so
        group.fail_all(exc)
    log.debug("%d test cases shared document %s; %d need their own", len(members), doc_index, len(group.own_document))
    return {i: r for i, r in records.items() if i not in group.own_document}


async def _walk(group: _Group) -> None:
    """Each member's assertions up to its next timeline step (a member whose steps are done ends
    there), then that step once for all still running."""
    while group.alive:
        for m in list(group.alive):
            await _read_until_timeline(group, m)
            if m in group.alive and m.pos == len(m.steps):
                await _finish(group, m)
        _hand_over(group)
        if group.alive and not group.alive[0].at_timeline_step():
            continue  # the document's new owner goes on with its own assertions
        if group.alive:
            await _timeline_step(group)  # still running: every one is at the same page-time step


def _hand_over(group: _Group) -> None:
    """Members whose assertion would have changed the page stopped before it. When every other
    member has ended here, the first of them has the document to itself: from now on it is its
    own run, so it goes on with the side-effect check off. Otherwise they go back to documents of
    their own, since the others still read this one."""
    if not group.blocked:
        return
    if not group.alive:
        owner = group.blocked.pop(0)
        owner.runner.observe_only = False
        group.alive = [owner]
    group.own_document += [m.index for m in group.blocked]
    group.blocked = []


async def _finish(group: _Group, m: _Member) -> None:
    """The end of a member's own steps, at the page time its own run would end: the node cap."""
    m.pos = len(m.steps) - 1  # a node cap failure after the last step fails at that step
    if await _own_call(group, m, within_node_cap(group.session)):
        m.record["passed"] = True
        group.drop(m)


async def _read_until_timeline(group: _Group, m: _Member) -> None:
    while m.pos < len(m.steps) and not m.at_timeline_step():
        if not await _own_call(group, m, m.runner.run(m.steps[m.pos])):
            return
        m.pos += 1


async def _own_call(group: _Group, m: _Member, call) -> bool:
    """Await one of member `m`'s own calls; False when that ended `m` here (failed, or sent back to a
    document of its own)."""
    try:
        await call
        return True
    except WouldChangePage as exc:
        log.debug("test case %s would change the shared document: %s", m.record["id"], exc)
        group.drop(m)
        group.blocked.append(m)
    except StepFailed as exc:
        fail(m.record, m.pos, m.steps, exc)
        group.drop(m)
    except BudgetExhausted:
        raise  # no member can go on: the caller fails them all
    except Exception as exc:  # this member's own call hung, crashed or failed; alone, the others never made it
        fail(m.record, m.pos, m.steps, exc)
        group.drop(m)
        group.give_back_all()
    return False


async def _timeline_step(group: _Group) -> None:
    session, first = group.session, group.alive[0]
    step = first.steps[first.pos]
    action = step.get("action")
    if action == "wait":
        await first.runner.run(step)
    elif action in TIMELINE:
        shot = await session.thumb()
        for m in list(group.alive):
            if action == "screenshot":
                m.runner.reference = shot
                continue
            try:
                await m.runner.run_with_shot(m.steps[m.pos], shot)
            except StepFailed as exc:
                fail(m.record, m.pos, m.steps, exc)
                group.drop(m)
        if action == "screenshot":
            await first.runner.settle()  # a capture costs the settle interval of page time (do_screenshot)
    else:
        try:
            await group.actor.run(step)
        except StepFailed as exc:  # the same step on the same document: every case alone failed here
            for m in group.alive:
                fail(m.record, m.pos, m.steps, exc)
            group.alive = []
    for m in group.alive:
        m.pos += 1
