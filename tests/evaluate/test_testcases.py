"""The test-case runner against small real pages in real Chromium."""

from __future__ import annotations

import asyncio

import pytest
from conftest import case, drive_session, fixture_html

from webmend.evaluate.testcases import StepRunner, js_regex, py_search, run_test_case

COUNTER = """<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width">
<title>Counter</title><style>body{font-family:sans-serif} .big{font-size:48px}</style></head><body>
<h1>Counter</h1><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="dot">
<button id="inc">Add one</button> <button id="dead">Nothing</button>
<p>Press the button to count.</p>
<div id="n" class="big">0</div><input id="name"><div id="hello"></div>
<div id="later" style="display:none">late</div>
<script>
let n = 0;
document.getElementById('inc').addEventListener('click', () => {
  n++; document.getElementById('n').textContent = String(n); localStorage.setItem('n', n);
  document.body.style.background = n % 2 ? '#123' : '#fff';
});
document.getElementById('name').addEventListener('input', e => { document.getElementById('hello').textContent = 'Hi ' + e.target.value; });
document.addEventListener('keydown', e => { if (e.key === 'ArrowUp') { n += 10; document.getElementById('n').textContent = String(n); } });
setTimeout(() => { document.getElementById('later').style.display = 'block'; window.late = true; }, 3000);
window.firstRandom = Math.random();
</script></body></html>"""


def run_cases(evaluate, *cases):
    return evaluate(COUNTER, {"id": "counter", "test_cases": list(cases)})["tests"]


def run_on(worker, cfg, page: str, *cases) -> tuple[dict, dict]:
    """Just the test cases, on one session of a data/fixtures/testcases/ page (no experience
    protocol, the evaluator's own wall cap per browser call): (records by id, page events)."""

    async def steps(session):
        return [await run_test_case(session, c, i + 1) for i, c in enumerate(cases)]

    tests, events = drive_session(worker, cfg, fixture_html(f"testcases/{page}"), steps, step_wall_s=cfg.limits.step_wall_s)
    return {t["id"]: t for t in tests}, events


def test_actions_pass_on_a_working_page(evaluate):
    tests = run_cases(
        evaluate,
        case({"action": "click", "selector": "#inc"}, {"action": "assert_text_contains", "selector": "#n", "text": "^1$"}, id="click"),
        case({"action": "click_text", "text_pattern": "(?i)^ADD ONE$"}, {"action": "assert_js_value", "expression": "n === 1", "expected": True}, id="click_text_flag"),
        case({"action": "type", "selector": "#name", "text": "Ada"}, {"action": "assert_text_contains", "selector": "#hello", "text": "hi ada"}, id="type"),
        case({"action": "press_key", "key": "ArrowUp", "repeat": 2}, {"action": "assert_js_value", "expression": "n === 20", "expected": True}, id="keys"),
        case({"action": "wait", "ms": "3500"}, {"action": "assert_visible", "selector": "#later"}, id="wait_string_ms"),
        case({"action": "wait_for", "selector": "#later", "timeout": 5000}, {"action": "assert_js_value", "expression": "window.late === true", "expected": True}, id="wait_for"),
        case({"action": "screenshot"}, {"action": "click", "selector": "#inc"}, {"action": "assert_screenshot_changed"}, id="changed"),
        case({"action": "assert_a11y_basic"}, {"action": "assert_semantic_html", "tags": ["h1", "button"]}, {"action": "assert_console_clean"}, id="static"),
        case({"action": "assert_count", "selector": "button", "eq": 2}, {"action": "assert_count", "selector": "button", "gte": 1, "lte": 3}, id="count"),
        case({"action": "assert_style", "selector": "#n", "property": "font-size", "value": "48px"}, id="style"),
        case({"action": "resize", "width": 375, "height": 667}, {"action": "assert_no_horizontal_scroll"}, id="mobile"),
    )
    failures = {t["id"]: t["error"] for t in tests if not t["passed"]}
    assert failures == {}


def test_each_case_starts_fresh(evaluate):
    tests = run_cases(
        evaluate,
        case({"action": "click", "selector": "#inc"}, {"action": "assert_js_value", "expression": "localStorage.getItem('n') === '1'", "expected": True}, id="a"),
        case({"action": "assert_js_value", "expression": "localStorage.getItem('n') === null && n === 0", "expected": True}, id="b"),
    )
    assert [t["passed"] for t in tests] == [True, True]


