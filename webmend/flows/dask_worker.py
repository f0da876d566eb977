"""Dask worker life cycle for build-refined-pool: quiet logs, and the warm browsers closed when a
worker shuts down.

A worker process keeps one warm Chromium (webmend.browser.worker). Registered through the client,
the plugin reaches every worker of the cluster, local or remote, including workers that join or
are restarted later (the scheduler hands registered plugins to new workers).
"""

from __future__ import annotations

import asyncio
import logging
import os
from contextlib import contextmanager
from typing import Iterator

from distributed import Client, WorkerPlugin
from prefect_dask import DaskTaskRunner

from webmend.stage.signals import ending_children

log = logging.getLogger(__name__)

PLUGIN_NAME = "webmend-browsers"
# Dask's own log level (its config key logging.distributed); the user's setting wins.
LOG_LEVEL_ENV = "DASK_LOGGING__DISTRIBUTED"


class CloseBrowsers(WorkerPlugin):
    """On worker teardown, close the browsers that the worker's batches opened; on SIGTERM or
    SIGINT (a nanny or a scheduler stopping the worker), end them first (stage.signals)."""

    name = PLUGIN_NAME

    def setup(self, worker) -> None:
        from webmend.stage.signals import install

        install()  # a no-op where the plugin does not run on the process's main thread

    async def teardown(self, worker) -> None:
        from webmend.browser.worker import close_browsers

        # Closing waits on the browser's own thread: keep the worker's event loop free meanwhile.
        closed = await asyncio.to_thread(close_browsers)
        if closed:
            log.debug("worker %s closed %d browser(s)", worker.address, closed)


def register(client: Client) -> None:
    """Install CloseBrowsers on every current and future worker of the client's cluster."""
    client.register_plugin(CloseBrowsers(), name=PLUGIN_NAME)


def quiet_dask_logs() -> str:
    """Dask logs at WARNING unless DASK_LOGGING__DISTRIBUTED says otherwise; returns the level.

    At INFO a local cluster writes about a hundred lines of banners and connection notices per
    run. Set in the environment before the cluster starts, the level also reaches the worker
    processes (each reads the variable when it imports distributed); this process imported it
    already, so its logger is set directly.
    """
    level = os.environ.setdefault(LOG_LEVEL_ENV, "warning")
    logging.getLogger("distributed").setLevel(level.upper())
    return level


@contextmanager
def running(runner: DaskTaskRunner) -> Iterator[DaskTaskRunner]:
    """The runner entered, its cluster started (or joined) with quiet logs and CloseBrowsers.

    A local cluster lives for this run only: its workers close their browsers as soon as the run's
    work is done, before the cluster shuts down (the nanny gives a closing worker process four
    seconds before it kills it, which a browser shutdown on a loaded machine can use up). The
    browsers of an existing cluster stay warm for the next run: another run may be using them.
    """
    with ending_children(), runner:  # a stopped flow ends its local cluster's workers and browsers
        quiet_dask_logs()
        client = runner.client  # created here, after the log level is in the environment
        register(client)
        try:
            yield runner
        finally:
            if runner.address is None:
                _close_browsers_now(client)


def _close_browsers_now(client: Client) -> None:
    from webmend.browser.worker import close_browsers

    try:
        client.run(close_browsers)
    except Exception as exc:  # a worker that is already gone has no browser to close
        log.warning("closing the workers' browsers failed: %s: %s", type(exc).__name__, exc)
