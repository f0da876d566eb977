"""The one driver: every stage that runs over a corpus is a `Stage`, and `drive` runs it.

A stage says what its batches are (in input order), which of them are committed already (its
marker: a table file, a line count, a stored reward), what runs on a worker for a batch (`Work`:
a module-level function and plain arguments, so it can travel to a pool process, a Dask worker or a
Prefect task), how a finished batch is committed and how its rows read in a progress line. `drive`
skips the committed batches, runs the others on an executor (`executors.local`, `executors.dask`,
a flow's Prefect runner), commits each as it completes (in input order when asked), resubmits
failures of the machine, and reports progress. Pure library: no Prefect import.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Protocol

from webmend.stage.batches import Batch
from webmend.stage.progress import Meter, Report, log_report
from webmend.stage.run import InOrder, StageReport, run_stage


@dataclass(frozen=True)
class Work:
    """What runs on a worker for one batch: `fn(*args)` returns the batch's rows."""

    index: int  # the batch's position (names its task where the runner names tasks)
    fn: Callable
    args: tuple


class Stage(Protocol):
    name: str  # names its progress lines and, in a flow, its tasks

    def batches(self) -> Iterable[Batch]:
        """Every batch of the run in input order (committed ones included: the driver skips them)."""

    def total(self) -> int | None:
        """Items in the run, for progress (None: a stream of unknown length)."""

    def is_committed(self, batch: Batch) -> bool: ...

    def work(self, batch: Batch) -> Work: ...

    def commit(self, batch: Batch, rows: list) -> None: ...

    def describe(self, rows: list) -> str: ...


def drive(stage: Stage, executor, *, report: Report = log_report, in_order: bool = False,
          max_in_flight: int | None = None, max_resubmits: int = 2,
          commit_with: Callable[[Callable, Batch, list], object] | None = None) -> StageReport:
    """Run `stage` on `executor` (an object with `run(work) -> future` and `completed(futures)`).

    in_order: commit batches in input order (an ordered output file), holding early finishers.
    commit_with(commit, batch, rows): how to call the stage's commit (a flow wraps it in a task).
    """
    meter = Meter(stage.name, total=stage.total(), unit=getattr(stage, "unit", "pages"), report=report)
    commit = stage.commit if commit_with is None else (lambda batch, rows: commit_with(stage.commit, batch, rows))
    is_committed = stage.is_committed
    if in_order:
        commit = InOrder(commit)
        is_committed = _skipping(stage.is_committed, commit)
    window = getattr(executor, "window", None)
    if window:
        max_in_flight = min(max_in_flight or window, window)
    return run_stage(stage.batches(), submit=lambda batch: executor.run(stage.work(batch)),
                     completed=executor.completed, commit=commit, is_committed=is_committed,
                     max_in_flight=max_in_flight, max_resubmits=max_resubmits, meter=meter, describe=stage.describe)


def _skipping(is_committed: Callable[[Batch], bool], ordered: InOrder) -> Callable[[Batch], bool]:
    """is_committed that also tells the in-order commit to move past the batches it skips."""
    def check(batch: Batch) -> bool:
        done = is_committed(batch)
        if done:
            ordered.skip(batch)
        return done

    return check
