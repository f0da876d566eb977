"""The virtual page clock (webmend/browser/assets/clock.js) and the browser profiles."""

from __future__ import annotations

import json

from conftest import case

START = 1_767_225_600_000  # sandbox.start_time_ms


def page(script: str, body: str = "<h1>clock</h1>") -> str:
    return f"<!doctype html><html lang=en><head><title>clock</title></head><body>{body}<script>{script}</script></body></html>"


def check(expression: str, expected) -> dict:
    return {"action": "assert_js_value", "expression": expression, "expected": expected}


def run(evaluate, html: str, *cases) -> dict:
    return evaluate(html, {"id": "clock", "has_interaction": False, "test_cases": list(cases)})


TIMERS = """
window.log = [];
const at = (label) => log.push(label + '@' + performance.now());
setTimeout(() => at('t100'), 100);
setTimeout(() => at('t50'), 50);
let n = 0; const iv = setInterval(() => { at('i'); if (++n === 3) clearInterval(iv); }, 30);
requestAnimationFrame((ts) => log.push('raf@' + ts));
setTimeout(() => { Promise.resolve().then(() => log.push('micro')); }, 40);
setTimeout(() => log.push('after-micro'), 40);
window.bootNow = Date.now();
window.bootPerf = performance.now();
"""


def test_timers_fire_in_page_time_order_with_microtasks_between(evaluate):
    expected = ["raf@16", "i@30", "micro", "after-micro", "t50@50", "i@60", "i@90", "t100@100"]
    ev = run(evaluate, page(TIMERS), case(check("JSON.stringify(log)", json.dumps(expected, separators=(",", ":")))))
    assert ev["status"] == "ok" and ev["tests"][0]["passed"], ev["tests"]


def test_every_document_starts_at_the_same_page_time(evaluate):
    same = case(check("bootNow", START), check("bootPerf", 0), check("Date.now() - performance.now()", START), id="a")
    ev = run(evaluate, page(TIMERS), same, {**same, "id": "b"}, {**same, "id": "c"})
    assert [t["passed"] for t in ev["tests"]] == [True, True, True], ev["tests"]


def test_date_intl_and_event_time_follow_the_page_clock(evaluate):
    script = "window.clicked = null; document.body.addEventListener('click', (e) => { clicked = e.timeStamp; });"
    ev = run(evaluate, page(script), case(
        check("new Date().getTime() === Date.now() && Date() === new Date(Date.now()).toString()", True),
        check("new Intl.DateTimeFormat('en-US', {timeZone: 'UTC', year: 'numeric'}).format()", "2026"),
        {"action": "wait", "ms": 250},
        check("performance.now()", 750),  # load_ms 500 + 250
        {"action": "click", "selector": "h1"},
        check("clicked >= 750 && clicked <= performance.now()", True),
    ))
    assert ev["tests"][0]["passed"], ev["tests"]


def test_a_throwing_timer_is_a_page_error_and_the_others_still_run(evaluate):
    script = "setTimeout(() => { throw new Error('tick-boom'); }, 10); setTimeout(() => { window.after = 1; }, 20);"
    ev = run(evaluate, page(script), case(check("window.after", 1)))
    assert ev["tests"][0]["passed"], ev["tests"]
    assert any("tick-boom" in e for e in ev["events"]["page_errors"])


def test_zero_delay_loops_are_clamped_not_hung(evaluate):
    script = """
    window.chain = 0; const again = () => { chain++; setTimeout(again, 0); }; setTimeout(again, 0);
    window.ticks = 0; setInterval(() => { ticks++; }, 0);
    """
    ev = run(evaluate, page(script), case(check("chain > 100 && chain < 200 && ticks > 100 && ticks < 200", True)))
    assert ev["status"] == "ok" and ev["tests"][0]["passed"], (ev["status"], ev["tests"], ev["events"]["hangs"])


def test_same_origin_frames_share_the_clock(evaluate):
    frame = "<iframe srcdoc=\"<script>parent.frameTicks = 0; setInterval(() => parent.frameTicks++, 100);</script>\"></iframe>"
    ev = run(evaluate, page("", body="<h1>frames</h1>" + frame), case({"action": "wait", "ms": 1000}, check("frameTicks >= 10 && frameTicks <= 16", True)))
    assert ev["tests"][0]["passed"], ev["tests"]


def test_webgl_found_only_at_run_time_moves_the_page_to_the_gl_browser(evaluate):
    # The context type is assembled at run time, so the code scan cannot see WebGL.
    script = "const gl = document.querySelector('canvas').getContext(['web', 'gl'].join('')); window.glOk = !!gl;"
    ev = run(evaluate, page(script, body="<canvas width=64 height=64></canvas>"), case(check("glOk", True)))
    assert ev["static"]["uses_webgl"] is False
    assert ev["profile"] == "gl" and ev["events"]["webgl_documents"] >= 1
    assert ev["tests"][0]["passed"], ev["tests"]


def test_pages_without_webgl_use_the_raster_browser(evaluate):
    ev = run(evaluate, page("window.x = 1;"), case(check("x", 1)))
    assert ev["profile"] == "raster" and ev["events"]["webgl_documents"] == 0


def test_css_animations_follow_page_time(evaluate):
    style = "<style>#b{position:absolute;left:0;width:10px;height:10px;background:red;animation:move 1s linear forwards}" \
            "@keyframes move{from{left:0}to{left:1000px}}</style>"
    ev = run(evaluate, page("", body=style + "<div id=b></div>"), case(
        check("getComputedStyle(document.getElementById('b')).left", "500px"),  # load_ms = 500
        {"action": "wait", "ms": 250},
        check("getComputedStyle(document.getElementById('b')).left", "750px"),
    ))
    assert ev["tests"][0]["passed"], ev["tests"]


def test_a_run_split_by_its_callbacks_fires_the_same_callbacks_at_the_same_times(evaluate, monkeypatch):
    # Slow callbacks (a contract's instrumentation, say) must not make one clock call outlive the
    # hang cap, so a run comes back every CLOCK_CALLBACKS callbacks; where it stops is invisible.
    import webmend.browser.page_clock as page_clock

    many = TIMERS + "for (let i = 0; i < 150; i++) setTimeout(() => at('m' + i), 3 * i);" \
                    "(function loop(t) { at('f'); if (t < 900) requestAnimationFrame(loop); })(0);"
    digest = "[...log.join(' ')].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) >>> 0, 7) + ' ' + log.length + ' ' + " \
             "log.filter((x) => x.startsWith('m149') || x.startsWith('f@9')).join(' ')"
    log = case({"action": "wait", "ms": 1000}, check(digest, ""))
    whole = run(evaluate, page(many), log)["tests"][0]
    monkeypatch.setattr(page_clock, "CLOCK_CALLBACKS", 3)
    split = run(evaluate, page(many), log)["tests"][0]
    assert whole["error"] == split["error"] and "m149@447" in whole["error"] and "f@912" in whole["error"], whole
