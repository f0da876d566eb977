"""The stage driver: skip committed batches, bound what is in flight, resubmit only infrastructure
failures, commit each batch once, commit in order when asked, and count what happened."""

from __future__ import annotations

import concurrent.futures as cf
import threading
from types import SimpleNamespace

import pytest
from distributed import KilledWorker

from webmend.stage.batches import cut
from webmend.stage.run import InOrder, is_infrastructure_error, run_stage


def killed() -> KilledWorker:
    """What Dask raises for a task whose workers kept dying under it."""
    return KilledWorker("evaluate-batch", SimpleNamespace(address="tcp://127.0.0.1:1"), 3)


def batches_of(n: int, size: int = 1):
    items = [f"item{i}" for i in range(n)]
    return cut("test", items, [f"h{i}" for i in range(n)], "cfg", size)


@pytest.mark.parametrize("exc, infra", [
    (OSError("disk"), True), (ConnectionResetError(), True), (TimeoutError(), True),
    (killed(), True), (cf.process.BrokenProcessPool("gone"), True),
    (ValueError("bad row"), False), (KeyError("id"), False),
])
def test_only_infrastructure_failures_count_for_retries(exc, infra):
    assert is_infrastructure_error(exc) is infra


def test_resubmits_infrastructure_failures_and_commits_each_batch_once():
    calls: dict[int, int] = {}
    committed: list[int] = []

    def work(batch):
        calls[batch.index] = calls.get(batch.index, 0) + 1
        if batch.index == 1 and calls[1] == 1:
            raise killed()  # as Dask reports a dead worker
        if batch.index == 3:
            raise ValueError("a defect, not the machine")
        return [{"item": i} for i in batch.items]

    with cf.ThreadPoolExecutor(2) as pool:
        report = run_stage(batches_of(5), submit=lambda b: pool.submit(work, b), completed=cf.as_completed,
                           commit=lambda b, rows: committed.append(b.index))
    assert sorted(committed) == [0, 1, 2, 4]
    assert calls == {0: 1, 1: 2, 2: 1, 3: 1, 4: 1}
    assert [(b.index, type(e).__name__) for b, e in report.failures] == [(3, "ValueError")]
    assert report.counters.as_dict() == {"batches": 5, "skipped": 0, "submitted": 6, "resubmitted": 1,
                                         "committed": 4, "failed": 1, "rows": 4}


def test_gives_up_after_the_resubmit_budget():
    attempts = []

    def always_dies(batch):
        attempts.append(batch.index)
        raise OSError("worker gone")

    with cf.ThreadPoolExecutor(1) as pool:
        report = run_stage(batches_of(1), submit=lambda b: pool.submit(always_dies, b), completed=cf.as_completed,
                           commit=lambda b, rows: pytest.fail("nothing to commit"), max_resubmits=2)
    assert attempts == [0, 0, 0] and len(report.failures) == 1 and report.counters.resubmitted == 2


def test_committed_batches_are_skipped_without_a_submit():
    batches = batches_of(4)
    done = {batches[0].key, batches[2].key}
    submitted = []

    def submit(batch):
        submitted.append(batch.index)
        future = cf.Future()
        future.set_result([batch.items[0]])
        return future

    report = run_stage(batches, submit=submit, completed=cf.as_completed, commit=lambda b, rows: None,
                       is_committed=lambda b: b.key in done)
    assert submitted == [1, 3] and report.counters.skipped == 2 and report.counters.committed == 2


def test_no_more_than_max_in_flight_batches_are_submitted_at_once():
    lock, running, peak = threading.Lock(), [0], [0]

    def work(batch):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        threading.Event().wait(0.02)
        with lock:
            running[0] -= 1
        return list(batch.items)

    in_flight, outstanding = [], []

    def submit(batch):
        outstanding.append(batch.index)
        in_flight.append(len(outstanding) - len(committed))
        return pool.submit(work, batch)

    committed: list[int] = []
    with cf.ThreadPoolExecutor(8) as pool:
        report = run_stage(batches_of(12), submit=submit, completed=cf.as_completed, max_in_flight=3,
                           commit=lambda b, rows: committed.append(b.index))
    assert sorted(committed) == list(range(12)) and report.counters.submitted == 12
    assert max(in_flight) <= 3 and peak[0] <= 3


def test_in_order_holds_early_finishers_until_the_gap_closes():
    batches = batches_of(4)
    out: list[int] = []
    commit = InOrder(lambda b, rows: out.append(b.index), start=0)
    commit(batches[2], [])
    commit(batches[1], [])
    assert out == [] and commit.held == 2
    commit(batches[0], [])
    assert out == [0, 1, 2] and commit.held == 0


def _square(batch):
    return [x * x for x in batch.items]


@pytest.mark.parametrize("workers", [1, 2])
def test_local_executor_runs_a_stage_in_this_process_or_a_spawned_pool(workers):
    from webmend.stage import executors

    batches = cut("sq", [1, 2, 3, 4, 5], ["a", "b", "c", "d", "e"], "cfg", 2)
    rows: dict[int, list] = {}
    with executors.local(workers) as ex:
        report = run_stage(batches, submit=lambda b: ex.submit(_square, b), completed=ex.completed,
                           commit=lambda b, r: rows.__setitem__(b.index, r))
    assert rows == {0: [1, 4], 1: [9, 16], 2: [25]} and report.counters.committed == 3


def test_dask_executor_runs_a_stage_and_resubmits_get_a_fresh_future():
    """A local Dask cluster; a batch that fails once with an infrastructure error is run again (a
    pure Dask call would hand the failed future back for the same arguments)."""
    from webmend.stage import executors

    batches = cut("sq", [1, 2, 3], ["a", "b", "c"], "cfg", 1)
    rows: dict[int, list] = {}
    with executors.dask(n_workers=1) as ex:
        report = run_stage(batches, submit=lambda b: ex.submit(_square_once_flaky, b), completed=ex.completed,
                           commit=lambda b, r: rows.__setitem__(b.index, r))
    assert rows == {0: [1], 1: [4], 2: [9]}
    assert report.counters.resubmitted == 1 and report.failures == []


_FLAKY_SEEN: set[int] = set()


def _square_once_flaky(batch):
    # Runs in the Dask worker process: the first call for item 2 fails as a lost connection would.
    if batch.items[0] == 2 and 2 not in _FLAKY_SEEN:
        _FLAKY_SEEN.add(2)
        raise ConnectionResetError("worker connection lost")
    return _square(batch)
