"""A page that navigates itself (a form without a submit handler, a reload from a timer) has its
next document loaded completely before page time moves on, so what the next look sees never
depends on how far the new document had got in real time (browser/page_follow.py)."""

from __future__ import annotations

from conftest import drive_session

ROWS = "".join(f"<tr><td>{i}</td><td>row {i}</td><td><b>{i * 7}</b></td></tr>" for i in range(1500))
# sessionStorage survives a same-origin reload, so n counts the documents this tab has loaded.
STATE = "[+sessionStorage.n, performance.now(), document.readyState, !!window.done]"


def _page(script: str, body: str = "") -> str:
    return f"""<!doctype html><html lang=en><head><title>nav</title></head><body>{body}<script>
sessionStorage.n = (+sessionStorage.n || 0) + 1; window.done = true; {script}</script></body></html>"""


def test_enter_in_a_form_without_a_handler_is_followed_before_the_next_step(worker, cfg):
    # A long table: the new document is still parsing when the key press returns.
    html = _page("", f"<form><input id=q name=q value=x></form><table>{ROWS}</table>")

    async def steps(s):
        seen = []
        for _ in range(3):
            await s.page.locator("#q").press("Enter", timeout=5000)
            await s.advance(50)
            seen.append(await s.main_eval(STATE))
        return seen

    for _ in range(2):
        seen, _ = drive_session(worker, cfg, html, steps)
        assert seen == [[2, 50, "complete", True], [3, 50, "complete", True], [4, 50, "complete", True]]


def test_a_reload_from_a_timer_is_followed_and_the_new_document_starts_at_zero(worker, cfg):
    # The reload fires 30 ms into the first step after the load (which runs limits.load_ms).
    html = _page(f"if (+sessionStorage.n === 1) setTimeout(() => location.reload(), {cfg.limits.load_ms + 30});")

    async def steps(s):
        await s.advance(100)  # the old document's time ends with the reload
        first = await s.main_eval(STATE)
        await s.advance(100)
        return first, await s.main_eval(STATE)

    (first, second), _ = drive_session(worker, cfg, html, steps)
    assert first == [2, 0, "complete", True]
    assert second == [2, 100, "complete", True]


def test_a_refused_reload_keeps_the_document_and_its_page_time(worker, cfg):
    # Reloads beyond limits.max_reloads (3 in drive_session) are answered 204: the document stays.
    html = _page("", "<form><input name=q value=x><button id=go>Go</button></form>")

    async def steps(s):
        seen = []
        for _ in range(5):
            await s.page.locator("#go").click(timeout=5000)
            await s.advance(50)
            seen.append((await s.main_eval(STATE))[:2])
        return seen

    seen, _ = drive_session(worker, cfg, html, steps)
    assert seen == [[2, 50], [3, 50], [4, 50], [4, 100], [4, 150]]


def test_a_navigation_that_never_arrives_is_not_waited_for(worker, cfg):
    # mailto: from a timer starts to leave but no document comes: page time simply goes on. (A
    # wait keyed on the document leaving, reverted in 8bfe7df, cost such a page its wall cap.)
    html = _page(f"setInterval(() => {{ location.href = 'mailto:a@example.com'; }}, 20);")

    async def steps(s):
        loader = s._loader_id
        for _ in range(20):
            await s.advance(100)
        return await s.main_eval(STATE), s._loader_id == loader

    (state, same_document), _ = drive_session(worker, cfg, html, steps)
    assert state == [1, cfg.limits.load_ms + 2000, "complete", True]
    assert same_document
