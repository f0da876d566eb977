"""Test cases with the same timeline sharing one document: which ones, and the same records as a
document each, in real Chromium."""

from __future__ import annotations

from conftest import case

from webmend.browser.evidence import PageEvents
from webmend.browser.network import NetworkLog, RequestPolicy
from webmend.browser.session import PageSession, PageShared
from webmend.evaluate.testcase_share import run_cases, share_groups, timeline

TICKER = """<!doctype html><html lang="en"><head><title>Ticker</title></head><body>
<h1>Ticker</h1><div id="n">0</div><button id="inc">Add</button>
<script>
window.state = { n: 0 };
setInterval(() => {
  state.n++; document.getElementById('n').textContent = String(state.n);
  document.body.style.background = state.n % 2 ? '#123' : '#fff';
}, 100);
document.getElementById('inc').addEventListener('click', () => { state.n += 1000; });
</script></body></html>"""


def js(expression, expected=True):
    return {"action": "assert_js_value", "expression": expression, "expected": expected}


# The load runs 500 ms of page time (limits.load_ms): state.n is 5 after it, 10 after WAIT.
WAIT = {"action": "wait", "ms": 500}
# A screenshot costs 100 ms (limits.settle_ms): the dark background at n = 5, white at n = 10.
SHORT_WAIT = {"action": "wait", "ms": 400}
CASES = [
    case(WAIT, js("state.n === 10"), id="read_js"),
    case({"action": "wait", "duration": 500}, {"action": "assert_text_contains", "selector": "#n", "text": "^10$"}, id="read_text"),
    case(WAIT, js("(state.n += 100) > 0"), id="writes"),  # would change the page: its own document
    case(WAIT, js("Math.random() < 2"), id="draws_random"),  # the seeded generator's state: its own document
    case(WAIT, js("state.n < 50"), id="after_writes"),  # fails if "writes" ran on the shared document
    case(WAIT, js("state.n === 11"), {"action": "assert_count", "selector": "h1", "eq": 1}, id="fails"),
    case({"action": "screenshot"}, SHORT_WAIT, {"action": "assert_screenshot_changed"}, id="shot_a"),
    case({"action": "screenshot"}, SHORT_WAIT, {"action": "assert_screenshot_changed", "threshold": 0.5}, js("state.n === 11"), id="shot_b"),
    case({"action": "click", "selector": "#inc"}, js("state.n >= 1000"), id="acts"),
    # The same click, then its own wait: "acts" shares its document and ends after the click.
    case({"action": "click", "selector": "#inc"}, js("state.n < 2000"), WAIT, js("state.n === 1011"), id="acts_longer"),
    # A click whose element is missing fails both cases at that step, as each alone.
    case({"action": "click", "selector": "#missing"}, js("true"), id="misses_a"),
    case(js("state.n === 5"), {"action": "click", "selector": "#missing"}, id="misses_b"),
    # The six cases above with one wait run to the end of this one's first wait, and stop there.
    case(WAIT, js("state.n === 10"), WAIT, js("state.n === 15"), id="longer"),
    # No page time at all: it shares the first document of the longest timeline, and ends at once.
    case(js("state.n === 5"), {"action": "assert_a11y_basic"}, id="at_load"),
]


def test_cases_with_the_same_timeline_are_grouped():
    assert timeline(CASES[0], 10_000) == timeline(CASES[1], 10_000) == (("wait", 500),)
    assert timeline(CASES[6], 10_000) == (("screenshot", None), ("wait", 400), ("assert_screenshot_changed", None))
    click = ("act", '{"action": "click", "selector": "#inc"}')
    assert timeline(CASES[8], 10_000) == (click,)
    assert timeline(CASES[9], 10_000) == (click, ("wait", 500))
    assert timeline(case({"action": "wait_for", "selector": "#n"}), 10_000) == (("act", '{"action": "wait_for", "selector": "#n"}'),)
    assert timeline({"steps": ["click"]}, 10_000) is None
    # A malformed action runs alone (and fails there) instead of breaking the planning of the rest.
    assert timeline(case({"action": ["click"]}), 10_000) is timeline(case({"ms": 5}), 10_000) is None
    assert share_groups([case({"action": ["click"]}), CASES[0], CASES[1]], {}, 10_000) == {1: [1, 2]}
    # Each timeline a prefix of its group's longest one (the screenshot cases', "longer"'s, the clicks').
    assert share_groups(CASES, {}, 10_000) == {0: [0, 1, 2, 3, 4, 5, 12], 6: [6, 7, 13], 8: [8, 9], 10: [10, 11]}
    assert share_groups(CASES, {0: {}, 13: {}}, 10_000) == {1: [1, 2, 3, 4, 5, 12], 6: [6, 7], 8: [8, 9], 10: [10, 11]}
    assert share_groups(CASES[:1] + CASES[6:8], {}, 10_000) == {1: [1, 2]}
    assert share_groups([CASES[0], CASES[6]], {}, 10_000) == {}  # neither is a prefix of the other
    assert share_groups([CASES[0], CASES[8]], {}, 10_000) == {}  # a wait is no click


