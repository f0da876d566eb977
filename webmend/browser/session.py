"""One fresh load of one page: a new browser context, virtual time, and guarded browser calls.

Every call that the page could stall (an infinite loop blocks the renderer) goes through
`guard`. Past its step cap a call is hung only when the page's processes show it (a renderer
spinning, or nothing running: step_progress), not because a busy machine made it slow; then
`guard` stops the runaway script through CDP, records the hang and raises `PageHung`, so the
caller decides what the step's verdict is and moves on. The page's wall-clock budget ends any
call (`BudgetExhausted`: status `timeout`, an evaluator outcome).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from dataclasses import dataclass, replace

from webmend.browser.evidence import PageEvents
from webmend.browser.network import RequestPolicy, page_url
from webmend.browser.page_capture import PageCapture
from webmend.browser.page_clock import PageClock
from webmend.browser.page_errors import BudgetExhausted, PageCrashed, PageHung
from webmend.browser.page_follow import PageFollow
from webmend.browser.page_input import PageInput
from webmend.browser.page_scripts import CLOCK_JS, CLOCK_KEY, INIT_JS, OBSERVE_JS, WORKERS_JS
from webmend.browser.page_worlds import PageWorlds
from webmend.browser.step_progress import CHECK_EVERY, WATCH_FROM, StepWatch
from webmend.config import EvalConfig, Viewport

log = logging.getLogger(__name__)

# Resolves once the document is complete. Its own timer tasks run between the page's tasks, so
# the load event's task, which sets readyState, has run all the page's load handlers by then.
LIVE_EVENT = CLOCK_KEY + ":live"  # init.js: pointer moves reach the page from here on
# Resolves once the document has loaded completely, and then lets pointer moves through to it.
LOADED_JS = ("new Promise(r => { const poll = () => document.readyState === 'complete' ? r(true) : setTimeout(poll, 5); "
             "poll(); }).then(done => { document.dispatchEvent(new Event('%s')); return done; })" % LIVE_EVENT)


@dataclass
class PageShared:
    """State shared by all fresh loads of one page version."""

    cfg: EvalConfig
    policy: RequestPolicy
    events: PageEvents
    step_wall_s: float
    profile: str = "raster"  # the launch.PROFILES browser this page runs in ("gl": WebGL pages)
    # time.monotonic() by which the whole page must be done (None: no page budget, tests only).
    # No guarded call may outlive it, so wall time a busy GPU process takes counts against the page.
    deadline: float | None = None
    exhausted_during: str | None = None  # the call that was running when the budget ran out
    init_script: str = ""  # a contract's instrumentation, run in every document before the page's scripts

    def fork(self) -> "PageShared":
        """The same page, budget and browser, with evidence of its own (events, request policy,
        network log): one of several runs of documents at once (evaluate/testcase_lanes.py).
        `absorb` adds it back."""
        return replace(self, policy=self.policy.fork(), events=PageEvents(max_messages=self.events.max_messages))

    def absorb(self, other: "PageShared") -> None:
        """Add a fork's evidence after this one's, as if it had been recorded here."""
        self.events.absorb(other.events)
        self.policy.absorb(other.policy)
        self.exhausted_during = self.exhausted_during or other.exhausted_during

    def step_cap_s(self) -> float:
        if self.deadline is None:
            return self.step_wall_s
        return min(self.step_wall_s, self.deadline - time.monotonic())


_DEADLINE_SLACK_S = 0.05  # asyncio may wake this much before a timer's time


class _Stuck(Exception):
    """A guarded call past its cap whose page shows no progress (step_progress says why)."""


class _BudgetEnded(Exception):
    """The page's wall-clock budget ended while a guarded call was running."""


async def _finished(task: asyncio.Future, timeout_s: float) -> bool:
    if timeout_s > 0:
        await asyncio.wait({task}, timeout=timeout_s)
    return task.done()


async def _cancel(task: asyncio.Future) -> None:
    task.cancel()
    await asyncio.wait({task})  # let it unwind before the browser is asked anything else


