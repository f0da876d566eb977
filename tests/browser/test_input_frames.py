"""Events Chromium delivers in its next real frame (scroll, animation end) reach the page before
page time moves on, and browser UI animated in real time (the form-validation bubble) is kept off
the page, so neither what a listener does nor what a screenshot shows depends on machine speed."""

from __future__ import annotations

from conftest import case, drive_session, fixture_html

COUNTER = """<!doctype html><html lang=en><head><title>scrolls</title></head>
<body style="height:5000px"><script>window.scrolls = 0; addEventListener('scroll', () => scrolls++);</script></body></html>"""


def test_every_scroll_event_has_fired_when_scroll_to_returns(worker, cfg):
    # Without the frame wait about one scroll in ten was still undelivered when the next call ran.
    async def steps(s):
        seen = []
        for k in range(24):
            await s.scroll_to(10 + (k % 2) * 700)
            seen.append(await s.main_eval("scrolls"))
            await s.advance(100)
        return seen

    seen, events = drive_session(worker, cfg, COUNTER, steps)
    assert seen == list(range(1, 25))
    assert not events["page_errors"]


def test_a_reveal_on_scroll_section_is_revealed_by_the_scroll_alone(worker, cfg):
    # scroll_reveal.html reveals sections from its scroll listener only; none is revealed at load.
    revealed = "document.querySelectorAll('.revealed').length"

    async def steps(s):
        before = await s.main_eval(revealed)
        await s.scroll_to(s.viewport.height)
        return before, await s.main_eval(revealed)

    (before, after), _ = drive_session(worker, cfg, fixture_html("experience/scroll_reveal.html"), steps)
    assert (before, after >= 1) == (0, True)


OBSERVED = """<!doctype html><html lang=en><head><title>observed</title></head>
<body style="height:5000px"><div id="t" style="position:absolute;top:2000px;width:50px;height:50px">t</div><script>
window.seen = 0;
new IntersectionObserver(entries => entries.forEach(e => { if (e.isIntersecting) seen++; })).observe(t);
</script></body></html>"""


def test_intersection_observer_callbacks_have_run_when_scroll_to_returns(worker, cfg):
    # The frame after a scroll queues the observer's callback as a task; the frame wait ends when
    # the main thread has gone idle after that frame (page_capture.SETTLE_JS), so the callback has
    # run before page time moves on, on every one of the twelve scrolls.
    async def steps(s):
        seen = []
        for k in range(12):
            await s.scroll_to(1800 if k % 2 == 0 else 0)
            seen.append(await s.main_eval("seen"))
            await s.advance(100)
        return seen

    seen, events = drive_session(worker, cfg, OBSERVED, steps)
    assert seen == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]
    assert not events["page_errors"]


ENDINGS = """<!doctype html><html lang=en><head><title>endings</title><style>
#fade { transition: opacity .2s; } #fade.out { opacity: 0; }
@keyframes nudge { from { margin-left: 0; } to { margin-left: 10px; } } #pulse.on { animation: nudge .2s; }
</style></head><body><p id="fade">fade</p><p id="pulse">pulse</p><script>
window.ended = 0; window.pulses = 0;
fade.addEventListener('transitionend', () => ended++);
pulse.addEventListener('animationend', () => pulses++);
</script></body></html>"""
RESTART = "fade.classList.toggle('out'); pulse.classList.remove('on'); void pulse.offsetWidth; pulse.classList.add('on'); 1"


def test_animation_end_events_fire_at_the_page_time_the_animation_ends(worker, cfg):
    # Animations are seeked by page time and Chromium fires their end events in its next real
    # frame; without waiting for it, the counters lagged behind on some steps (2 of 15 here).
    async def steps(s):
        seen = []
        for _ in range(15):
            await s.main_eval(RESTART)
            await s.advance(300)
            seen.append((await s.main_eval("ended"), await s.main_eval("pulses")))
        return seen

    seen, _ = drive_session(worker, cfg, ENDINGS, steps)
    assert seen == [(k, k) for k in range(1, 16)]


