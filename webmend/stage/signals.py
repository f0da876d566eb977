"""A stopped run leaves nothing behind: on SIGTERM or SIGINT, end every process this one started.

A job scheduler or a container runtime stops a job with SIGTERM to its main process. Python's
default is to die at once, which leaves pool workers, their Playwright drivers, their Chromium
browsers and the browsers' CDN mirror servers running, re-parented to init. `ending_children`
installs a handler that, while this process still knows its descendants, asks them all to end
(SIGTERM), waits a few seconds, kills what is left, and then stops this process as the signal
would (or hands the signal on to the handler that was there before, e.g. Prefect's). Committed
work stays committed; a rerun resumes where the run stopped.

psutil walks the process tree: /proc parsing by hand would be this module's own code to keep.
"""

from __future__ import annotations

import logging
import signal
import threading
from contextlib import contextmanager
from typing import Iterator

import psutil

log = logging.getLogger(__name__)

SIGNALS = (signal.SIGTERM, signal.SIGINT)
GRACE_S = 5.0  # how long descendants get to end on SIGTERM before SIGKILL


def end_descendants(grace_s: float = GRACE_S) -> int:
    """SIGTERM every descendant of this process, SIGKILL those still alive after grace_s;
    returns how many there were. Walked again after the first round: a worker may have started a
    process between the walk and its own end."""
    me = psutil.Process()
    seen: set[int] = {_resource_tracker()}  # it ends by itself when we do, after unlinking what it tracks
    for _ in range(3):
        found = [p for p in me.children(recursive=True) if p.pid not in seen]
        if not found:
            break
        seen.update(p.pid for p in found)
        for p in found:
            _send(p, signal.SIGTERM)
        _, alive = psutil.wait_procs(found, timeout=grace_s)
        for p in alive:
            _send(p, signal.SIGKILL)
        psutil.wait_procs(alive, timeout=grace_s)
    return len(seen) - 1


def _resource_tracker() -> int:
    from multiprocessing import resource_tracker

    # Its pid is private; without it the tracker is ended too and warns that it died.
    return getattr(resource_tracker._resource_tracker, "_pid", None) or -1


def _send(p: psutil.Process, sig: int) -> None:
    try:
        p.send_signal(sig)
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        pass  # gone already, or not ours to end


@contextmanager
def ending_children() -> Iterator[None]:
    """For the duration: SIGTERM/SIGINT end this process's descendants first (see the module).
    Outside the main thread (where Python cannot install handlers) it does nothing."""
    before = install()
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def install() -> dict:
    """Install the handlers for this process's life (a pool worker's initializer, a Dask worker);
    returns the handlers they replace. Does nothing outside the main thread."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    before = {sig: signal.getsignal(sig) for sig in SIGNALS}
    for sig in SIGNALS:
        signal.signal(sig, _handler(before))
    return before


def _handler(before: dict):
    def handle(signum, frame):
        for sig in SIGNALS:  # a second signal must not interrupt the ending
            signal.signal(sig, signal.SIG_IGN)
        n = end_descendants()
        log.warning("stopped by %s: ended %d process(es) this run started", signal.Signals(signum).name, n)
        for sig, handler in before.items():
            signal.signal(sig, handler)
        previous = before[signum]
        if callable(previous):  # Python's KeyboardInterrupt, Prefect's cancellation
            previous(signum, frame)
        elif previous != signal.SIG_IGN:
            raise SystemExit(128 + signum)
    return handle
