"""Whether a browser call that outlasts its step cap is stuck or only slow, judged by the CPU the
page's processes used, not by wall seconds.

A guarded call (a clock run, an evaluation, an input) gets `step_wall_s` of wall time. On a quiet
machine a call past that is a page script in a loop; on a busy one it may be a renderer or a
SwiftShader GPU process that got a fraction of a core. So the cap means CPU: a call is hung when
- a renderer has run it for the cap in CPU seconds (a script that never returns does so on a busy
  machine as on a quiet one, later in wall time; a call that needs less finishes on both);
- or the GPU process has worked on it for GPU_SPIN_FACTOR caps (a shader that never ends);
- or nothing of the page ran for a whole cap of wall time (a call waiting on nothing is not slowed
  by load).
Otherwise the page is still working (a starved renderer running its callbacks, queued WebGL frames
being rendered) and the call goes on. The page's wall-clock budget stays the safety net: when it
ends a call the page's status is `timeout` (an evaluator outcome, retried), not `hang`.

Reading /proc costs a few milliseconds, which a page's hundreds of short calls should not pay, so
watching starts only WATCH_FROM into the cap; the CPU a call used before that is estimated from the
share of a core it got while watched.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from webmend.browser.launch import process_tree_cpu

WATCH_FROM = 0.25  # share of the cap after which a call's CPU is watched
CHECK_EVERY = 0.1  # past the cap, how often (share of the cap) a call is looked at again
GPU_SPIN_FACTOR = 4.0  # GPU-process CPU, in caps, that makes a call a shader that never ends
IDLE_CPU_S = 0.1  # CPU seconds of every page process over a cap of wall time below which nothing ran


@dataclass(frozen=True)
class CpuSnapshot:
    at: float  # time.monotonic()
    renderers: dict[int, float]  # pid -> CPU seconds so far
    others: float  # the GPU processes' (and other Chromium helpers') CPU seconds so far

    @classmethod
    def now(cls) -> "CpuSnapshot":
        renderers, others = {}, 0.0
        for pid, used in process_tree_cpu().items():
            kind = _process_type(pid)
            if kind == "renderer":
                renderers[pid] = used
            elif kind is not None:
                others += used
        return cls(time.monotonic(), renderers, others)

    def total(self) -> float:
        return sum(self.renderers.values()) + self.others


class StepWatch:
    """One guarded call, watched from `watch_at_s` seconds after it started: `stuck()` says, each
    time it is asked, whether the call is hung and why ("spinning", "gpu", "idle"), or None."""

    def __init__(self, cap_s: float, watch_at_s: float, start: CpuSnapshot | None = None):
        self.cap_s = cap_s
        self.start = start or CpuSnapshot.now()
        self.began = self.start.at - watch_at_s  # when the call started
        self.samples = [self.start]

    def stuck(self, now: CpuSnapshot | None = None) -> str | None:
        now = now or CpuSnapshot.now()
        self.samples.append(now)
        watched = max(now.at - self.start.at, 1e-6)
        # Before watching began the call got about the same share of a core as since.
        scale = (now.at - self.began) / watched
        spun = max((used - self.start.renderers.get(pid, 0.0) for pid, used in now.renderers.items()), default=0.0)
        if spun * scale >= self.cap_s:
            return "spinning"
        if (now.others - self.start.others) * scale >= GPU_SPIN_FACTOR * self.cap_s:
            return "gpu"
        window = [s for s in self.samples if s.at <= now.at - self.cap_s]
        if window and now.total() - window[-1].total() < IDLE_CPU_S:
            return "idle"
        return None


def _process_type(pid: int) -> str | None:
    """Chromium's --type= of a process (None: not a Chromium helper, e.g. the driver or the browser)."""
    try:
        # Zygote children rewrite their command line into one space-separated string.
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    at = cmdline.find(b"--type=")
    if at < 0:
        return None
    value = cmdline[at + len(b"--type="):].replace(b"\x00", b" ").split(b" ", 1)[0]
    return value.decode(errors="replace")
