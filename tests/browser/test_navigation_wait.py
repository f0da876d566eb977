"""A page that navigates itself (a form without a submit handler, a reload from a timer) gets its
next document loaded before page time moves on, so what the next look sees never depends on how
far the new document had got in real time."""

from __future__ import annotations

from conftest import drive_session

ROWS = "".join(f"<tr><td>{i}</td><td>row {i}</td><td><b>{i * 7}</b></td></tr>" for i in range(1500))
STATE = "[+sessionStorage.n, performance.now(), document.readyState, !!window.done]"


def _page(script: str, body: str = "") -> str:
    # sessionStorage survives a same-origin reload: n counts the documents this tab has loaded.
    return f"""<!doctype html><html lang=en><head><title>nav</title></head><body>{body}<script>
sessionStorage.n = (+sessionStorage.n || 0) + 1; window.done = true; {script}</script></body></html>"""


def test_enter_in_a_form_without_a_handler_reloads_before_the_next_step(worker, cfg):
    html = _page("", f"<form><input id=q name=q value=x></form><table>{ROWS}</table>")

    async def steps(s):
        seen = []
        for _ in range(3):
            await s.page.locator("#q").press("Enter", timeout=5000)
            await s.advance(50)
            seen.append(await s.main_eval(STATE))
        return seen

    # Before the wait, the first step saw the old document or a half-parsed new one (2 runs in 3).
    for _ in range(2):
        seen, _ = drive_session(worker, cfg, html, steps)
        assert seen == [[2, 50, "complete", True], [3, 50, "complete", True], [4, 50, "complete", True]]


def test_a_reload_from_a_timer_is_followed_and_the_new_document_starts_at_zero(worker, cfg):
    # The reload fires 30 ms into the first step after load (load itself runs limits.load_ms).
    html = _page(f"if (+sessionStorage.n === 1) setTimeout(() => location.reload(), {cfg.limits.load_ms + 30});")

    async def steps(s):
        await s.advance(100)  # the reload happens inside this step; the old document's time stops
        first = await s.main_eval(STATE)
        await s.advance(100)
        return first, await s.main_eval(STATE)

    (first, second), _ = drive_session(worker, cfg, html, steps)
    assert first == [2, 0, "complete", True]
    assert second == [2, 100, "complete", True]


def test_a_refused_navigation_keeps_the_document_and_its_page_time(worker, cfg):
    # Reloads beyond limits.max_reloads (3) are answered 204: the document stays, time goes on.
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
