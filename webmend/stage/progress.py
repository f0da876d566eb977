"""Progress of a stage run: items done of the total, rate and time left, in one format for every command.

The driver (`run.run_stage`) advances a `Meter` as it commits batches (batches committed by an
earlier run count as resumed, not as this run's rate) and hands each update to the meter's
`report`: commands draw a bar on a terminal and print plain lines otherwise (`terminal_report`),
the flow prints lines into its run logs, library callers log (`log_report`).
"""

from __future__ import annotations

import logging
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, TextIO

log = logging.getLogger(__name__)

Report = Callable[["Meter", str], None]  # (meter, what the last item came to) -> show it


@dataclass
class Meter:
    stage: str
    total: int | None = None  # every item of the run, resumed ones included; None: a stream of unknown length
    unit: str = "pages"
    report: Report | None = None
    clock: Callable[[], float] = time.monotonic
    done: int = 0  # items finished by this run
    resumed: int = 0  # items an earlier run finished
    started: float = field(init=False)

    def __post_init__(self):
        self.started = self.clock()

    def skip(self, n: int) -> None:
        self.resumed += n

    def advance(self, n: int = 1, note: str = "") -> None:
        self.done += n
        if self.report:
            self.report(self, note)

    @property
    def finished(self) -> int:
        return self.resumed + self.done

    def rate_per_min(self) -> float | None:
        elapsed = self.clock() - self.started
        return self.done / elapsed * 60 if self.done and elapsed > 0 else None

    def eta_s(self) -> float | None:
        rate = self.rate_per_min()
        if self.total is None or not rate:
            return None
        return max(0, self.total - self.finished) / rate * 60

    def status(self) -> str:
        """e.g. '12/48 pages (25%), 3.1 pages/min, 11m36s left' (no total: '12 pages, 3.1 pages/min')."""
        if self.total:
            head = f"{self.finished}/{self.total} {self.unit} ({100 * self.finished // self.total}%)"
        else:
            head = f"{self.finished} {self.unit}"
        rate, eta = self.rate_per_min(), self.eta_s()
        parts = [head] + ([f"{rate:.1f} {self.unit}/min"] if rate else []) + ([f"{duration(eta)} left"] if eta is not None else [])
        return ", ".join(parts)


def slowest(seconds: dict[str, float], wall_s: float | None = None) -> dict | None:
    """The item that took longest and its share of the wall time its step took (default: the sum,
    for items run one after another). A step (a batch, an RL update) waits for its slowest item,
    so a share near 1 says one item held the whole step. None without items."""
    if not seconds:
        return None
    wall = sum(seconds.values()) if wall_s is None else wall_s
    top = max(sorted(seconds), key=lambda k: seconds[k])
    return {"wall_s": round(wall, 2), "pages": len(seconds), "slowest_page": top, "slowest_s": round(seconds[top], 2),
            "slowest_share": round(min(1.0, seconds[top] / wall), 3) if wall > 0 else 1.0}


def duration(seconds: float) -> str:
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def log_report(meter: Meter, note: str) -> None:
    log.info("%s: %s%s", meter.stage, meter.status(), f" | {note}" if note else "")


def line_report(stream: TextIO | None = None) -> Report:
    """One plain line per update (logs, CI, a flow's run log): 'evaluate [3/8 pages (37%), ...] note'."""
    def report(meter: Meter, note: str) -> None:
        print(f"{meter.stage} [{meter.status()}]{' ' + note if note else ''}", file=stream or sys.stderr, flush=True)

    return report


def terminal_report(stream: TextIO | None = None) -> Report:
    """For commands: a progress bar on a terminal, plain lines otherwise. (Commands only: library
    code reports through `log_report`.)"""
    stream = stream or sys.stderr
    if not stream.isatty():
        return line_report(stream)
    from tqdm import tqdm  # a terminal is there: draw a bar

    bar = None

    def report(meter: Meter, note: str) -> None:
        nonlocal bar
        if bar is None:
            bar = tqdm(total=meter.total, initial=meter.resumed, unit=meter.unit[:-1] if meter.unit.endswith("s") else meter.unit,
                       desc=meter.stage, file=stream, dynamic_ncols=True)
        if note:
            bar.write(note, file=stream)
        bar.update(meter.finished - bar.n)
        if meter.total is not None and meter.finished >= meter.total:
            bar.close()

    return report
