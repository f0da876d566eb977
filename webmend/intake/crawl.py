"""A polite crawler for allow-listed sources of task descriptions (HTMLCure D.2).

It obeys robots.txt (read by protego: `*` and `$` patterns, the longest matching rule wins, Crawl-delay;
the standard library's parser knows no patterns and takes the first matching rule), waits between requests
to one host, fetches only allow-listed hosts, follows redirects only when the target is allow-listed and
allowed by robots, and skips pages over the size limit instead of truncating them. From a page it keeps the
task text, the title, family metadata and the licence note: never the HTML, assets, credentials or
anything behind a login (a login wall becomes a policy reject, not a prompt). Every URL it meets gets
one crawl-log entry saying what was done and why.
"""

from __future__ import annotations

import logging
import re
import time
import urllib.error
import urllib.request
from collections import deque
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Callable, Iterator
from urllib.parse import urldefrag, urljoin, urlsplit

from protego import Protego

from webmend.intake.config import CrawlSettings
from webmend.intake.pagetext import PageFacts, parse_page
from webmend.intake.sources import RawPrompt

log = logging.getLogger(__name__)

_ASSET = re.compile(r"\.(?:png|jpe?g|gif|webp|svg|ico|css|js|mjs|map|woff2?|ttf|otf|mp3|mp4|webm|wav|ogg|pdf|zip|gz|tar|exe|dmg)$", re.I)
_LOGIN_WALL = re.compile(r"\b(?:sign|log) ?in to (?:view|see|continue|read|access)|members only|login required|please (?:sign|log) ?in\b", re.I)
_REDIRECTS = (301, 302, 303, 307, 308)
# The two answers that are not a robots.txt file, written as one: no file (404 ...) allows everything, an
# unclear permission (401/403/5xx, unreachable, oversized) allows nothing.
_ROBOTS_ALLOW_ALL = ""
_ROBOTS_DISALLOW_ALL = "User-agent: *\nDisallow: /\n"


@dataclass(frozen=True)
class LogEntry:
    url: str
    action: str  # fetched | skipped | failed
    reason: str | None  # why skipped or failed; for fetched pages: tasks_found / no_task / login_wall ...
    status: int | None = None
    bytes: int | None = None
    depth: int = 0
    at: str = ""
    tasks: int = 0


@dataclass(frozen=True)
class Response:
    status: int
    headers: dict
    body: bytes | None  # None when not read (too large, redirect, error status)
    too_large: bool = False


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are decided by the crawler (allow-list, robots), never followed blindly."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


def http_fetch(url: str, settings: CrawlSettings) -> Response:
    opener = urllib.request.build_opener(_NoRedirect)
    req = urllib.request.Request(url, headers={"User-Agent": settings.user_agent, "Accept": "text/html,text/plain;q=0.5"})
    try:
        resp = opener.open(req, timeout=settings.timeout_s)
    except urllib.error.HTTPError as exc:  # 3xx (not followed), 4xx, 5xx
        return Response(exc.code, {k.lower(): v for k, v in exc.headers.items()}, None)
    with resp:
        headers = {k.lower(): v for k, v in resp.headers.items()}
        declared = headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > settings.max_bytes:
            return Response(resp.status, headers, None, too_large=True)
        body = resp.read(settings.max_bytes + 1)
        if len(body) > settings.max_bytes:
            return Response(resp.status, headers, None, too_large=True)
        return Response(resp.status, headers, body)


class HostThrottle:
    """At least `delay` seconds between two requests to one host (robots Crawl-delay may raise it)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep):
        self._clock, self._sleep = clock, sleep
        self._last: dict[str, float] = {}

    def wait(self, host: str, delay: float) -> None:
        last = self._last.get(host)
        if last is not None:
            remaining = delay - (self._clock() - last)
            if remaining > 0:
                self._sleep(remaining)
        self._last[host] = self._clock()


def host_allowed(url: str, allow: list[str]) -> bool:
    """Allow-list entries: 'host', 'host:port', or '.host' for the host and its subdomains."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False
    host = parts.hostname.lower()
    netloc = f"{host}:{parts.port}" if parts.port else host
    for entry in (a.lower() for a in allow):
        if entry.startswith("."):
            if host == entry[1:] or host.endswith(entry):
                return True
        elif entry in (host, netloc):
            return True
    return False


