"""Pointer and scroll input that waits for the real frames in which Chromium delivers it."""

from __future__ import annotations

import asyncio
import logging
import math

from webmend.browser.page_errors import PageCrashed

log = logging.getLogger(__name__)

PARKED_POINTER = (0.0, 0.0)  # where the mouse rests between actions
INPUT_FRAMES_S = 1.0  # how long a pointer move or a scroll waits for real frames (best effort)


class PageInput:
    """PageSession's pointer and scrolling."""

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


def _px(value: float) -> int:
    """A scroll offset as a whole number of CSS pixels (NaN and infinities from a test case: 0)."""
    return int(value) if math.isfinite(value) else 0