def test_an_endless_animation_costs_no_frame_waits(worker, cfg, monkeypatch):
    spinner = """<!doctype html><html lang=en><head><title>spin</title><style>
@keyframes spin { to { transform: rotate(360deg); } } #s { width: 20px; height: 20px; background: #333;
animation: spin .5s linear infinite; }</style></head><body><div id="s"></div></body></html>"""
    waits = []

    async def steps(s):
        real = s._deliver_animation_events

        async def counted():
            waits.append(s.vnow)
            await real()

        monkeypatch.setattr(s, "_deliver_animation_events", counted)
        for _ in range(20):
            await s.advance(300)
        return len(waits)

    count, _ = drive_session(worker, cfg, spinner, steps)
    assert count <= 1  # at most once, when the spinner is first seen


def test_the_validation_bubble_is_suppressed_and_the_page_still_sees_invalid(evaluate):
    html = """<!doctype html><html lang=en><head><title>form</title></head><body><form id=f>
<input id=name required><button id=send>Send</button></form><script>
window.invalid = []; window.sent = 0;
document.getElementById('name').addEventListener('invalid', (e) => invalid.push(e.defaultPrevented));
document.getElementById('f').addEventListener('submit', (e) => { e.preventDefault(); sent++; });
</script></body></html>"""
    probe = "JSON.stringify([invalid, sent, document.activeElement.id])"
    res = evaluate(html, {"id": "v", "test_cases": [case(
        {"action": "click", "selector": "#send"},
        {"action": "assert_js_value", "expression": probe, "expected": '[[true],0,"send"]'},
    )]})
    # Cancelled: no bubble and no focus jump to the field; the form still did not submit.
    assert res["tests"][0]["passed"], res["tests"][0]


def test_smooth_scrolling_happens_at_once(evaluate):
    # Smooth scrolls run in real time; both kinds (CSS scroll-behavior, behavior: 'smooth') jump.
    html = """<!doctype html><html lang=en><head><title>smooth</title><style>html { scroll-behavior: smooth; }
</style></head><body><a id=to-end href="#end">to the end</a><button id=js>top</button>
<div style="height:5000px"></div><h2 id=end>end</h2><div style="height:2000px"></div><script>
document.getElementById('js').addEventListener('click', () => {
  window.scrollTo({ top: 0, behavior: 'smooth' });
  document.getElementById('end').scrollIntoView({ behavior: 'smooth' });
});</script></body></html>"""
    at_end = {"action": "assert_js_value", "expression": "Math.abs(document.getElementById('end').getBoundingClientRect().top) < 2", "expected": True}
    res = evaluate(html, {"id": "smooth", "test_cases": [
        case({"action": "click", "selector": "#to-end"}, at_end, id="anchor"),
        case({"action": "click", "selector": "#js"}, at_end, id="js"),
    ]})
    assert [t["passed"] for t in res["tests"]] == [True, True], res["tests"]


MOVES = """<!doctype html><html lang=en><head><title>moves</title></head><body><script>
window.moves = [];
for (const t of ['mousemove', 'pointermove', 'mouseover']) addEventListener(t, e => moves.push([t, e.clientX, e.clientY]));
</script><p>listens</p></body></html>"""


def test_no_made_up_pointer_move_reaches_a_loading_document(worker, cfg):
    # Loaded back to back, nearly every document got a trusted move to (0, 0) from Chromium
    # while it started up (before init.js held them back); moves the evaluator makes after the
    # load still arrive.
    async def steps(s):
        seen = []
        for k in range(6):
            await s.load(k + 2)
            seen.append(await s.main_eval("moves.length"))
        await s.page.mouse.move(40, 30)
        await s.pointer_landed()
        return seen, await s.main_eval("moves.filter(m => m[0] === 'mousemove')")

    (seen, after), _ = drive_session(worker, cfg, MOVES, steps)
    assert seen == [0] * 6
    assert after == [["mousemove", 40, 30]]