def test_failures_name_the_step_and_reason(evaluate):
    tests = run_cases(
        evaluate,
        case({"action": "screenshot"}, {"action": "click", "selector": "#dead"}, {"action": "assert_screenshot_changed"}, id="dead"),
        case({"action": "click_text", "text_pattern": "no such text"}, id="none"),
        case({"action": "click", "selector": "#missing"}, id="missing"),
        case({"action": "assert_js_value", "expression": "n === 5", "expected": True}, id="value"),
        case({"action": "assert_js_value", "expression": "undefinedThing.x", "expected": True}, id="throws"),
        case({"action": "fly", "selector": "#inc"}, id="unknown"),
        case({"action": "wait_for", "selector": "#never", "timeout": 300}, id="wait_for_timeout"),
    )
    by_id = {t["id"]: t for t in tests}
    assert not any(t["passed"] for t in tests)
    assert by_id["dead"]["failed_step"] == 2 and by_id["dead"]["failed_action"] == "assert_screenshot_changed"
    assert "unchanged" in by_id["dead"]["error"]
    assert "no visible element" in by_id["none"]["error"]
    assert by_id["missing"]["failed_action"] == "click"
    assert "got false" in by_id["value"]["error"]
    assert "threw" in by_id["throws"]["error"]
    assert "unknown action" in by_id["unknown"]["error"]
    assert "did not appear" in by_id["wait_for_timeout"]["error"]


def test_click_text_counts_every_visible_match(worker, cfg):
    # "Get started": the hero button and a paragraph below the fold; "Join now": the hero button
    # and an opacity-0 link below the fold (Playwright's visibility ignores opacity). Two matches
    # fail, whichever of them is a control. "Read more" is a span inside a button: the innermost
    # match counts once (not the button and the body around it too), and its button is clicked.
    status = lambda want: {"action": "assert_text_contains", "selector": "#status", "text": f"^{want}$"}  # noqa: E731
    by_id, _ = run_on(
        worker, cfg, "click_text_two_matches.html",
        case({"action": "click_text", "text_pattern": "Get started"}, id="below_fold"),
        case({"action": "click_text", "text_pattern": "(?i)^join NOW$"}, id="transparent"),
        case({"action": "click_text", "text_pattern": "Read more"}, status("more"), id="inner"),
    )
    assert not by_id["below_fold"]["passed"] and "2 elements match" in by_id["below_fold"]["error"], by_id["below_fold"]
    assert not by_id["transparent"]["passed"] and "2 elements match" in by_id["transparent"]["error"], by_id["transparent"]
    assert by_id["inner"]["passed"], by_id["inner"]


def test_async_expressions_run_page_time(worker, cfg):
    # The page ticks every 100 ms of page time once started. A promise an expression returns is
    # awaited while page time advances in settle-sized slices, so its timers fire: a 250 ms wait
    # inside the assertion sees two ticks (the same on every run). One that never settles fails
    # its step when the budget is spent; the page did not hang.
    wait = "await new Promise(r => setTimeout(r, 250))"
    by_id, events = run_on(
        worker, cfg, "async_eval.html",
        case({"action": "click", "selector": "#start"},
             {"action": "assert_js_value", "expression": f"(async () => {{ const a = ticks; {wait}; return ticks - a; }})()", "expected": 2},
             id="assert"),
        case({"action": "eval_js", "expression": "new Promise(r => setTimeout(() => { window.done = performance.now(); r(); }, 250))"},
             {"action": "assert_js_value", "expression": "window.done > 0", "expected": True}, id="eval"),
        case({"action": "assert_js_value", "expression": "new Promise(() => {})", "expected": True, "timeout": 1000}, id="never"),
        case({"action": "eval_js", "expression": "new Promise((_, no) => setTimeout(() => no(new Error('late no')), 50))"}, id="rejects"),
    )
    assert by_id["assert"]["passed"] and by_id["eval"]["passed"], by_id
    assert not by_id["never"]["passed"] and "still pending after 1000 ms of page time" in by_id["never"]["error"], by_id["never"]
    assert not by_id["rejects"]["passed"] and "late no" in by_id["rejects"]["error"], by_id["rejects"]
    assert events["hangs"] == []