class PageSession(PageClock, PageFollow, PageWorlds, PageCapture, PageInput):
    """One fresh load: its lifecycle, event wiring and the guard every browser call goes through
    here; time (page_clock), evaluation (page_worlds), pixels (page_capture) and input
    (page_input) in the modules it is made of."""

    def __init__(self, browser, shared: PageShared, viewport: Viewport | None = None):
        self._browser = browser
        self.shared = shared
        self.cfg = shared.cfg
        self.viewport = viewport or shared.cfg.viewport
        self.doc_start = self.vnow = shared.cfg.sandbox.start_time_ms
        self.context = None
        self.page = None
        self.cdp = None
        self._world: int | None = None  # our isolated world with probes.js (page_worlds.py)
        self._bare_world: int | None = None  # the one the load wait made, probes not yet in
        self._frame_id: str | None = None
        self._frameless = False  # this document showed no frames after a pointer move or a scroll
        # page_follow.py: the current document's loader, the main frame, the renderer's
        # navigation requests since the current document, refusals already accounted for
        self._loader_id: str | None = None
        self._main_frame: str | None = None
        self._requested: list[str] = []
        self._refused_seen = 0
        self.crashed = False
        self.url: str | None = None  # the current document's address (network.page_url)

    # ---- lifecycle -------------------------------------------------------------------
    async def open(self) -> None:
        """A new browser context and tab for this page version (no document yet)."""
        cfg = self.cfg
        self.context = await self._browser.new_context(
            viewport={"width": self.viewport.width, "height": self.viewport.height},
            device_scale_factor=1,
            timezone_id=cfg.sandbox.timezone,
            locale=cfg.sandbox.locale,
            accept_downloads=False,
            service_workers="block",
            java_script_enabled=True,
        )
        init = INIT_JS.replace("__WM_SEED__", str(cfg.sandbox.seed))
        init = init.replace("__WM_CONSOLE_CAP__", str(cfg.limits.max_console_calls))
        init = init.replace("__WM_MAX_WORKERS__", str(cfg.limits.max_workers))
        init = init.replace("__WM_LIVE_EVENT__", LIVE_EVENT)
        gl = self.shared.profile == "gl"
        init = init.replace("__WM_PIXEL_RATIO__", repr(float(cfg.gl_pixel_ratio)) if gl else "1")
        if cfg.virtual_time:
            clock = CLOCK_JS.replace("__WM_CLOCK_KEY__", CLOCK_KEY)
            clock = clock.replace("__WM_SKIP_HIDDEN_DRAWS__", "true" if cfg.skip_hidden_draws else "false")
            init = clock.replace("__WM_START_MS__", str(int(cfg.sandbox.start_time_ms))) + init
            init += "\n" + WORKERS_JS.replace("__WM_MAX_CLOCK_WORKERS__", str(cfg.limits.max_clock_workers))
        init += "\n" + OBSERVE_JS
        await self.context.add_init_script(script=init)
        if self.shared.init_script:  # a contract's own instrumentation: after ours, before the page's
            await self.context.add_init_script(script=contract_init(self.shared.init_script))
        await self.context.route("**/*", self._route)
        await self.context.route_web_socket("**/*", self._route_websocket)
        self.page = await self.context.new_page()
        self._wire_events(self.page)
        self.cdp = await self.context.new_cdp_session(self.page)
        self._main_frame = None
        await self.watch_navigations()
        if cfg.virtual_time:
            # Freeze every document timeline of this tab (it persists across navigations): CSS
            # animations and transitions never move in real time, only when probes.js seeks them
            # to page time. Without it, a short transition started by a hover could finish in real
            # time before the next sync saw it, so a loaded machine saw a different frame.
            await self.cdp.send("Animation.setPlaybackRate", {"playbackRate": 0})
        self.crashed = False

    async def load(self, index: int | str) -> None:
        """A freshly loaded document with empty storage and the default viewport.

        Every document starts its page clock at the same page time (clock.js), so what one
        test case does never shifts the time another one sees. `index` names the document
        (0 = the probe, i = test case i).
        """
        cfg = self.cfg
        if self.page is None or self.crashed:
            await self._new_tab()
        else:
            # Reusing the tab keeps the renderer warm; the new document's own origin
            # (network.page_url) gives it empty storage. Cookies can be scoped to the whole
            # page.test site (by the page or by test-case JavaScript), so they are cleared.
            await self.guard(self.context.clear_cookies(), "clear cookies")
            if self.viewport != cfg.viewport:
                await self.set_viewport(cfg.viewport.width, cfg.viewport.height)
        self.url = page_url(index)
        await self._start_document(fresh=True)

    async def reload(self) -> None:
        """The current document loaded again, as a user's reload does: same origin, so its storage
        stays; its page clock starts over, as on every load."""
        if self.page is None or self.crashed or self.url is None:
            raise PageCrashed("reload")
        await self._start_document(fresh=False)

    async def _start_document(self, fresh: bool) -> None:
        self._world = self._bare_world = self._frame_id = None
        self._frameless = False
        self.doc_start = self.vnow = self.cfg.sandbox.start_time_ms
        self.shared.policy.start_document()
        # Wait for whichever document ends up loaded: a page that reloads itself replaces the
        # navigation goto() started, so waiting on that navigation would never finish.
        try:
            await self._navigate(self.url)
        except (PageHung, PageCrashed):
            raise
        except Exception as exc:
            if not (fresh and _detached(exc)):
                raise
            # The tab's DevTools session died with a stuck or replaced renderer: a new tab.
            log.warning("lost the tab's DevTools session (%s); opening a new one", str(exc).splitlines()[0])
            await self._new_tab()
            await self._navigate(self.url)
        await self.guard(self._until_complete(), "load")
        # After the load: a renderer stuck in its first script answers no frame-tree query either,
        # and its fault is the load's.
        await self.note_current_document()
        await self.advance(self.cfg.limits.load_ms)

    async def _new_tab(self) -> None:
        await self.close()
        self.viewport = self.cfg.viewport
        await self.open()

    async def _navigate(self, url: str) -> None:
        """Start the fresh document. A navigation the previous document left in flight (a form
        post, a reload) is stopped first; if it still wins the race and aborts ours, go again."""
        for attempt in range(3):
            try:
                await self.guard(self.cdp.send("Page.stopLoading"), "load")
                await self.guard(self.page.goto(url, wait_until="commit", timeout=0), "load")
                return
            except (PageHung, PageCrashed):
                raise
            except Exception as exc:
                if attempt == 2 or not ("ERR_ABORTED" in str(exc) or "interrupted by another navigation" in str(exc)):
                    raise
                log.debug("fresh load aborted by a competing navigation; again: %s", exc)

    async def _until_complete(self) -> None:
        """Wait until whichever document ends up current has loaded completely. Playwright's
        load tracking waits forever when a page's own reload navigation is cancelled (the 204
        answer of a reload loop), so the wait is our own: a poll of readyState inside a new
        isolated world, whose timers are real (the page's are virtual) and whose globals the
        page cannot change, answered in one CDP call; the world then gets probes.js. A document
        the page replaces while loading takes the world with it: the wait starts again in the
        next one."""
        while True:
            self._bare_world = None
            try:
                self._bare_world = await self._new_world(guarded=False)
                res = await self.cdp.send("Runtime.evaluate", {
                    "expression": LOADED_JS, "contextId": self._bare_world, "awaitPromise": True, "returnByValue": True})
                if res.get("result", {}).get("value") is True:
                    return
            except Exception as exc:  # the document is being replaced; ask again
                if "crash" in str(exc).lower():
                    raise
            self._frame_id = None
            await asyncio.sleep(0.005)

    async def close(self) -> None:
        if self.context is not None:
            try:
                await asyncio.wait_for(self.context.close(), timeout=10)
            except Exception as exc:  # a wedged context must not stop the run
                log.warning("context close failed: %s", exc)
            self.context = self.page = self.cdp = None

    def sibling(self) -> "PageSession":
        """Another session of the same page version (not open yet): its own context and tab."""
        return PageSession(self._browser, self.shared)

    # The request policy and the evidence are looked up when a request or an event comes, not
    # bound at open(): test-case lanes (evaluate/testcase_lanes.py) give each run of documents
    # evidence of its own by swapping `shared`.
    async def _route(self, route) -> None:
        await self.shared.policy.handle(route)

    async def _route_websocket(self, ws_route) -> None:
        await self.shared.policy.handle_websocket(ws_route)

    def _wire_events(self, page) -> None:
        page.on("console", lambda m: self.shared.events.on_console(m.type, m.text))
        page.on("pageerror", lambda e: self.shared.events.on_page_error(_error_text(e)))
        page.on("dialog", self._on_dialog)
        page.on("download", self._on_download)
        page.on("crash", self._on_crash)
        page.on("popup", self._on_popup)

    async def _on_dialog(self, dialog) -> None:
        self.shared.events.on_dialog(dialog.type)
        try:
            # Leaving must always be allowed; anything else is answered "no".
            await (dialog.accept() if dialog.type == "beforeunload" else dialog.dismiss())
        except Exception:  # page already gone
            pass

    async def _on_download(self, download) -> None:
        self.shared.events.downloads += 1
        try:
            await download.cancel()
        except Exception:
            pass

    def _on_crash(self, _page) -> None:
        self.crashed = True
        self.shared.events.crashes += 1

    async def _on_popup(self, popup) -> None:
        # window.open is neutered in init.js; this catches target=_blank links and forms.
        self.shared.events.contained["popup"] = self.shared.events.contained.get("popup", 0) + 1
        try:
            await popup.close()
        except Exception:
            pass

    # ---- guarded calls -----------------------------------------------------------------
    async def guard(self, coro, what: str):
        shared = self.shared
        if self.crashed:
            coro.close()
            raise PageCrashed(what)
        cap = shared.step_cap_s()
        if shared.exhausted_during is not None or cap <= 0:
            coro.close()
            shared.exhausted_during = shared.exhausted_during or what
            raise BudgetExhausted(shared.exhausted_during)
        task = asyncio.ensure_future(coro)
        try:
            return await self._step(task, cap)
        except asyncio.CancelledError:
            task.cancel()  # cancelled from outside: the call goes with it, as under wait_for
            raise
        except _BudgetEnded:
            # No terminateExecution: the browser is killed next (evaluate.page), at once.
            shared.exhausted_during = what
            raise BudgetExhausted(what) from None
        except _Stuck as stuck:
            log.debug("%s hung (%s)", what, stuck)
            shared.events.hangs.append(what)
            await self._stop_scripts()
            raise PageHung(what) from None
        except Exception as exc:
            if self.crashed or "crash" in str(exc).lower():
                self.crashed = True
                raise PageCrashed(what) from exc
            # A Playwright action that timed out may mean the renderer is stuck in a loop the
            # action itself started: tell the two apart with a trivial evaluation.
            if "Timeout" in str(exc) and not await self._answers():
                self.shared.events.hangs.append(what)
                await self._stop_scripts()
                raise PageHung(what) from None
            raise

    async def _step(self, task: asyncio.Future, cap: float):
        """The call's result. Past the step cap it is waited for while the page's processes show
        it working (step_progress: the cap counts CPU, not wall seconds); the page's budget ends
        it in any case."""
        shared = self.shared
        watch_at = min(cap, shared.step_wall_s * WATCH_FROM)
        if await _finished(task, watch_at):
            return task.result()
        watch = StepWatch(shared.step_wall_s, watch_at)
        window = cap - watch_at
        while True:
            if await _finished(task, window):
                return task.result()
            if shared.step_cap_s() <= _DEADLINE_SLACK_S:  # the page's budget ended this window
                await _cancel(task)
                raise _BudgetEnded()
            why = watch.stuck()
            if why is not None:
                await _cancel(task)
                raise _Stuck(why)
            window = min(shared.step_wall_s * CHECK_EVERY, shared.step_cap_s())

    async def _answers(self, wait_s: float = 1.0) -> bool:
        try:
            await asyncio.wait_for(self.cdp.send("Runtime.evaluate", {"expression": "0"}), timeout=wait_s)
            return True
        except Exception:
            return False

    async def _stop_scripts(self) -> None:
        """Terminate the running script so the renderer answers again."""
        try:
            await asyncio.wait_for(self.cdp.send("Runtime.terminateExecution"), timeout=5)
        except Exception as exc:
            log.warning("terminateExecution failed: %s", exc)