def run(worker, cfg, cases, html=TICKER):
    """The test cases of `html` on one session: (records, fresh documents loaded)."""
    log = NetworkLog()

    async def job(browser):
        shared = PageShared(cfg=cfg, policy=RequestPolicy(html, None, log, 3), events=PageEvents(),
                            step_wall_s=cfg.limits.step_wall_s, profile="raster")
        session = PageSession(browser, shared)
        try:
            await session.open()
            return await run_cases(session, cases, {})
        finally:
            await session.close()

    return worker.run(job, wall_s=240), log.page_loads


def test_shared_documents_give_the_records_of_a_document_each(worker, cfg):
    alone, loads_alone = run(worker, cfg.model_copy(update={"share_observation_documents": False}), CASES)
    shared, loads_shared = run(worker, cfg, CASES)
    assert shared == alone
    assert {t["id"]: t["passed"] for t in shared} == {
        "read_js": True, "read_text": True, "writes": True, "draws_random": True, "after_writes": True,
        "fails": False, "shot_a": True, "shot_b": False, "acts": True, "acts_longer": True, "misses_a": False,
        "misses_b": False, "longer": True, "at_load": True}
    assert shared[5]["failed_step"] == 1 and "got false" in shared[5]["error"]
    assert shared[7]["failed_step"] == 3
    assert (shared[10]["failed_step"], shared[11]["failed_step"]) == (0, 1) and "click" in shared[11]["error"]
    # 14 documents alone; shared: one for the seven wait cases (two of which go back to a document
    # of their own), one for the screenshot cases and "at_load", one for each pair of clicks.
    assert (loads_alone, loads_shared) == (14, 6)


# Hangs at page time 800 ms: during the shared wait of the first two cases. The third case's own
# read (after a different wait) hangs: a loop without side effects passes V8's check. So the
# fourth, sharing its document, goes back to one of its own.
HANGS = [
    case({"action": "wait", "ms": 500}, js("state.n > 0"), id="hang_a"),
    case({"action": "wait", "ms": 500}, {"action": "assert_count", "selector": "h1", "eq": 1}, id="hang_b"),
    case({"action": "wait", "ms": 100}, js("(() => { for (;;) {} })()"), id="own_loop"),
    case({"action": "wait", "ms": 100}, {"action": "assert_count", "selector": "h1", "eq": 1}, js("state.n === 6"), id="after_loop"),
]


def test_hangs_give_the_records_of_a_document_each(worker, cfg):
    page = TICKER.replace("</script>", "setTimeout(() => { for (;;) {} }, 800);</script>")
    quick = cfg.model_copy(update={"limits": cfg.limits.model_copy(update={"step_wall_s": 2.0})})
    alone, loads_alone = run(worker, quick.model_copy(update={"share_observation_documents": False}), HANGS, page)
    shared, loads_shared = run(worker, quick, HANGS, page)
    assert shared == alone
    assert [t["passed"] for t in shared] == [False, False, False, True]
    assert all("page hung" in t["error"] for t in shared[:3])
    assert (loads_alone, loads_shared) == (4, 3)  # the hanging pair shares one


# "owner" would write to the page after the shared wait, when "reads" has already ended: it has the
# document to itself from there, so it goes on there as in its own run (no second document).
HAND_OVER = [
    case(WAIT, js("state.n === 10"), id="reads"),
    case(WAIT, js("(state.n += 100) > 0"), js("state.n === 110"), WAIT, js("state.n === 115"), id="owner"),
]


def test_a_case_left_alone_on_the_shared_document_goes_on_there(worker, cfg):
    alone, loads_alone = run(worker, cfg.model_copy(update={"share_observation_documents": False}), HAND_OVER)
    shared, loads_shared = run(worker, cfg, HAND_OVER)
    assert shared == alone
    assert [t["passed"] for t in shared] == [True, True]
    assert (loads_alone, loads_shared) == (2, 1)


# A page that keeps a count in localStorage. "head" writes to the page in its read after the shared
# click while "longer" still reads the document, so "head" goes back to a document of its own: that
# one must start with empty storage, not with the count the shared click stored.
STORED = """<!doctype html><html lang="en"><head><title>Stored</title></head><body>
<h1>Stored</h1><button id="inc">Add</button>
<script>
window.count = +(localStorage.getItem('n') || 0);
document.getElementById('inc').addEventListener('click', () => { count++; localStorage.setItem('n', String(count)); });
</script></body></html>"""
CLICK = {"action": "click", "selector": "#inc"}
STORING = [
    case(CLICK, js("(window.seen = count) === 1"), id="head"),
    case(CLICK, js("count === 1"), WAIT, js("count === 1"), id="longer"),
]


def test_a_case_given_back_starts_with_empty_storage(worker, cfg):
    alone, loads_alone = run(worker, cfg.model_copy(update={"share_observation_documents": False}), STORING, STORED)
    shared, loads_shared = run(worker, cfg, STORING, STORED)
    assert shared == alone
    assert [t["passed"] for t in shared] == [True, True]
    assert (loads_alone, loads_shared) == (2, 2)  # "head" went back to a document of its own
