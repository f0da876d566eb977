"""A page's test-case documents in two or three tabs at once: the same records and the same page
evidence as one tab, in real Chromium; the page's budget ends every lane."""

from __future__ import annotations

import asyncio
import time

import pytest

from conftest import case
from test_testcase_share import CASES, TICKER, js

from webmend.browser.evidence import PageEvents
from webmend.browser.network import MAX_RECORDED, NetworkLog, RequestPolicy
from webmend.browser.session import PageSession, PageShared
from webmend.evaluate.testcase_lanes import _all, run_cases_in_lanes

# Every document logs an error, throws, and asks for an offsite image, each named by its
# address, so the page's evidence says in which order the documents were recorded.
NOISY = TICKER.replace("</script>", """
console.error('loaded ' + location.host);
setTimeout(() => { throw new Error('thrown in ' + location.host); }, 50);
new Image().src = 'https://tracker.example/' + location.host.split('.')[0] + '.gif';
</script>""")


def run(worker, cfg, cases, html=NOISY, deadline=None, profile="raster"):
    """`cases` of `html` through run_cases_in_lanes: (records, events, network log)."""
    log, events = NetworkLog(), PageEvents()

    async def job(browser):
        shared = PageShared(cfg=cfg, policy=RequestPolicy(html, None, log, 3), events=events,
                            step_wall_s=cfg.limits.step_wall_s, profile=profile, deadline=deadline)
        session = PageSession(browser, shared)
        try:
            await session.open()
            return await run_cases_in_lanes(session, cases, {}), shared
        finally:
            await session.close()

    records, shared = worker.run(job, wall_s=240)
    if shared.exhausted_during is not None:
        # As evaluate.page does: lanes ended by the budget leave their tabs to the browser's end,
        # and a busy page there would spin through the tests after this one.
        worker.recycle(profile)
    return records, events.to_dict(), log.to_dict() | {"page_loads": log.page_loads}, shared


def test_lanes_give_the_records_and_evidence_of_one_tab(worker, cfg):
    # CASES: shared groups, a case given back by its group, shared clicks, failing cases, singles.
    one = run(worker, cfg.model_copy(update={"test_case_lanes": 1}), CASES)
    assert one[1]["console_error_count"] == one[2]["page_loads"] > 5
    for lanes in (2, 3):
        many = run(worker, cfg.model_copy(update={"test_case_lanes": lanes}), CASES)
        assert many[0] == one[0]
        assert many[1] == one[1]  # console errors and page errors in the order one tab saw them
        assert many[2] == one[2]  # blocked requests, loads


def test_a_webgl_page_keeps_one_tab(worker, cfg, monkeypatch):
    # Two tabs would queue for the gl browser's one software GPU process.
    siblings = []
    monkeypatch.setattr(PageSession, "sibling", lambda self: siblings.append(self) or PageSession(self._browser, self.shared))
    two_runs = CASES[6:9]  # two screenshot cases sharing a document, and a click on its own
    gl = run(worker, cfg, two_runs, profile="gl")[0]
    assert siblings == []
    raster = run(worker, cfg, two_runs)[0]
    assert len(siblings) == 1 and gl == raster


def test_the_budget_ends_every_lane(worker, cfg):
    # Each 100 ms of page time costs 300 ms of wall time: no case can finish in a 3 s budget.
    slow = TICKER.replace("</script>", "setInterval(() => { const end = performance.now() + 300; "
                          "while (performance.now() < end) {} }, 100);</script>")
    # Distinct waits, so that no two share a document: lane 1 runs cases 0, 2, 4; lane 2 1, 3, 5.
    slow_cases = [case({"action": "wait", "ms": 5000 + i * 100}, js("true"), id=f"slow_{i}") for i in range(6)]
    start = time.monotonic()
    records, _, _, shared = run(worker, cfg, slow_cases, html=slow, deadline=start + 3.0)
    assert time.monotonic() - start < 3.0 + cfg.limits.overrun_grace_s
    assert shared.exhausted_during is not None
    assert [r["error"].split(":")[0] for r in records] == ["not finished"] * 2 + ["not run"] * 4


def test_absorbed_evidence_is_recorded_evidence():
    """Events and network logs recorded apart, then added in order, are what one recording gives,
    caps included."""
    whole, first, second = PageEvents(max_messages=3), PageEvents(max_messages=3), PageEvents(max_messages=3)
    for n in range(5):
        for ev in (whole, first if n < 2 else second):
            ev.on_console("error", f"e{n}")
            ev.on_page_error(f"p{n}")
            ev.on_console("log", "__wm:webgl")
            ev.on_dialog("alert")
            ev.hangs.append(f"h{n}")
    first.absorb(second)
    assert first.to_dict() == whole.to_dict()
    assert whole.to_dict()["console_errors"] == ["e0", "e1", "e2"] and whole.console_error_count == 5

    whole_log, a, b = NetworkLog(), NetworkLog(), NetworkLog()
    for n in range(MAX_RECORDED + 20):
        for log_ in (whole_log, a if n < 10 else b):
            log_.block(f"https://x.example/{n % (MAX_RECORDED + 5)}", "image", "offsite")
    a.absorb(b)
    assert a.to_dict() == whole_log.to_dict()
    assert len(a.blocked) == MAX_RECORDED and a.blocked_total == MAX_RECORDED + 20


def test_a_lane_that_fails_stops_the_others_before_the_failure_goes_up():
    """A browser-level error in one lane (the lanes catch every per-case failure) cancels the
    other lanes, which are done by the time the error reaches the caller."""
    ended = []

    async def fails():
        await asyncio.sleep(0.01)
        raise RuntimeError("browser closed")

    async def waits():
        try:
            await asyncio.sleep(60)
        finally:
            ended.append("cancelled")

    async def main():
        with pytest.raises(RuntimeError, match="browser closed"):
            await _all([fails(), waits()])
        return list(ended)

    assert asyncio.run(main()) == ["cancelled"]
