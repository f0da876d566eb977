"""One fresh load of one page: a new browser context, virtual time, and guarded browser calls.

Every call that the page could stall (an infinite loop blocks the renderer) goes through
`guard`, which bounds it in wall time, stops the runaway script through CDP, records the hang
and raises `PageHung`, so the caller decides what the step's verdict is and moves on.
"""

from __future__ import annotations

import asyncio
import base64
import io
import logging
import math
import secrets
from dataclasses import dataclass
from importlib import resources

import numpy as np
from PIL import Image

from webmend.browser.evidence import PageEvents
from webmend.browser.network import RequestPolicy, page_url
from webmend.config import EvalConfig, Viewport

log = logging.getLogger(__name__)

THUMB_SIZE = (160, 90)
CLOCK_CHUNK_MS = 2000
PARKED_POINTER = (0.0, 0.0)  # where the mouse rests between actions
INPUT_FRAMES_S = 1.0  # how long a pointer move or a scroll waits for real frames (best effort)
# The page clock's handle on the page's window. Not enumerable; the name is fixed per process and
# unguessable to pages written in advance.
CLOCK_KEY = "__wm_clock_" + secrets.token_hex(6)
_INIT_JS = resources.files("webmend.browser.assets").joinpath("init.js").read_text()
_CLOCK_JS = resources.files("webmend.browser.assets").joinpath("clock.js").read_text()
OBSERVE_KEY = CLOCK_KEY + "_o"  # observe.js: page-added globals and canvas text
_OBSERVE_JS = resources.files("webmend.browser.assets").joinpath("observe.js").read_text().replace("__WM_OBSERVE_KEY__", OBSERVE_KEY)
_PROBES_JS = resources.files("webmend.browser.assets").joinpath("probes.js").read_text().replace("__WM_CLOCK_KEY__", CLOCK_KEY)


class PageHung(Exception):
    """A browser call exceeded its wall-clock cap: the page is stuck (usually a JS loop)."""


class PageCrashed(Exception):
    """The renderer died (out of memory, or killed)."""


@dataclass
class PageShared:
    """State shared by all fresh loads of one page version."""

    cfg: EvalConfig
    policy: RequestPolicy
    events: PageEvents
    step_wall_s: float


