"""Run a stage's batches: submit, collect as they complete, commit, resubmit infrastructure failures."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

from webmend.stage.batches import Batch
from webmend.stage.progress import Meter

log = logging.getLogger(__name__)

# Failures worth a retry: the machine, not the data. A bad row (ValueError) fails at once. Named,
# not imported, so this layer needs neither Playwright nor Dask.
_INFRA_NAMES = {"BrowserDied", "WallTimeout", "KilledWorker", "CommClosedError", "TargetClosedError",
                "FutureCancelledError", "StreamClosedError", "BrokenProcessPool"}


def is_infrastructure_error(exc: BaseException) -> bool:
    if isinstance(exc, (OSError, EOFError, MemoryError)):
        return True
    return any(cls.__name__ in _INFRA_NAMES for cls in type(exc).__mro__)


@dataclass
class Counters:
    batches: int = 0  # all batches handed to the run
    skipped: int = 0  # already committed before the run
    submitted: int = 0  # submissions, resubmissions included
    resubmitted: int = 0
    committed: int = 0  # handed to commit
    failed: int = 0
    rows: int = 0  # rows committed by this run

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class StageReport:
    counters: Counters = field(default_factory=Counters)
    failures: list[tuple[Batch, BaseException]] = field(default_factory=list)


def run_stage(batches: Iterable[Batch], *, submit: Callable[[Batch], object],
              completed: Callable[[list], Iterable], commit: Callable[[Batch, list], object],
              is_committed: Callable[[Batch], bool] = lambda batch: False, max_resubmits: int = 2,
              max_in_flight: int | None = None, meter: Meter | None = None,
              describe: Callable[[list], str] | None = None) -> StageReport:
    """Run every uncommitted batch (a sequence, or a stream read as it goes) through `submit` (returns a future with .result()) and commit each
    one as it completes. `completed(futures)` yields futures as they finish (e.g.
    concurrent.futures.as_completed, distributed.as_completed, prefect.futures.as_completed).

    At most `max_in_flight` batches are submitted at a time (all when None), so a long corpus is
    never all in memory. A batch whose future fails for an infrastructure reason (e.g. its worker
    died more often than the cluster reschedules on its own) is submitted again, up to
    `max_resubmits` times; other failures are not retried. Failed batches are reported with their
    errors: the caller decides how the run ends, after every other batch was committed.
    `meter` counts each batch's items as it is committed (skipped ones as resumed) and reports
    `describe(rows)` with them.
    """
    report = StageReport()
    c = report.counters
    todo: Iterator[Batch] = _uncommitted(batches, is_committed, c, meter)
    attempts: dict[str, int] = {}
    window = max_in_flight or 1 << 62
    while True:
        retry: list[Batch] = []
        for batch, future in _in_waves(todo, submit, completed, window, c):
            try:
                rows = future.result()
            except Exception as exc:
                if is_infrastructure_error(exc) and attempts.get(batch.key, 0) < max_resubmits:
                    attempts[batch.key] = attempts.get(batch.key, 0) + 1
                    c.resubmitted += 1
                    log.warning("batch %d failed (%s: %s); submitting it again", batch.index, type(exc).__name__, exc)
                    retry.append(batch)
                else:
                    log.error("batch %d failed: %s: %s", batch.index, type(exc).__name__, exc)
                    c.failed += 1
                    report.failures.append((batch, exc))
                continue
            commit(batch, rows)
            c.committed += 1
            c.rows += len(rows)
            if meter:
                meter.advance(len(batch.items), describe(rows) if describe else "")
        if not retry:
            break
        todo = iter(sorted(retry, key=lambda b: b.index))
    return report


def _uncommitted(batches: Iterable[Batch], is_committed: Callable[[Batch], bool], c: Counters,
                 meter: Meter | None) -> Iterator[Batch]:
    for batch in batches:
        c.batches += 1
        if is_committed(batch):
            c.skipped += 1
            if meter:
                meter.skip(len(batch.items))
        else:
            yield batch


def _in_waves(todo: Iterator[Batch], submit, completed, window: int, c: Counters) -> Iterator[tuple[Batch, object]]:
    """(batch, finished future) pairs, keeping at most `window` batches submitted at a time."""
    in_flight: dict = {}

    def top_up() -> bool:
        while len(in_flight) < window:
            batch = next(todo, None)
            if batch is None:
                return False
            in_flight[submit(batch)] = batch
            c.submitted += 1
        return True

    more = top_up()
    while in_flight:
        for future in completed(list(in_flight)):
            yield in_flight.pop(future), future
            if more:
                break  # a slot is free: refill, then wait again on everything in flight
        more = more and top_up()


class InOrder:
    """A commit callable that commits batches in index order, holding early finishers until the
    batches before them are committed (for outputs in input order, such as a results file).

    `start` is the index of the first batch the run will commit (batches before it were committed
    by an earlier run). A batch that failed leaves a gap: the ones after it stay held, uncommitted,
    so a rerun resumes right after the last committed one.
    """

    def __init__(self, commit: Callable[[Batch, list], object], start: int = 0):
        self._commit, self._next, self._held = commit, start, {}

    def __call__(self, batch: Batch, rows: list) -> None:
        self._held[batch.index] = (batch, rows)
        self._release()

    def skip(self, batch: Batch) -> None:
        """A batch committed by an earlier run: nothing to write, but the ones after it may go."""
        self._held[batch.index] = None
        self._release()

    def _release(self) -> None:
        while self._next in self._held:
            held = self._held.pop(self._next)
            if held is not None:
                self._commit(*held)
            self._next += 1

    @property
    def held(self) -> int:
        return len(self._held)
