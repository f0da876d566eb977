"""Following a page that navigates itself before page time moves on.

A form without a submit handler, `location.reload()` from a timer or a link to the page's own
address replace the document, and the new one loads in real time. Whatever the evaluator looked
at next (the old document, a half-parsed new one, the new one complete) then depended on how
fast the machine was. So:

- a document that starts to leave runs no more timers (clock.js stops at its `beforeunload`);
- when the renderer asked for a navigation to one of the page's own addresses (CDP
  `Page.frameRequestedNavigation`, which arrives before the answer to the call that caused it),
  the step waits until the new document has committed and finished loading, and its page time
  starts there;
- when it asked for anything else (`mailto:`, an offsite address the policy answers 204), or the
  policy refused it (a reload beyond `limits.max_reloads`), no document comes: the old one stays
  and its time goes on at once. A wait keyed on the document leaving alone cost such pages their
  wall cap (a `mailto:` from a timer), which is why the requested address decides.
"""

from __future__ import annotations

import asyncio
import logging

from webmend.browser.network import is_page_url
from webmend.browser.page_errors import BudgetExhausted, PageCrashed, PageHung
from webmend.browser.page_scripts import CLOCK_KEY

log = logging.getLogger(__name__)

FOLLOW_WAIT_S = 3.0  # how long a requested document may take to commit before the step goes on


class PageFollow:
    """PageSession's bookkeeping of which document is current."""

    async def watch_navigations(self) -> None:
        """Called once per tab: hear the renderer's navigation requests on our CDP session."""
        self._requested = []
        self.cdp.on("Page.frameRequestedNavigation", self._on_requested_navigation)
        await self.cdp.send("Page.enable")

    def _on_requested_navigation(self, event: dict) -> None:
        if self._main_frame in (None, event.get("frameId")):
            self._requested.append(str(event.get("url", "")))

    async def note_current_document(self) -> None:
        """Called once our own navigation committed: this document is the current one."""
        tree = await self._frame_tree()
        self._main_frame = tree["id"]
        self._loader_id = tree.get("loaderId")
        self._requested.clear()
        self._refused_seen = self.shared.policy.navigations_refused

    async def follow_self_navigation(self, leaving: bool = False) -> bool:
        """Make a document the page navigated to current, once it has loaded completely (its page
        time starts now); returns whether there was one. `leaving`: the clock stopped because
        the current document began to leave; if no document of the page's own comes, it stays."""
        urls, self._requested = self._requested, []
        if any(is_page_url(u) for u in urls) and await self._committed():
            self._loader_id = (await self._frame_tree()).get("loaderId")
            await self.guard(self._until_complete(), "load")
            self._world = self._frame_id = None
            self._frameless = False
            self.doc_start = self.vnow  # the new document's clock starts at zero ticks (see advance)
            return True
        if leaving or urls:
            await self._stay()
        return False

    async def _stay(self) -> None:
        try:
            await self.main_eval(f"window.{CLOCK_KEY} && window.{CLOCK_KEY}.stay()")
        except (PageHung, PageCrashed, BudgetExhausted):
            raise
        except Exception as exc:  # the document went after all; the next step follows it
            log.debug("could not keep the document: %s", exc)

    async def _committed(self) -> bool:
        """Wait until a new document committed (True) or the request was refused (False)."""
        loop = asyncio.get_running_loop()
        until = loop.time() + FOLLOW_WAIT_S
        policy = self.shared.policy
        while (await self._frame_tree()).get("loaderId") == self._loader_id:
            if policy.navigations_refused > self._refused_seen:
                self._refused_seen = policy.navigations_refused
                return False
            if loop.time() >= until:
                log.debug("a requested document did not commit within %.0f s; the step goes on", FOLLOW_WAIT_S)
                return False
            await asyncio.sleep(0.01)
        return True

    async def _frame_tree(self) -> dict:
        tree = await self.guard(self.cdp.send("Page.getFrameTree"), "frame tree")
        return tree["frameTree"]["frame"]