class PageSession:
    def __init__(self, browser, shared: PageShared, viewport: Viewport | None = None):
        self._browser = browser
        self.shared = shared
        self.cfg = shared.cfg
        self.viewport = viewport or shared.cfg.viewport
        self.doc_start = self.vnow = shared.cfg.sandbox.start_time_ms
        self.context = None
        self.page = None
        self.cdp = None
        self._world: int | None = None
        self._frame_id: str | None = None
        self._frameless = False  # this document showed no frames after a pointer move or a scroll
        self.crashed = False

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
        init = _INIT_JS.replace("__WM_SEED__", str(cfg.sandbox.seed))
        init = init.replace("__WM_CONSOLE_CAP__", str(cfg.limits.max_console_calls))
        init = init.replace("__WM_MAX_WORKERS__", str(cfg.limits.max_workers))
        if cfg.virtual_time:
            clock = _CLOCK_JS.replace("__WM_CLOCK_KEY__", CLOCK_KEY)
            clock = clock.replace("__WM_SKIP_HIDDEN_DRAWS__", "true" if cfg.skip_hidden_draws else "false")
            init = clock.replace("__WM_START_MS__", str(int(cfg.sandbox.start_time_ms))) + init
        init += "\n" + _OBSERVE_JS
        await self.context.add_init_script(script=init)
        await self.context.route("**/*", self.shared.policy.handle)
        await self.context.route_web_socket("**/*", self.shared.policy.handle_websocket)
        self.page = await self.context.new_page()
        self._wire_events(self.page)
        self.cdp = await self.context.new_cdp_session(self.page)
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
        self._world = self._frame_id = None
        self._frameless = False
        self.doc_start = self.vnow = cfg.sandbox.start_time_ms
        self.shared.policy.start_document()
        # Wait for whichever document ends up loaded: a page that reloads itself replaces the
        # navigation goto() started, so waiting on that navigation would never finish.
        try:
            await self._navigate(page_url(index))
        except (PageHung, PageCrashed):
            raise
        except Exception as exc:
            if not _detached(exc):
                raise
            # The tab's DevTools session died with a stuck or replaced renderer: a new tab.
            log.warning("lost the tab's DevTools session (%s); opening a new one", str(exc).splitlines()[0])
            await self._new_tab()
            await self._navigate(page_url(index))
        await self.guard(self._until_complete(), "load")
        await self.advance(cfg.limits.load_ms)

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
        """Poll the document's readyState ourselves: Playwright's load tracking waits forever
        when a page's own reload navigation is cancelled (the 204 answer of a reload loop)."""
        while True:
            try:
                res = await self.cdp.send("Runtime.evaluate", {"expression": "document.readyState", "returnByValue": True})
                if res.get("result", {}).get("value") == "complete":
                    return
            except Exception as exc:  # the document is being replaced; ask again
                if "crash" in str(exc).lower():
                    raise
            await asyncio.sleep(0.005)

    async def close(self) -> None:
        if self.context is not None:
            try:
                await asyncio.wait_for(self.context.close(), timeout=10)
            except Exception as exc:  # a wedged context must not stop the run
                log.warning("context close failed: %s", exc)
            self.context = self.page = self.cdp = None

    def _wire_events(self, page) -> None:
        ev = self.shared.events
        page.on("console", lambda m: ev.on_console(m.type, m.text))
        page.on("pageerror", lambda e: ev.on_page_error(f"{e.name}: {e.message}" if getattr(e, "name", "") else str(e)))
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
        if self.crashed:
            coro.close()
            raise PageCrashed(what)
        try:
            return await asyncio.wait_for(coro, timeout=self.shared.step_wall_s)
        except asyncio.TimeoutError:
            self.shared.events.hangs.append(what)
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

    # ---- time --------------------------------------------------------------------------
    async def advance(self, ms: float) -> None:
        ms = max(0, int(ms))
        if self.cfg.virtual_time:
            if self._world is None:
                await self.iso("0")  # the isolated world listens for the clock's sync event
            if ms:
                await self._run_clock(ms)  # seeks CSS animations after each chunk (probes.js)
            elif await self.iso("__wm.sync(%d)" % (self.vnow - self.doc_start)):
                await self._deliver_animation_events()
            self.vnow += ms
        elif ms:
            await asyncio.sleep(ms / 1000)
            self.vnow += ms

    async def _run_clock(self, ms: int) -> None:
        """Advance page time in chunks: a slow page makes progress, a stuck one is caught early."""
        left = ms
        while left > 0:
            chunk = min(left, CLOCK_CHUNK_MS)
            # Timer exceptions are reported by clock.js as uncaught errors (page errors); a failure
            # here means the document went away mid-run (the page navigated or reloaded itself),
            # and the new document starts its own clock.
            try:
                res = await self.guard(self.cdp.send("Runtime.evaluate", {
                    "expression": f"window.{CLOCK_KEY}.runFor({chunk})", "awaitPromise": True, "returnByValue": True,
                }), f"run_for {chunk}")
            except (PageHung, PageCrashed):
                raise
            except Exception as exc:  # "Execution context was destroyed" and the like
                log.debug("clock run interrupted: %s", exc)
                return
            if "exceptionDetails" in res:
                log.debug("clock run failed: %s", res["exceptionDetails"].get("text"))
                return
            if (res["result"].get("value") or {}).get("owed"):
                await self._deliver_animation_events()
            left -= chunk

    async def _deliver_animation_events(self) -> None:
        """The last seek started, ended or turned an animation, and Chromium fires those events
        (transitionend, animationend, ...) in its next real frame. Let that frame come now, so a
        page that acts on them does so at this page time on every run, not mid-way through the
        next run of timers."""
        await self._frames_if_any()

    # ---- evaluation --------------------------------------------------------------------
    async def iso(self, expression: str):
        """Evaluate in our isolated world (probes.js is installed on first use per document)."""
        for attempt in range(2):
            res = await self.world_eval({"expression": expression, "returnByValue": True}, "probe")
            if "exceptionDetails" in res:
                text = res["exceptionDetails"].get("exception", {}).get("description") or res["exceptionDetails"].get("text")
                if attempt == 0 and "__wm" in str(text):
                    self._world = None  # a fresh document without our probes
                    continue
                raise RuntimeError(f"probe failed: {text}")
            return res["result"].get("value")
        return None

    async def world_eval(self, params: dict, what: str = "probe") -> dict:
        """Runtime.evaluate in our isolated world. A navigation the page made since the world
        was created (a reload, a form post) leaves a stale context id: then once more in a
        world made for the new document."""
        for attempt in range(2):
            try:
                if self._world is None:
                    await self._make_world()
                return await self.guard(self.cdp.send("Runtime.evaluate", {**params, "contextId": self._world}), what)
            except (PageHung, PageCrashed):
                raise
            except Exception as exc:
                if attempt == 0 and "context" in str(exc).lower():
                    self._world = self._frame_id = None
                    continue
                raise
        raise AssertionError("unreachable")

    async def world(self) -> int:
        """The isolated world's execution context id (created on first use per document)."""
        if self._world is None:
            await self.iso("0")
        return self._world

    async def _make_world(self) -> None:
        if self._frame_id is None:
            tree = await self.guard(self.cdp.send("Page.getFrameTree"), "frame tree")
            self._frame_id = tree["frameTree"]["frame"]["id"]
        world = await self.guard(
            self.cdp.send("Page.createIsolatedWorld", {"frameId": self._frame_id, "worldName": "webmend"}),
            "isolated world",
        )
        self._world = world["executionContextId"]
        res = await self.guard(
            self.cdp.send("Runtime.evaluate", {"expression": _PROBES_JS, "contextId": self._world}), "probes"
        )
        if "exceptionDetails" in res:
            raise RuntimeError(f"probes failed to install: {res['exceptionDetails']}")

    async def main_eval(self, expression: str):
        """Evaluate in the page's own world (test-case JS refers to page globals)."""
        res = await self.guard(
            self.cdp.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}),
            "eval",
        )
        if "exceptionDetails" in res:
            det = res["exceptionDetails"]
            raise JsError((det.get("exception") or {}).get("description") or det.get("text") or "exception")
        return res["result"].get("value")

    async def thumb(self) -> np.ndarray:
        """Grayscale 160x90 thumbnail of the viewport, for change checks."""
        await self._settle_frames()
        res = await self._capture({"format": "jpeg", "quality": 80, "optimizeForSpeed": True})
        img = Image.open(io.BytesIO(base64.b64decode(res["data"]))).convert("L").resize(THUMB_SIZE, Image.BILINEAR)
        return np.asarray(img, dtype=np.float64)

    async def clip_rgb(self, x: float, y: float, width: float, height: float, scale: float) -> np.ndarray:
        """RGB pixels of one region of the viewport (a canvas), captured at `scale`."""
        await self._settle_frames()
        res = await self._capture({"format": "png", "clip": {"x": x, "y": y, "width": width, "height": height, "scale": scale}})
        return np.asarray(Image.open(io.BytesIO(base64.b64decode(res["data"]))).convert("RGB"))

    async def clock_stats(self) -> dict | None:
        """Callbacks the page clock fired and still has pending (None without virtual time)."""
        if not self.cfg.virtual_time:
            return None
        return await self.main_eval(f"window.{CLOCK_KEY} ? window.{CLOCK_KEY}.stats() : null")

    async def screenshot_png(self) -> bytes:
        await self._settle_frames()
        # Faster zlib settings: the same pixels, ~40 % less encoding time, a larger file.
        return base64.b64decode((await self._capture({"format": "png", "optimizeForSpeed": True}))["data"])

    async def pointer_landed(self) -> None:
        """Wait until a pointer move has reached the page. Chromium dispatches mouse moves aligned
        to the next frame, so when the CDP call returns the page may not have seen the move yet
        (nor started the :hover transitions it causes); page time must not advance before then."""
        await self._frames_if_any()

    async def park_pointer(self) -> None:
        """Rest the mouse in the top-left corner, with real frames on both sides of the move.

        Where the pointer rests decides :hover, and Chromium re-evaluates it at its next real
        frame after the layout under the pointer changes (a click that adds a row moves the
        button), so hover transitions would start at a wall-clock-dependent page time. The frame
        before the move paints whatever the last action hovered on every run, not just on some:
        without it, a repainted control differed by one colour level at its edges between runs.
        """
        await self._frames_if_any()
        await self.guard(self.page.mouse.move(*PARKED_POINTER), "pointer")
        await self._frames_if_any()

    async def scroll_to(self, y: float) -> None:
        await self._scroll(f"window.scrollTo(0, {_px(y)})")

    async def scroll_by(self, dx: float, dy: float) -> None:
        await self._scroll(f"window.scrollBy({_px(dx)}, {_px(dy)})")

    async def _scroll(self, call: str) -> None:
        """Scroll the document, and let the page see it before page time moves on: Chromium
        dispatches scroll events in its next real frame, so without the wait a scroll listener
        (a reveal-on-scroll section) ran or not depending on how fast the machine was."""
        await self.iso(call + ", true")
        await self._frames_if_any()

    async def _frames_if_any(self) -> None:
        """Two real frames, or give up after INPUT_FRAMES_S. A document that shows no frames
        (one being replaced after a form post, a browser interstitial) has no :hover to restyle;
        a page stuck in a script is caught by the next guarded call, not here. After one miss
        the document is taken to show no frames and is not waited on again."""
        if self._frameless:
            return
        try:
            await asyncio.wait_for(self._settle_frames(), timeout=INPUT_FRAMES_S)
        except PageCrashed:
            raise
        except Exception as exc:  # TimeoutError included
            self._frameless = True
            log.debug("no frames after an input (%s); not waiting for frames in this document again",
                      type(exc).__name__)

    async def _settle_frames(self) -> None:
        """Let two real frames pass (the isolated world's rAF is not faked), so paused
        animations and the latest canvas contents have reached the compositor."""
        await self.world_eval(
            {"expression": "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))", "awaitPromise": True},
            "frame")

    async def _capture(self, params: dict) -> dict:
        # A capture can fail transiently while the renderer is busy (e.g. a dialog was open).
        for attempt in range(3):
            try:
                return await self.guard(self.cdp.send("Page.captureScreenshot", params), "screenshot")
            except (PageHung, PageCrashed):
                raise
            except Exception:
                if attempt == 2:
                    raise
                await asyncio.sleep(0.1)

    async def set_viewport(self, width: int, height: int) -> None:
        await self.guard(self.page.set_viewport_size({"width": width, "height": height}), "resize")
        self.viewport = Viewport(width=width, height=height)
        # The resize event fires in the next real frame; let it, so handlers that debounce
        # with a timer register it before page time moves on.
        await self._settle_frames()


def _px(value: float) -> int:
    """A scroll offset as a whole number of CSS pixels (NaN and infinities from a test case: 0)."""
    return int(value) if math.isfinite(value) else 0


def _detached(exc: Exception) -> bool:
    text = str(exc)
    return any(m in text for m in ("Not attached to an active page", "Target closed", "Session closed", "has been closed"))


class JsError(Exception):
    """Test-case JavaScript threw."""