def test_assert_visible_takes_the_first_visible_match(worker, cfg):
    # The first .mark is a stroked horizontal SVG line (a box of height 0); the first .note is
    # display:none. Later matches are visible, and the first visible match is what counts.
    by_id, _ = run_on(
        worker, cfg, "visible_first_match.html",
        case({"action": "assert_visible", "selector": ".mark"}, id="marks"),
        case({"action": "assert_visible", "selector": ".note"}, id="notes"),
        case({"action": "assert_not_visible", "selector": ".hidden-note"}, id="hidden"),
        case({"action": "assert_not_visible", "selector": ".mark"}, id="marks_not"),
    )
    assert {k: t["passed"] for k, t in by_id.items()} == {"marks": True, "notes": True, "hidden": True, "marks_not": False}, by_id


def test_key_scrolling_lands_at_once(worker, cfg):
    # Space and the arrow keys scroll a static page. The scroll is not animated in real time, so it
    # has landed when the key step ends: a screenshot after it and a later one are identical
    # (the page itself never changes). The wheel lands within the next frames, also unanimated.
    cases = [case({"action": "press_key", "key": key}, {"action": "screenshot"}, {"action": "wait", "ms": 500},
                  {"action": "assert_screenshot_changed"}, id=key) for key in ("Space", "ArrowDown")]
    by_id, _ = run_on(worker, cfg, "tall_static.html", *cases)
    assert all("unchanged" in (t["error"] or "") for t in by_id.values()), by_id

    async def steps(s):
        runner = StepRunner(s, 0)
        out = []
        for step in ({"action": "press_key", "key": "Space"}, {"action": "press_key", "key": "ArrowDown"}):
            await runner.run(step)
            out.append(await s.main_eval("scrollY"))
            await asyncio.sleep(0.3)  # real time: nothing may still be moving
            out.append(await s.main_eval("scrollY"))
        await s.page.mouse.move(200, 200)
        await s.page.mouse.wheel(0, 300)
        await s._frames_if_any()
        out.append(await s.main_eval("scrollY"))
        await asyncio.sleep(0.3)
        out.append(await s.main_eval("scrollY"))
        return out

    (space, space_later, arrow, arrow_later, wheel, wheel_later), _ = drive_session(worker, cfg, fixture_html("testcases/tall_static.html"), steps)
    assert 0 < space == space_later < arrow == arrow_later < wheel == wheel_later == arrow + 300


def test_a_screenshot_step_costs_the_settle_interval(worker, cfg):
    # screenshot then assert_screenshot_changed with nothing between: the screenshot step costs
    # settle_ms of page time, like an action, so an animating page changes and a static one cannot.
    quick = [{"action": "screenshot"}, {"action": "assert_screenshot_changed"}]
    by_id, _ = run_on(
        worker, cfg, "animated_stripes.html",
        case(*quick, id="animated"),
        case({"action": "eval_js", "expression": "window.t0 = performance.now()"}, {"action": "screenshot"},
             {"action": "assert_js_value", "expression": "performance.now() - t0", "expected": 2 * cfg.limits.settle_ms}, id="cost"),
    )
    still, _ = run_on(worker, cfg, "tall_static.html", case(*quick, id="static"))
    assert by_id["animated"]["passed"] and by_id["cost"]["passed"], by_id
    assert not still["static"]["passed"] and "unchanged" in still["static"]["error"], still


def test_console_clean_sees_errors(evaluate):
    html = COUNTER.replace("window.firstRandom", "setTimeout(() => { null.boom(); }, 10); window.firstRandom")
    res = evaluate(html, {"id": "x", "test_cases": [case({"action": "wait", "ms": 50}, {"action": "assert_console_clean"})]})
    assert not res["tests"][0]["passed"]
    assert res["events"]["page_error_count"] >= 1


def test_drag_alternative_keys_move_the_pointer(evaluate):
    html = """<!doctype html><html><body style="margin:0"><div id="box" style="position:absolute;left:0;top:0;width:100px;height:100px;background:red"></div>
<script>let drag=null;const b=document.getElementById('box');
b.addEventListener('mousedown',e=>{drag=[e.clientX-b.offsetLeft,e.clientY-b.offsetTop]});
addEventListener('mousemove',e=>{if(drag){b.style.left=(e.clientX-drag[0])+'px';b.style.top=(e.clientY-drag[1])+'px'}});
addEventListener('mouseup',()=>drag=null);</script></body></html>"""
    moved = "parseInt(document.getElementById('box').style.left) >= 190"
    res = evaluate(html, {"id": "d", "test_cases": [
        case({"action": "drag", "from_pos": [50, 50], "to_pos": [250, 50]}, {"action": "assert_js_value", "expression": moved, "expected": True}, id="pos"),
        case({"action": "drag", "from": {"x": 50, "y": 50}, "to": {"x": 250, "y": 60}}, {"action": "assert_js_value", "expression": moved, "expected": True}, id="from_to"),
        case({"action": "drag", "from_selector": "#box", "dx": 200}, {"action": "assert_js_value", "expression": moved, "expected": True}, id="selector_dx"),
        case({"action": "scroll", "dy": 100}, id="scroll_dy"),
    ]})
    assert [t["passed"] for t in res["tests"]] == [True, True, True, True], res["tests"]


