"""A page's test-case documents in several tabs at once ("lanes").

Every test case, or group of cases sharing a document (testcase_share.py), is a run of fresh
documents that depends on nothing before it, so runs can go on side by side: while one tab waits
for a real frame or a capture, another's page does its work. At two workers on two cores that
filled most of the time a worker left the machine idle (docs/benchmarks.md).

The records are those of one tab. Runs go to the lanes round robin in case order (never to
whichever lane is free first, so the previous document in a tab, whose unload events arrive
during the next load, is always the same one), and each run records its events and network
evidence apart (PageShared.fork); these are added to the page's in case order at the end, the
order one tab would have recorded them in. Budget, deadline and browser are the page's.
"""

from __future__ import annotations

import asyncio

from webmend.browser.session import PageSession, PageShared
from webmend.evaluate.testcase_share import planned_groups, run_cases, run_shared, shared_document
from webmend.evaluate.testcases import not_run, run_test_case

SHARED, OWN = 0, 1  # a case's shared document comes before a document of its own (run_cases)


async def run_cases_in_lanes(session: PageSession, cases: list, done: dict[int, dict]) -> list[dict]:
    """run_cases (same arguments, same records) over cfg.test_case_lanes tabs of a raster page."""
    cfg = session.cfg
    groups = planned_groups(cfg, cases, done)
    grouped = {j for members in groups.values() for j in members}
    runs = [i for i, case in enumerate(cases) if i not in done and (i in groups or i not in grouped)]
    lanes = min(cfg.test_case_lanes if session.shared.profile == "raster" else 1, len(runs))
    if lanes <= 1:
        return await run_cases(session, cases, done)
    page = session.shared
    records: dict[int, dict] = dict(done)
    evidence: dict[tuple[int, int], PageShared] = {}
    sessions = [session] + [session.sibling() for _ in range(lanes - 1)]
    try:
        await _all(_lane(s, page, runs[k::lanes], cases, groups, records, evidence) for k, s in enumerate(sessions))
    finally:
        for s in sessions:
            s.shared = page
        for key in sorted(evidence):
            page.absorb(evidence[key])
        if page.exhausted_during is None:  # otherwise the whole browser goes (evaluate.page)
            for s in sessions[1:]:
                await s.close()
    spent = page.exhausted_during
    return [records[i] if i in records else not_run(case, f"the page's wall-clock budget ran out during {spent}")
            for i, case in enumerate(cases)]


async def _all(coros) -> None:
    """Await every lane; if one fails, the others stop too before the failure goes up."""
    tasks = [asyncio.ensure_future(c) for c in coros]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


async def _lane(session: PageSession, page: PageShared, runs: list[int], cases: list, groups: dict[int, list[int]],
                records: dict[int, dict], evidence: dict) -> None:
    """One tab's runs in order: a group's shared document, then any case it gave back, or a single
    case's document. Stops starting runs once the page's budget is gone."""
    if session.page is None:
        await session.open()
    for i in runs:
        if page.exhausted_during is not None:
            return
        todo = [i]
        if i in groups:
            session.shared = evidence[(i, SHARED)] = page.fork()
            records.update(await run_shared(session, [(j, cases[j]) for j in groups[i]], shared_document(i + 1)))
            _note_spent(page, session.shared)
            todo = [j for j in groups[i] if j not in records]
        for j in todo:
            if page.exhausted_during is not None:
                return
            session.shared = evidence[(j, OWN)] = page.fork()
            records[j] = await run_test_case(session, cases[j], j + 1)
            _note_spent(page, session.shared)


def _note_spent(page: PageShared, run: PageShared) -> None:
    """A run that used up the page's budget ends the other lanes' next runs at once."""
    if run.exhausted_during is not None and page.exhausted_during is None:
        page.exhausted_during = run.exhausted_during
