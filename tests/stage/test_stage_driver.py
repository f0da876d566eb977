"""The one driver: a stage's committed batches are skipped (and counted as resumed), the others run
as the stage's Work on an executor and are committed once each, in input order when asked."""

from __future__ import annotations

import io
from dataclasses import dataclass, field

from webmend.stage import executors
from webmend.stage.batches import Batch
from webmend.stage.driver import Work, drive
from webmend.stage.progress import line_report


def square_all(numbers: tuple) -> list[int]:
    return [n * n for n in numbers]


@dataclass
class Squares:
    numbers: list[int]
    done: set[int] = field(default_factory=set)  # indexes of committed batches (the marker)
    written: list[tuple[int, list]] = field(default_factory=list)
    name: str = "square"

    def batches(self):
        return [Batch(i, str(i), (n,)) for i, n in enumerate(self.numbers)]

    def total(self):
        return len(self.numbers)

    def is_committed(self, batch):
        return batch.index in self.done

    def work(self, batch):
        return Work(batch.index, square_all, (batch.items,))

    def commit(self, batch, rows):
        self.written.append((batch.index, rows))
        self.done.add(batch.index)

    def describe(self, rows):
        return ",".join(map(str, rows))


def test_committed_batches_are_skipped_and_the_rest_committed_in_order():
    stage = Squares([1, 2, 3, 4, 5], done={0, 2})
    lines = io.StringIO()
    with executors.local(2) as ex:  # a spawned pool: Work travels to another process
        report = drive(stage, ex, report=line_report(lines), in_order=True)
    assert stage.written == [(1, [4]), (3, [16]), (4, [25])]
    assert report.counters.skipped == 2 and report.counters.committed == 3
    assert lines.getvalue().splitlines()[-1].startswith("square [5/5 pages (100%)")


def test_a_rerun_after_everything_was_committed_runs_nothing():
    stage = Squares([1, 2])
    with executors.local(1) as ex:
        drive(stage, ex)
        first = list(stage.written)
        report = drive(stage, ex)
    assert sorted(first) == [(0, [1]), (1, [4])] and stage.written == first  # not asked to be in order
    assert report.counters.submitted == 0


def test_a_flow_can_wrap_each_commit():
    stage, wrapped = Squares([3]), []
    with executors.local(1) as ex:
        drive(stage, ex, commit_with=lambda commit, batch, rows: wrapped.append(batch.index) or commit(batch, rows))
    assert wrapped == [0] and stage.written == [(0, [9])]


def test_in_this_process_each_batch_is_committed_before_the_next_runs():
    events: list[str] = []

    class Logged(Squares):
        def work(self, batch):
            return Work(batch.index, lambda items: events.append(f"run {batch.index}") or square_all(items),
                        (batch.items,))

        def commit(self, batch, rows):
            events.append(f"commit {batch.index}")

    with executors.local(1) as ex:  # a kill between batches loses nothing finished
        drive(Logged([1, 2, 3]), ex, in_order=True, max_in_flight=8)
    assert events == ["run 0", "commit 0", "run 1", "commit 1", "run 2", "commit 2"]
