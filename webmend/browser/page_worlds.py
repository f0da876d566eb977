"""Evaluating JavaScript in a page: our isolated world (probes.js) and the page's own world."""

from __future__ import annotations

from webmend.browser.page_errors import BudgetExhausted, JsError, PageCrashed, PageHung
from webmend.browser.page_scripts import PROBES_JS


class PageWorlds:
    """PageSession's evaluations: probes in an isolated world the page cannot see or change, and
    test-case JavaScript in the page's own world."""

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
            except (PageHung, PageCrashed, BudgetExhausted):
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
            self.cdp.send("Runtime.evaluate", {"expression": PROBES_JS, "contextId": self._world}), "probes"
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
