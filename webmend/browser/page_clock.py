"""Driving a page's virtual clock: page time moves only when the evaluator advances it."""

from __future__ import annotations

import asyncio
import logging

from webmend.browser.page_errors import BudgetExhausted, PageCrashed, PageHung
from webmend.browser.page_scripts import CLOCK_KEY

log = logging.getLogger(__name__)

CLOCK_CHUNK_MS = 2000  # page time per clock run: a slow page makes progress, a stuck one is caught early
CLOCK_CALLBACKS = 64  # callbacks per call within a run: each guarded call stays short


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
        Returns whether the page navigated itself meanwhile (the rest of `ms` is not run).

        A chunk whose callbacks are many or slow (a page instrumented by its contract, say) comes
        back in parts of CLOCK_CALLBACKS callbacks, each its own guarded call, so only a single
        callback that never returns is a hang. The parts end where the callbacks fall, in page
        time, and the chunk's end stays where it was: the page sees the same run."""
        left = ms
        stuck = 0  # runs in a row that fired nothing because the document was leaving
        while left > 0:
            start = self.vnow - self.doc_start + (ms - left)  # the page's ticks now
            end = start + min(left, CLOCK_CHUNK_MS)
            ran = await self._run_until(start, end)
            if ran is None:
                return await self.follow_self_navigation(leaving=True)
            if ran.get("failed"):
                return await self.follow_self_navigation()
            if ran.get("leaving"):
                # The document began to leave at page time `ticks` (page_follow.py).
                if await self.follow_self_navigation(leaving=True):
                    return True  # the new document starts at the next step
                stuck = stuck + 1 if not ran.get("count") else 0
                if stuck > 1:
                    return False  # it could not be kept: the rest of this step does not run
                left -= max(0, int(ran.get("ticks", 0)) - start)
                continue
            if ran.get("owed"):
                await self._deliver_animation_events()
            left -= end - start
        return False

    async def _run_until(self, start: int, end: int) -> dict | None:
        """One chunk of page time, from the page's ticks `start` to `end`, in as many calls as its
        callbacks need. None: the document went away mid-run."""
        ticks = start
        count = 0
        while True:
            # Timer exceptions are reported by clock.js as uncaught errors (page errors); a failure
            # here means the document went away mid-run (the page navigated or reloaded itself).
            try:
                res = await self.guard(self.cdp.send("Runtime.evaluate", {
                    "expression": f"window.{CLOCK_KEY}.runFor({end - ticks}, {CLOCK_CALLBACKS})",
                    "awaitPromise": True, "returnByValue": True,
                }), f"run_for {end - start}")
            except PageHung:
                reached = await self._stopped_hung_workers()
                if reached is None:
                    raise
                ticks = reached  # the rest of the chunk, without the document's workers
                continue
            except (PageCrashed, BudgetExhausted):
                raise
            except Exception as exc:  # "Execution context was destroyed" and the like
                log.debug("clock run interrupted: %s", exc)
                return None
            if "exceptionDetails" in res:
                log.debug("clock run failed: %s", res["exceptionDetails"].get("text"))
                return {"failed": True}
            ran = res["result"].get("value") or {}
            count += int(ran.get("count", 0))
            if not ran.get("more"):
                return {**ran, "count": count}
            ticks = int(ran.get("ticks", ticks))

    async def _stopped_hung_workers(self) -> int | None:
        """After a hang: when it was a Worker's code (workers.js runs them in the page's thread),
        now stopped with every worker of the document, the page time the run had reached; the
        hang is then not the page's. None otherwise."""
        try:
            res = await self.guard(self.cdp.send("Runtime.evaluate", {
                "expression": f"window.{CLOCK_KEY} && window.{CLOCK_KEY}.stopHungWorkers ? "
                              f"window.{CLOCK_KEY}.stopHungWorkers() : null", "returnByValue": True}), "stop workers")
        except (PageHung, PageCrashed, BudgetExhausted):
            raise
        except Exception:
            return None
        reached = (res.get("result") or {}).get("value")
        if not isinstance(reached, (int, float)):
            return None
        self.shared.events.hangs.pop()
        return int(reached)

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