def contract_init(source: str) -> str:
    """A contract's init script as its own script: one that does not parse or that throws is
    reported (contained `init_script_failed`) and is not the page's error."""
    return ("(() => { const report = console.debug.bind(console); try { (new Function(%s))(); } "
            "catch (e) { report('__wm:init_script_failed', String(e)); } })();" % json.dumps(source))


def _detached(exc: Exception) -> bool:
    text = str(exc)
    return any(m in text for m in ("Not attached to an active page", "Target closed", "Session closed", "has been closed"))


# The page's own address in a stack frame, on whichever host the evaluator loaded it (page.test,
# s1.page.test for a shared test-case document, with a query after a form submit): "line L:C" says
# the same, and the same error from two documents reads the same.
_PAGE_URL = re.compile(r"https?://(?:[a-z0-9-]+\.)*page\.test/[^\s:)]*:")


def _error_text(e) -> str:
    """An uncaught error as `Name: message (at frame)`: the first stack frame says where in the page
    it was thrown (function, line, column), which a repair model needs to find it."""
    text = f"{e.name}: {e.message}" if getattr(e, "name", "") else str(e)
    frames = [ln.strip() for ln in str(getattr(e, "stack", "") or "").splitlines() if ln.strip().startswith("at ")]
    return f"{text} ({_PAGE_URL.sub('line ', frames[0])[:200]})" if frames else text