def test_every_scroll_step_reaches_the_page_listeners(evaluate):
    # Chromium fires scroll events in its next real frame; each step waits for it, so six steps
    # are six events on any machine. A NaN offset scrolls nowhere and fails nothing.
    html = """<!doctype html><html><body style="height:6000px"><script>window.scrolls = 0;
addEventListener('scroll', () => scrolls++)</script></body></html>"""
    steps = [{"action": "scroll", "dy": 200 if k % 2 == 0 else -100} for k in range(6)]
    res = evaluate(html, {"id": "s", "test_cases": [
        case(*steps, {"action": "assert_js_value", "expression": "scrolls", "expected": 6}, id="six"),
        case({"action": "scroll", "dy": "nan"}, {"action": "assert_js_value", "expression": "scrollY", "expected": 0}, id="nan"),
    ]})
    assert [t["passed"] for t in res["tests"]] == [True, True], res["tests"]


def test_waits_advance_page_time_exactly(evaluate, cfg):
    # Page time is virtual: after load (load_ms) and a 15 s wait, exactly that many interval ticks ran
    # and the page clock reads start + load_ms + 15000, whatever the machine's speed.
    html = "<!doctype html><html><body><p id=p>0</p><script>let t=0;window.t0=Date.now();setInterval(()=>{t++;document.getElementById('p').textContent=t},1000)</script></body></html>"
    elapsed = cfg.limits.load_ms + 15000
    ticks = elapsed // 1000
    res = evaluate(html, {"id": "w", "test_cases": [case(
        {"action": "wait", "ms": 15000},
        {"action": "assert_text_contains", "selector": "#p", "text": f"^{ticks}$"},
        {"action": "assert_js_value", "expression": f"Date.now() - window.t0 === {elapsed} && t === {ticks}", "expected": True},
    )]})
    assert res["tests"][0]["passed"], res["tests"][0]


@pytest.mark.parametrize(
    "pattern,expected",
    [("(?i)start", ("start", "i")), ("^Go$", ("^Go$", "")), ("(?im)a.b", ("a.b", "im")), ("(?x)q", ("q", ""))],
)
def test_inline_flags_become_js_flags(pattern, expected):
    assert js_regex(pattern) == expected


def test_text_search_is_case_insensitive_and_survives_bad_regex():
    assert py_search("score: \\d+", "SCORE: 12")
    assert py_search("(unclosed", "text (unclosed here")


RELOADING = """<!doctype html><html lang="en"><head><title>Reloads</title></head><body>
<h1 id="h">Loaded <span id="k"></span></h1><button id="again">Reload</button>
<script>
const k = Number(sessionStorage.getItem('k') || 0) + 1;
sessionStorage.setItem('k', k);
document.getElementById('k').textContent = k;
document.body.style.background = k > 1 ? '#224' : '#fff';
document.getElementById('again').addEventListener('click', () => location.reload());
</script></body></html>"""


def test_screenshots_after_the_page_reloads_itself(evaluate):
    """A reload mid-test replaces the document our isolated world lived in; the next
    screenshot and probe must follow the new document, not fail on the old context."""
    item = {"id": "reloads", "test_cases": [case(
        {"action": "screenshot", "label": "before"},
        {"action": "assert_visible", "selector": "#again"},
        {"action": "click", "selector": "#again"},
        {"action": "wait", "ms": 500},
        {"action": "wait_for", "selector": "#k", "timeout": 2000},
        {"action": "assert_screenshot_changed", "threshold": 0.99},
        {"action": "assert_js_value", "expression": "sessionStorage.getItem('k') === '2'", "expected": True},
    )]}
    tests = evaluate(RELOADING, item)["tests"]
    assert tests[0]["passed"], tests[0]
