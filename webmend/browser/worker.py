"""A warm Chromium per worker process, driven from a private event-loop thread.

Callers are synchronous (CLI pool processes, Dask tasks); Playwright's async API gives us
cancellable calls, which is how a stuck page is abandoned without stopping the worker.
The worker relaunches Chromium whenever it has died or stopped answering.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import weakref
from contextlib import contextmanager
from importlib.metadata import version
from typing import Iterator

from playwright.async_api import async_playwright

from webmend.browser.launch import PROFILES, kill_browser, launch_args, resolve_launch
from webmend.browser.mirror import MirrorServer
from webmend.config import EvalConfig

log = logging.getLogger(__name__)


class WallTimeout(Exception):
    """A whole page exceeded its wall-clock cap."""


class BrowserDied(Exception):
    """Chromium went away while a page was being evaluated (killed, crashed)."""


class BrowserWorker:
    def __init__(self, cfg: EvalConfig):
        self.cfg = cfg
        self.closed = False
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="webmend-browser", daemon=True)
        self._thread.start()
        self._pw = None
        self._browsers: dict[str, object] = {}  # profile -> Browser, launched on first use
        self._mirror_ports: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Browser -> its CDN mirror server's port
        self.isolated_network = False
        self.chromium_sandbox = False
        self.browser_version = ""
        self.launches = 0

    def mirror_port(self, browser) -> int | None:
        """The port of the CDN mirror server running beside `browser`, None when there is none
        (then library bodies go through the request route)."""
        return self._mirror_ports.get(browser)

    @property
    def playwright_version(self) -> str:
        return version("playwright")

    def run(self, job, wall_s: float, profile: str = "raster"):
        """Run `job(browser)` (a coroutine function) on the browser thread, bounded in wall time.

        `profile` picks the browser (launch.PROFILES): "gl" for pages that draw with WebGL.
        """
        fut = asyncio.run_coroutine_threadsafe(self._run(job, profile), self._loop)
        try:
            return fut.result(timeout=wall_s)
        except concurrent.futures.TimeoutError:
            fut.cancel()
            # The job did not stop by its own deadline: whatever holds it (a wedged renderer or
            # GPU process) goes with the browser, so the worker is free for the next page.
            self._restart(profile)
            raise WallTimeout(f"page exceeded its {wall_s:.0f} s wall-clock cap") from None

    def recycle(self, profile: str) -> None:
        """Kill the `profile` browser (the next page launches a fresh one)."""
        self._restart(profile, why="relaunching Chromium after a page that used up its budget")

    async def _run(self, job, profile: str):
        browser = await self._ensure_browser(profile)
        try:
            return await job(browser)
        except Exception as exc:
            if not browser.is_connected():
                raise BrowserDied(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from exc
            raise
        finally:
            if not self.cfg.reuse_browser:
                self._browsers.pop(profile, None)
                await browser.close()

    async def _ensure_browser(self, profile: str = "raster"):
        if profile not in PROFILES:
            raise ValueError(f"unknown browser profile {profile!r}")
        browser = self._browsers.get(profile)
        if browser is not None and browser.is_connected():
            return browser
        if self._pw is None:
            self._pw = await async_playwright().start()
        how = resolve_launch(self.cfg.sandbox)
        mirror = MirrorServer.plan(self.cfg)
        try:
            browser = await self._pw.chromium.launch(
                executable_path=how.executable,
                args=launch_args(self.cfg.limits.js_heap_mb, profile, mirror.port if mirror else None,
                                 mirror.spki if mirror else None),
                chromium_sandbox=how.chromium_sandbox,
                headless=True,
                timeout=60_000,
                env=mirror.env() if mirror else None,
            )
        except BaseException:
            if mirror:
                mirror.discard()  # its private key must not outlive a launch that failed
            raise
        self._browsers[profile] = browser
        self._mirror_ports[browser] = mirror.port if mirror and mirror.started() else None
        self.isolated_network = how.isolated_network
        self.chromium_sandbox = how.chromium_sandbox
        self.browser_version = browser.version
        self.launches += 1
        log.info("chromium %s launched (profile=%s, netns=%s, sandbox=%s)", self.browser_version, profile,
                 how.isolated_network, how.chromium_sandbox)
        return browser

    def ensure_started(self) -> None:
        asyncio.run_coroutine_threadsafe(self._ensure_browser(), self._loop).result(timeout=90)

    def _restart(self, profile: str, why: str = "restarting a stuck Chromium") -> None:
        """Kill the `profile` browser outright; its Playwright handle is closed afterwards (by
        then it only notices the process is gone)."""
        log.warning(why)

        async def kill():
            browser = self._browsers.pop(profile, None)
            if browser is not None:
                kill_browser(profile)
                try:
                    await asyncio.wait_for(browser.close(), 5)
                except Exception as exc:
                    log.warning("browser close failed: %s", exc)

        try:
            asyncio.run_coroutine_threadsafe(kill(), self._loop).result(timeout=20)
        except Exception as exc:
            log.warning("restart cleanup failed: %s", exc)
            self._browsers.pop(profile, None)

    def close(self) -> None:
        self.closed = True  # get_worker hands out a fresh one after this

        async def shutdown():
            for browser in list(self._browsers.values()):
                await browser.close()
            self._browsers.clear()
            if self._pw is not None:
                await self._pw.stop()

        try:
            asyncio.run_coroutine_threadsafe(shutdown(), self._loop).result(timeout=30)
        except Exception as exc:
            log.warning("browser shutdown failed: %s", exc)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)


_WORKERS: dict[str, BrowserWorker] = {}


def get_worker(cfg: EvalConfig) -> BrowserWorker:
    """One warm browser per process (and per launch-relevant config)."""
    key = f"{cfg.sandbox.netns}:{cfg.limits.js_heap_mb}"
    worker = _WORKERS.get(key)
    if worker is None or worker.closed:
        worker = _WORKERS[key] = BrowserWorker(cfg)
    return worker


@contextmanager
def closing_new_browsers() -> Iterator[None]:
    """Close, when the block ends, the warm browsers it started in this process (a browser that was
    warm before it, say a caller's, stays): for a run whose pages go through `get_worker` here."""
    before = dict(_WORKERS)
    try:
        yield
    finally:
        for key, worker in list(_WORKERS.items()):
            if before.get(key) is not worker:
                del _WORKERS[key]
                worker.close()


def close_browsers() -> int:
    """Close this process's warm browsers (Chromium and its Playwright driver); returns how many.

    For a process that is done with its pages but lives on (a Dask worker shutting down, a
    training run between reward steps): without it the process keeps, or exits under, a live
    driver whose Chromium lingers, orphaned. The workers are forgotten first, so a later page in
    this process launches afresh.
    """
    open_workers = list(_WORKERS.values())
    _WORKERS.clear()
    for worker in open_workers:
        worker.close()  # logs and carries on if the browser is already gone
    return len(open_workers)
