"""Capturing what a page shows: screenshots, thumbnails for change checks, canvas regions."""

from __future__ import annotations

import asyncio
import base64
import io

import numpy as np
from PIL import Image

from webmend.browser.page_errors import BudgetExhausted, PageCrashed, PageHung
from webmend.config import Viewport

THUMB_SIZE = (160, 90)
# One real frame, then the idle time after it: the frame has run its resize, scroll and animation
# events, hover restyles and layout, and the tasks it queued (IntersectionObserver callbacks) run
# before the main thread goes idle. Half the wall time of waiting for a second frame, the same
# evidence (docs/benchmarks.md, 2026-12-06). The timeout bounds a page that never lets it idle.
SETTLE_JS = "new Promise(r => requestAnimationFrame(() => requestIdleCallback(() => r(), {timeout: 100})))"


class PageCapture:
    """PageSession's pixels: every capture waits for a real frame and its idle time first, so
    paused animations and the latest canvas contents have reached the compositor."""

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

    async def screenshot_png(self) -> bytes:
        await self._settle_frames()
        # Faster zlib settings: the same pixels, ~40 % less encoding time, a larger file.
        return base64.b64decode((await self._capture({"format": "png", "optimizeForSpeed": True}))["data"])

    async def _settle_frames(self) -> None:
        """Let a real frame pass and the main thread go idle after it (the isolated world's rAF and
        requestIdleCallback are not faked), so paused animations and the latest canvas contents
        have reached the compositor."""
        await self.world_eval(
            {"expression": SETTLE_JS, "awaitPromise": True},
            "frame")

    async def _capture(self, params: dict) -> dict:
        # A capture can fail transiently while the renderer is busy (e.g. a dialog was open).
        for attempt in range(3):
            try:
                return await self.guard(self.cdp.send("Page.captureScreenshot", params), "screenshot")
            except (PageHung, PageCrashed, BudgetExhausted):
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
