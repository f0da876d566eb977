"""Progress: items of the total, rate and time left, resumed items apart from this run's rate,
the driver counting committed batches, and plain lines where no terminal is attached."""

from __future__ import annotations

import io

from webmend.stage.batches import cut
from webmend.stage.executors import run_here
from webmend.stage.progress import Meter, duration, line_report, terminal_report
from webmend.stage.run import run_stage


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_rate_and_time_left_count_only_this_runs_items():
    clock = Clock()
    meter = Meter("evaluate", total=10, clock=clock)
    meter.skip(4)  # an earlier run did these
    assert meter.status() == "4/10 pages (40%)"
    clock.now += 60
    meter.advance(2)
    assert meter.rate_per_min() == 2.0
    assert meter.eta_s() == 120.0  # 4 left at 2 a minute
    assert meter.status() == "6/10 pages (60%), 2.0 pages/min, 2m00s left"


def test_a_stream_of_unknown_length_shows_count_and_rate():
    clock = Clock()
    meter = Meter("evaluate", clock=clock)
    clock.now += 30
    meter.advance(3)
    assert meter.status() == "3 pages, 6.0 pages/min" and meter.eta_s() is None


def test_durations_read_as_people_read_them():
    assert [duration(s) for s in (7, 61, 3600 * 2 + 60 * 5)] == ["7s", "1m01s", "2h05m"]


def test_the_driver_counts_committed_items_and_reports_what_they_came_to():
    clock = Clock()
    lines = io.StringIO()
    meter = Meter("square", total=5, unit="numbers", report=line_report(lines), clock=clock)
    batches = cut("square", [1, 2, 3, 4, 5], ["a", "b", "c", "d", "e"], "cfg", 2)

    def square(batch):
        clock.now += 30
        return [n * n for n in batch.items]

    run_stage(batches, submit=lambda b: run_here(square, b), completed=lambda fs: fs, commit=lambda b, rows: None,
              is_committed=lambda b: b.index == 0, meter=meter, describe=lambda rows: ",".join(map(str, rows)))
    assert (meter.resumed, meter.done) == (2, 3)
    assert lines.getvalue().splitlines() == [
        "square [4/5 numbers (80%), 2.0 numbers/min, 30s left] 9,16",
        "square [5/5 numbers (100%), 3.0 numbers/min, 0s left] 25",
    ]


def test_commands_print_plain_lines_when_no_terminal_is_attached():
    out = io.StringIO()  # not a tty: a log file, CI
    meter = Meter("repair", total=2, report=terminal_report(out))
    meter.advance(1, "page-a: 31 -> 84 (Low -> High)")
    assert out.getvalue().startswith("repair [1/2 pages (50%)") and out.getvalue().rstrip().endswith("(Low -> High)")


def test_slowest_names_the_item_that_held_its_step_and_its_share():
    from webmend.stage.progress import slowest

    assert slowest({"a": 1.0, "b": 3.0}) == {"wall_s": 4.0, "pages": 2, "slowest_page": "b", "slowest_s": 3.0,
                                             "slowest_share": 0.75}  # one after another: the step took the sum
    assert slowest({"a": 1.0, "b": 3.0}, wall_s=3.2)["slowest_share"] == 0.938  # in parallel: the step's wall time
    assert slowest({"b": 2.0, "a": 2.0})["slowest_page"] == "a"  # ties: the first by name, on every run
    assert slowest({}) is None
