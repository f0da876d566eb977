"""Where a stage's batches run: the one place that maps `submit` onto a local pool or Dask.

Each context manager yields an `Executor`: `submit(fn, *args) -> future`, `completed(futures)`
(futures as they finish) and `run(work)`, what `driver.drive` calls for a batch. Functions and
arguments must be picklable for the process pool and Dask (module-level functions, plain data).
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing as mp
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterator


@dataclass(frozen=True)
class Executor:
    submit: Callable  # submit(fn, *args) -> future with .result()
    completed: Callable  # completed(futures) -> iterable of finished futures
    submit_work: Callable | None = None  # submit_work(work) -> future, for runners that name each batch's task
    # The most batches worth having in flight: 1 where submit runs the batch at once (in this
    # process), so each is committed before the next runs; None: the caller's choice.
    window: int | None = None

    def run(self, work) -> object:
        """Submit a stage's `driver.Work` for one batch."""
        return self.submit_work(work) if self.submit_work else self.submit(work.fn, *work.args)


def run_here(fn, *args) -> cf.Future:
    """submit() for work that runs in this process, now: a finished future with its result or error."""
    future: cf.Future = cf.Future()
    try:
        future.set_result(fn(*args))
    except Exception as exc:  # the future carries it, as a pool's would
        future.set_exception(exc)
    return future


@contextmanager
def local(workers: int = 1, initializer: Callable | None = None, initargs: tuple = ()) -> Iterator[Executor]:
    """workers <= 1: in this process, one batch at a time (the initializer runs here once);
    more: a spawned process pool (each process runs the initializer, e.g. to start its browser)."""
    if workers <= 1:
        if initializer:
            initializer(*initargs)
        yield Executor(run_here, cf.as_completed, window=1)
        return
    with cf.ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn"), initializer=_start_worker,
                                initargs=(initializer, *initargs)) as pool:
        yield Executor(pool.submit, cf.as_completed)


def _start_worker(initializer: Callable | None, *initargs) -> None:
    """A pool process: on SIGTERM/SIGINT it ends its own browsers first, then its initializer runs."""
    from webmend.stage.signals import install

    install()
    if initializer:
        initializer(*initargs)


@contextmanager
def threads(workers: int = 1) -> Iterator[Executor]:
    """Threads of this process, for work that waits on I/O (model calls); nothing is pickled."""
    with cf.ThreadPoolExecutor(max(1, workers)) as pool:
        yield Executor(pool.submit, cf.as_completed)


@contextmanager
def dask(address: str | None = None, n_workers: int | None = None) -> Iterator[Executor]:
    """An existing Dask scheduler by address, or a local cluster of one-thread worker processes on
    127.0.0.1 without dashboards (one warm browser per worker process)."""
    from distributed import Client, LocalCluster, as_completed  # Dask only where it is asked for

    if address:
        with Client(address) as client:
            yield Executor(_impure(client), as_completed)
        return
    with LocalCluster(n_workers=n_workers or 1, threads_per_worker=1, processes=True, dashboard_address=None,
                      host="127.0.0.1") as cluster, Client(cluster) as client:
        yield Executor(_impure(client), as_completed)


def _impure(client) -> Callable:
    # Dask keys a pure call by its arguments: a resubmitted batch would get its failed future back.
    return lambda fn, *args: client.submit(fn, *args, pure=False)
