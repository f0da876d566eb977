"""Evaluating JavaScript in a page: our isolated world (probes.js) and the page's own world."""

from __future__ import annotations

import asyncio

from webmend.browser.page_errors import BudgetExhausted, JsError, PageCrashed, PageHung, PromisePending, WouldChangePage
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
                    self._world = self._bare_world = self._frame_id = None
                    continue
                raise
        raise AssertionError("unreachable")

    async def world(self) -> int:
        """The isolated world's execution context id (created on first use per document)."""
        if self._world is None:
            await self.iso("0")
        return self._world

    async def _make_world(self) -> None:
        """Install probes.js in the world the load wait made for this document (session.py), or
        in a new one."""
        world, self._bare_world = self._bare_world, None
        if world is None:
            world = await self._new_world(guarded=True)
        res = await self.guard(self.cdp.send("Runtime.evaluate", {"expression": PROBES_JS, "contextId": world}), "probes")
        if "exceptionDetails" in res:
            raise RuntimeError(f"probes failed to install: {res['exceptionDetails']}")
        self._world = world

    async def _new_world(self, guarded: bool) -> int:
        """A new isolated world in the current document of the main frame, without probes.
        Unguarded only inside a call that is guarded as a whole (the load wait)."""
        async def send(method: str, params: dict, what: str) -> dict:
            call = self.cdp.send(method, params)
            return await (self.guard(call, what) if guarded else call)

        if self._frame_id is None:
            self._frame_id = (await send("Page.getFrameTree", {}, "frame tree"))["frameTree"]["frame"]["id"]
        world = await send("Page.createIsolatedWorld", {"frameId": self._frame_id, "worldName": "webmend"}, "isolated world")
        return world["executionContextId"]

    async def main_eval(self, expression: str):
        """Evaluate in the page's own world (evaluator reads of page globals; a promise is awaited
        in real time, so it must not wait on page timers)."""
        res = await self.guard(
            self.cdp.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}),
            "eval",
        )
        _raise_js(res)
        return res["result"].get("value")

    async def main_eval_settled(self, expression: str, budget_ms: int, slice_ms: int, observe_only: bool = False):
        """Evaluate test-case JavaScript in the page's own world; a promise it returns is awaited
        while page time moves.

        Its timers are page timers (clock.js), which fire only when page time advances: awaiting
        the promise with page time stopped would wait forever. So page time advances in slices of
        `slice_ms` (the same slices on every run), and the promise's state is read after each one
        from V8's own record of it (no page code runs for that), until it settles or `budget_ms`
        of page time have passed: then PromisePending. Each slice is an ordinary guarded clock run,
        so only a page that stops answering is a hang.

        `observe_only`: V8 refuses to run anything with a side effect (`throwOnSideEffect`, the
        check DevTools' eager evaluation uses: writes to existing objects, timers, the seeded
        Math.random), so the page is left exactly as it was; such an expression, or a promise
        still pending, raises WouldChangePage instead.
        """
        group = "webmend-eval"
        held = False  # remote objects in the group (a primitive result makes none)
        try:
            params = {"expression": expression, "objectGroup": group, "returnByValue": False, "awaitPromise": False}
            if observe_only:
                params["throwOnSideEffect"] = True
            res = await self.guard(self.cdp.send("Runtime.evaluate", params), "eval")
            obj = res["result"]
            held = "objectId" in obj or "exceptionDetails" in res
            if observe_only and _side_effect_refused(res):
                raise WouldChangePage(expression[:200])
            _raise_js(res)
            if obj.get("subtype") == "promise":
                if observe_only and await self._promise_state(obj["objectId"]) == "pending":
                    raise WouldChangePage("a promise that needs page time")
                waited = 0
                while await self._promise_state(obj["objectId"]) == "pending":
                    if waited >= budget_ms:
                        raise PromisePending(f"promise still pending after {waited} ms of page time")
                    step = min(slice_ms, budget_ms - waited)
                    await self.advance(step)
                    waited += step
                res = await self.guard(self.cdp.send("Runtime.awaitPromise", {
                    "promiseObjectId": obj["objectId"], "returnByValue": True}), "eval")
            elif "objectId" in obj:  # an object: its JSON value, as returnByValue gives it
                res = await self.guard(self.cdp.send("Runtime.callFunctionOn", {
                    "objectId": obj["objectId"], "functionDeclaration": "function () { return this; }",
                    "returnByValue": True}), "eval")
            _raise_js(res)
            return res["result"].get("value")
        finally:
            if held and not self.crashed and self.cdp is not None:
                try:
                    await asyncio.wait_for(self.cdp.send("Runtime.releaseObjectGroup", {"objectGroup": group}), timeout=2)
                except Exception:  # the document went away, or the page is stuck (caught next call)
                    pass

    async def _promise_state(self, object_id: str) -> str:
        """'pending', 'fulfilled' or 'rejected', as V8 reports it (no page code runs)."""
        props = await self.guard(self.cdp.send("Runtime.getProperties", {"objectId": object_id, "ownProperties": True}), "eval")
        for prop in props.get("internalProperties") or []:
            if prop.get("name") == "[[PromiseState]]":
                return (prop.get("value") or {}).get("value") or "pending"
        return "fulfilled"  # not a native promise after all: nothing to wait for


def _side_effect_refused(res: dict) -> bool:
    det = res.get("exceptionDetails") or {}
    text = (det.get("exception") or {}).get("description") or det.get("text") or ""
    return "Possible side-effect in debug-evaluate" in text


def _raise_js(res: dict) -> None:
    if "exceptionDetails" in res:
        det = res["exceptionDetails"]
        raise JsError((det.get("exception") or {}).get("description") or det.get("text") or "exception")