class Crawler:
    def __init__(self, allow: list[str], settings: CrawlSettings, *, fetch: Callable[[str, CrawlSettings], Response] = http_fetch,
                 throttle: HostThrottle | None = None, now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)):
        if not allow:
            raise ValueError("the crawler needs an allow-list")
        self.allow = list(allow)
        self.settings = settings
        self._fetch_raw = fetch
        self.throttle = throttle or HostThrottle()
        self._now = now
        self._robots: dict[str, Protego] = {}
        self.log: list[LogEntry] = []

    # --- public ------------------------------------------------------------------------------
    def crawl(self, seeds: list[str]) -> Iterator[RawPrompt]:
        queue: deque[tuple[str, int]] = deque()
        seen: set[str] = set()
        for seed in seeds:
            self._enqueue(urldefrag(seed.strip())[0], 0, queue, seen)
        fetched = 0
        while queue:
            url, depth = queue.popleft()
            if fetched >= self.settings.max_pages:
                self._note(url, "skipped", "max_pages", depth=depth)
                continue
            if not self._may_fetch(url, depth):
                continue
            fetched += 1
            facts, final_url = self._get_page(url, depth)
            if facts is None:
                continue
            yield from self._tasks(facts, final_url, depth)
            if depth < self.settings.max_depth:
                for link in facts.links:
                    self._enqueue(urldefrag(urljoin(final_url, link))[0], depth + 1, queue, seen)

    # --- queue and checks --------------------------------------------------------------------
    def _enqueue(self, url: str, depth: int, queue: deque, seen: set[str]) -> None:
        if url in seen or not url.startswith(("http://", "https://")):
            return
        seen.add(url)
        if _ASSET.search(urlsplit(url).path):
            return  # page assets are never fetched, and not worth a log line each
        if not host_allowed(url, self.allow):
            self._note(url, "skipped", "off_allowlist", depth=depth)
            return
        queue.append((url, depth))

    def robots_allow(self, url: str) -> bool:
        """Whether the origin's robots.txt lets our user agent fetch url (robots.txt is fetched once per origin)."""
        return self._robots_for(url).can_fetch(url, self.settings.user_agent)

    def _may_fetch(self, url: str, depth: int) -> bool:
        if not self.robots_allow(url):
            self._note(url, "skipped", "robots_disallowed", depth=depth)
            return False
        return True

    def _robots_for(self, url: str) -> Protego:
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        if origin not in self._robots:
            self._robots[origin] = self._load_robots(origin)
        return self._robots[origin]

    def _load_robots(self, origin: str) -> Protego:
        return Protego.parse(self._robots_text(origin))

    def _robots_text(self, origin: str) -> str:
        try:
            resp = self._fetch(origin + "/robots.txt", 0.0)
        except OSError as exc:
            log.warning("robots.txt of %s unreachable (%s): not crawling it", origin, exc)
            return _ROBOTS_DISALLOW_ALL
        if resp.status in (401, 403) or resp.status >= 500 or resp.too_large:
            return _ROBOTS_DISALLOW_ALL  # unclear permission: do not crawl
        if resp.status >= 400 or resp.body is None:
            return _ROBOTS_ALLOW_ALL  # no robots.txt: everything allowed
        return resp.body.decode("utf-8-sig", "replace")  # a BOM would hide the first line

    def _delay(self, url: str) -> float:
        """The configured delay is a floor: a site's Crawl-delay may ask for more, never for less."""
        robots = self._robots.get(f"{urlsplit(url).scheme}://{urlsplit(url).netloc}")
        crawl_delay = robots.crawl_delay(self.settings.user_agent) if robots else None
        return max(self.settings.delay_s, float(crawl_delay or 0))

    def _fetch(self, url: str, delay: float) -> Response:
        self.throttle.wait(urlsplit(url).netloc.lower(), delay)
        return self._fetch_raw(url, self.settings)

    # --- pages -------------------------------------------------------------------------------
    def _get_page(self, url: str, depth: int) -> tuple[PageFacts | None, str]:
        """Fetch with allow-listed, robots-checked redirects; None when there is no page to read."""
        for _ in range(self.settings.max_redirects + 1):
            try:
                resp = self._fetch(url, self._delay(url))
            except OSError as exc:
                self._note(url, "failed", f"network_error: {type(exc).__name__}", depth=depth)
                return None, url
            if resp.status not in _REDIRECTS:
                return self._read(url, resp, depth), url
            target = urldefrag(urljoin(url, resp.headers.get("location", "")))[0]
            if not host_allowed(target, self.allow):
                self._note(url, "skipped", "redirect_off_allowlist", resp.status, depth=depth)
                return None, url
            if not self.robots_allow(target):
                self._note(url, "skipped", "redirect_robots_disallowed", resp.status, depth=depth)
                return None, url
            self._note(url, "fetched", f"redirect -> {target}", resp.status, depth=depth)
            url = target
        self._note(url, "skipped", "too_many_redirects", depth=depth)
        return None, url

    def _read(self, url: str, resp: Response, depth: int) -> PageFacts | None:
        if resp.too_large:
            self._note(url, "skipped", "too_large", resp.status, depth=depth)
            return None
        if resp.status in (401, 403):
            self._note(url, "fetched", "login_wall", resp.status, depth=depth)
            return PageFacts(login_wall=True)
        if resp.status >= 400 or resp.body is None:
            self._note(url, "failed", f"http_{resp.status}", resp.status, depth=depth)
            return None
        if "html" not in resp.headers.get("content-type", "text/html"):
            self._note(url, "skipped", "not_html", resp.status, len(resp.body), depth=depth)
            return None
        facts = parse_page(resp.body.decode(_charset(resp.headers), "replace"))
        if "noai" in resp.headers.get("x-robots-tag", "").lower():
            facts.noai = True
        facts.login_wall = facts.login_wall or bool(_LOGIN_WALL.search(facts.text_sample))
        reason = "login_wall" if facts.login_wall else ("tasks_found" if facts.tasks else "no_task")
        self._note(url, "fetched", reason, resp.status, len(resp.body), depth=depth, tasks=len(facts.tasks))
        return facts

    def _tasks(self, facts: PageFacts, url: str, depth: int) -> Iterator[RawPrompt]:
        fetched_at = self._now().isoformat()
        parts = urlsplit(url)
        base_id = re.sub(r"[^A-Za-z0-9._-]+", "-", f"{parts.hostname}{parts.path}").strip("-")
        common = dict(kind="crawled_page", source=parts.netloc, url=url, fetched_at=fetched_at, licence=facts.licence)
        if facts.login_wall:
            yield RawPrompt(id=base_id, text="", source_policy=("login_required", "the page is behind a login"), **common)
            return
        policy = ("source_disallowed", "the page opts out of AI collection (noai)") if facts.noai else None
        for i, task in enumerate(facts.tasks):
            hints = {"family": task.family} if task.family else {}
            yield RawPrompt(id=base_id if len(facts.tasks) == 1 else f"{base_id}-{i + 1}", text=task.text,
                            title=task.title or facts.title, hints=hints, source_policy=policy, **common)

    def _note(self, url: str, action: str, reason: str | None, status: int | None = None, size: int | None = None,
              *, depth: int = 0, tasks: int = 0) -> None:
        entry = LogEntry(url, action, reason, status, size, depth, self._now().isoformat(), tasks)
        self.log.append(entry)
        log.info("%s %s (%s)", action, url, reason)

    def log_rows(self) -> list[dict]:
        return [asdict(e) for e in self.log]


def _charset(headers: dict) -> str:
    m = re.search(r"charset=([\w-]+)", headers.get("content-type", ""))
    return m.group(1) if m else "utf-8"
