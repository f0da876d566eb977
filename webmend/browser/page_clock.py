"""Driving a page's virtual clock: page time moves only when the evaluator advances it."""

from __future__ import annotations

import asyncio
import logging

from webmend.browser.page_errors import BudgetExhausted, PageCrashed, PageHung
from webmend.browser.page_scripts import CLOCK_KEY

log = logging.getLogger(__name__)

CLOCK_CHUNK_MS = 2000  # page time per clock run: a slow page makes progress, a stuck one is caught early


class PageClock:
    """PageSession's time: advance page time, deliver the animation events a seek made due."""

    async def advance(self, ms: float) -> None:
        ms = max(0, int(ms))
        if self.cfg.virtual_time:
            await self.follow_self_navigation()  # the page navigated itself since the last step
            if self._world is None:
                await self.iso("0")  # the isolated world listens for the clock's sync event
            if ms:
                if await self._run_clock(ms):  # seeks CSS animations after each chunk (probes.js)
                    self.doc_start = self.vnow + ms  # a document the page navigated to: no page time yet
            elif await self.iso("__wm.sync(%d)" % (self.vnow - self.doc_start)):
                await self._deliver_animation_events()
            self.vnow += ms
        elif ms:
            await asyncio.sleep(ms / 1000)
            self.vnow += ms

    async def _run_clock(self, ms: int) -> bool:
        """Advance page time in chunks: a slow page makes progress, a stuck one is caught early.
        Returns whether the page navigated itself meanwhile (the rest of `ms` is not run)."""
        left = ms
        stuck = 0  # runs in a row that fired nothing because the document was leaving
        while left > 0:
            chunk = min(left, CLOCK_CHUNK_MS)
            # Timer exceptions are reported by clock.js as uncaught errors (page errors); a failure
            # here means the document went away mid-run (the page navigated or reloaded itself).
            try:
                res = await self.guard(self.cdp.send("Runtime.evaluate", {
                    "expression": f"window.{CLOCK_KEY}.runFor({chunk})", "awaitPromise": True, "returnByValue": True,
                }), f"run_for {chunk}")
            except (PageHung, PageCrashed, BudgetExhausted):
                raise
            except Exception as exc:  # "Execution context was destroyed" and the like
                log.debug("clock run interrupted: %s", exc)
                return await self.follow_self_navigation(leaving=True)
            if "exceptionDetails" in res:
                log.debug("clock run failed: %s", res["exceptionDetails"].get("text"))
                return await self.follow_self_navigation()
            ran = res["result"].get("value") or {}
            if ran.get("leaving"):
                # The document began to leave at page time `ticks` (page_follow.py).
                if await self.follow_self_navigation(leaving=True):
                    return True  # the new document starts at the next step
                stuck = stuck + 1 if not ran.get("count") else 0
                if stuck > 1:
                    return False  # it could not be kept: the rest of this step does not run
                left -= max(0, int(ran.get("ticks", 0)) - (self.vnow - self.doc_start) - (ms - left))
                continue
            if ran.get("owed"):
                await self._deliver_animation_events()
            left -= chunk
        return False

    async def _deliver_animation_events(self) -> None:
        """The last seek started, ended or turned an animation, and Chromium fires those events
        (transitionend, animationend, ...) in its next real frame. Let that frame come now, so a
        page that acts on them does so at this page time on every run, not mid-way through the
        next run of timers."""
        await self._frames_if_any()

    async def clock_stats(self) -> dict | None:
        """Callbacks the page clock fired and still has pending (None without virtual time)."""
        if not self.cfg.virtual_time:
            return None
        return await self.main_eval(f"window.{CLOCK_KEY} ? window.{CLOCK_KEY}.stats() : null")
