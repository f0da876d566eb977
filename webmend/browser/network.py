"""Request policy: serve the page and the CDN mirror, refuse and record everything else.

Every request a page makes passes through `RequestPolicy.handle`. The page itself lives on a
fake origin so storage APIs work; library URLs are answered from the local npm mirror; all other
traffic is aborted and kept as evidence (the URL without its query string, since queries often
carry tokens that must never reach a trace).
"""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from webmend.cdn.serve import mirror_url

log = logging.getLogger(__name__)

PAGE_HOST = "page.test"
PAGE_ORIGIN = "https://" + PAGE_HOST  # a secure context, as real hosting would give
PAGE_URL = PAGE_ORIGIN + "/"
MAX_RECORDED = 200  # blocked requests kept per page; the rest are counted


def redact_url(url: str, limit: int = 200) -> str:
    """Scheme, host and path only: query strings and fragments may hold secrets."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url[:limit]
    if parts.scheme in ("data", "blob"):
        return f"{parts.scheme}:..."
    base = f"{parts.scheme}://{parts.netloc}{parts.path}" if parts.netloc else f"{parts.scheme}:{parts.path}"
    return base[:limit]


@dataclass
class NetworkLog:
    """Network evidence of one page, all tests included."""

    blocked: list[dict] = field(default_factory=list)
    blocked_total: int = 0
    cdn: dict[str, dict] = field(default_factory=dict)  # redacted url -> served info
    cdn_misses: list[str] = field(default_factory=list)
    missing_local: list[str] = field(default_factory=list)
    page_loads: int = 0

    def block(self, url: str, channel: str, reason: str) -> None:
        self.blocked_total += 1
        self._keep({"url": redact_url(url), "channel": channel, "reason": reason})

    def _keep(self, entry: dict) -> None:
        if len(self.blocked) < MAX_RECORDED and entry not in self.blocked:
            self.blocked.append(entry)

    def absorb(self, other: "NetworkLog") -> None:
        """Add another log's evidence after this one's, as if it had been recorded here."""
        for entry in other.blocked:
            self._keep(entry)
        self.blocked_total += other.blocked_total
        self.cdn.update(other.cdn)
        self.cdn_misses += other.cdn_misses
        self.missing_local += other.missing_local
        self.page_loads += other.page_loads

    def to_dict(self) -> dict:
        return {
            "blocked": self.blocked,
            "blocked_total": self.blocked_total,
            "cdn": dict(sorted(self.cdn.items())),
            "cdn_misses": sorted(set(self.cdn_misses)),
            "missing_local": sorted(set(self.missing_local)),
        }


def page_url(index: int | str) -> str:
    """Where document `index` of a page is served (0 = the probe, i = test case i, a name for
    other documents such as the layer-3 rollout's "play").

    Each document gets an origin of its own, so it starts with empty storage without anything
    being cleared, and nothing the previous document does while unloading can reach it. All
    of them are one site, so the tab keeps its renderer process.
    """
    if index == 0:
        return PAGE_URL
    return f"https://{f't{index}' if isinstance(index, int) else index}.{PAGE_HOST}/"


def is_page_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        return False
    return parts.scheme == "https" and (host == PAGE_HOST or host.endswith("." + PAGE_HOST))


def channel_of(resource_type: str, url: str) -> str:
    scheme = urlsplit(url).scheme
    if scheme in ("ws", "wss"):
        return "websocket"
    return resource_type or "other"


class RequestPolicy:
    """Route handler bound to one page's HTML; one instance per evaluated page version."""

    def __init__(self, html: str, mirror, log_: NetworkLog, max_reloads: int):
        self._body = html.encode("utf-8")
        self._mirror = mirror
        self.log = log_
        self._max_loads = 1 + max_reloads
        self._loads_this_doc = 0
        # Main-frame navigations answered 204 (the document stays): a session waiting for the
        # page's own next document stops waiting (page_follow.py).
        self.navigations_refused = 0
        # Set per browser (BrowserWorker.mirror_port): library requests are then rewritten to
        # the mirror server beside Chromium instead of carrying their bodies through this route.
        self.mirror_port: int | None = None

    def fork(self) -> "RequestPolicy":
        """The same page and mirror with a network log and document counters of its own."""
        clone = copy.copy(self)
        clone.log, clone._loads_this_doc, clone.navigations_refused = NetworkLog(), 0, 0
        return clone

    def absorb(self, other: "RequestPolicy") -> None:
        self.log.absorb(other.log)
        self.navigations_refused += other.navigations_refused

    def start_document(self) -> None:
        """Called before each fresh load of the page (one per test case)."""
        self._loads_this_doc = 0

    def _refused(self, request) -> None:
        try:
            main = request.frame.parent_frame is None
        except Exception:  # a worker's request has no frame and navigates nothing
            main = False
        self.navigations_refused += main

    async def handle(self, route) -> None:
        request = route.request
        url = request.url
        if is_page_url(url):
            await self._serve_local(route, request, url)
            return
        served = self._mirror.lookup(url) if self._mirror is not None else None
        if served is not None:
            self.log.cdn[redact_url(url)] = {
                "package": served.package,
                "served": served.served,
                "substitution": served.substitution,
            }
            if self.mirror_port is not None:
                # The page still sees its own URL; only the bytes take the socket instead.
                await route.continue_(url=mirror_url(self.mirror_port, url))
            else:
                await route.fulfill(status=200, body=served.body, headers=served.headers())
            return
        if _looks_like_cdn(url):
            self.log.cdn_misses.append(redact_url(url))
        if request.is_navigation_request():
            # 204 cancels a navigation and keeps the current document; an abort would
            # replace it with an error page and end the page's life mid-test.
            self.log.block(url, "document", "navigation_away")
            self._refused(request)
            await route.fulfill(status=204, body=b"")
            return
        self.log.block(url, channel_of(request.resource_type, url), "offsite")
        await route.abort("blockedbyclient")

    async def _serve_local(self, route, request, url: str) -> None:
        path = urlsplit(url).path or "/"
        if path in ("/", "/index.html"):
            if request.is_navigation_request() and request.frame.parent_frame is None:
                self._loads_this_doc += 1
                self.log.page_loads += 1
                if self._loads_this_doc > self._max_loads:
                    self.log.block(url, "document", "reload_loop")
                    self._refused(request)
                    await route.fulfill(status=204, body=b"")
                    return
            await route.fulfill(status=200, body=self._body, headers={"content-type": "text/html; charset=utf-8"})
            return
        if path != "/favicon.ico":
            self.log.missing_local.append(path[:200])
        await route.fulfill(status=404, body=b"", headers={"content-type": "text/plain"})

    async def handle_websocket(self, ws_route) -> None:
        self.log.block(ws_route.url, "websocket", "offsite")
        await ws_route.close(code=1008, reason="blocked by evaluator")


_CDN_HOSTS = (
    "cdn.jsdelivr.net", "unpkg.com", "cdnjs.cloudflare.com", "esm.sh", "cdn.skypack.dev",
    "fonts.googleapis.com", "fonts.gstatic.com", "cdn.tailwindcss.com", "cdn.plot.ly",
    "code.jquery.com", "threejs.org", "kit.fontawesome.com", "ga.jspm.io", "cdn.babylonjs.com",
)


def _looks_like_cdn(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    return host in _CDN_HOSTS
