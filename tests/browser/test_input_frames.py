"""Inputs Chromium delivers in its next real frame (scroll events, pointer moves) reach the page
before page time moves on, so what a listener does never depends on the machine's speed."""

from __future__ import annotations

from conftest import drive_session, fixture_html

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
