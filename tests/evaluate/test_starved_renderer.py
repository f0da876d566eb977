"""A starved renderer gives the same record: a WebGL page whose clock steps take longer than the
step cap in wall time when its browser gets a third of a core, but far less than the cap in CPU,
is evaluated as on a quiet machine. Before the cap counted CPU (browser/step_progress.py) the
starved run was `hang` ("page hung during run_for 1000"), 28 s instead of 10."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from conftest import FIXTURES

from webmend.config import EvalConfig
from webmend.evaluate.page import evaluate_page
from webmend.evaluate.replay_check import comparable, first_difference

PAGE = (FIXTURES / "gl" / "busy_scene.html").read_text()
ITEM = {"id": "busy_scene", "test_cases": [{"id": "frames", "name": "the scene keeps drawing", "weight": 1, "steps": [
    {"action": "wait", "ms": 3000}, {"action": "assert_js_value", "expression": "window.frames >= 150"}]}]}
# Caps small enough that starving the renderer to a quarter of a core takes a clock step past
# them in wall time (64 frames of about 8 ms of script: about 0.5 s of CPU per step).
CFG = EvalConfig.model_validate({"limits": {"step_wall_s": 1.0, "gl_wall_factor": 1.5},
                                 "experience": {"layer3": "never"}})
SPINNERS = 3
GROUP_NICE = 5  # measured: the renderer then gets about a third of the core beside the spinners


def spinner(core: int) -> subprocess.Popen:
    """A CPU-bound neighbour on `core` (its own interpreter: a fork of this threaded process could
    block on a lock a browser thread held, and sleep instead of spinning)."""
    return subprocess.Popen([sys.executable, "-c", f"import os\nos.sched_setaffinity(0, {{{core}}})\nwhile True: pass"])


def pin_chromium(core: int) -> dict[psutil.Process, list[int]]:
    """Pin this process's Chromium processes to one core (the zygotes too, so the renderers they
    start next are pinned as well); returns their former cores."""
    pinned = {}
    for p in psutil.Process().children(recursive=True):
        try:
            if "chrom" in p.name():
                pinned[p] = p.cpu_affinity()
                p.cpu_affinity([core])
        except psutil.NoSuchProcess:  # a renderer of the last page, gone meanwhile
            pinned.pop(p, None)
    return pinned


def weigh_down(pids, nice: int) -> dict[str, tuple[int, int]]:
    """With autogroup scheduling (sessions share a core fairly, whatever runs in each), neighbours
    in another session cannot take more than half a core from Chromium, which runs in a session
    of its own: lower its session group's weight (root). Returns {group: (pid, former nice)}."""
    groups = {}
    for pid in pids:
        path = Path(f"/proc/{pid}/autogroup")
        try:
            name, _, former = path.read_text().split()
        except (OSError, ValueError):
            continue
        if name not in groups:
            path.write_text(str(nice))
            groups[name] = (pid, int(former))
    return groups


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2 or os.geteuid() != 0,
                    reason="needs a core to starve and one for the test, and root to weigh Chromium's session down")
def test_a_starved_renderer_gives_the_record_a_quiet_one_does(worker):
    quiet = evaluate_page(PAGE, CFG, ITEM, worker=worker)
    assert quiet["status"] == "ok", quiet["reason"]
    core = min(os.sched_getaffinity(0))
    pinned = pin_chromium(core)
    groups = weigh_down([p.pid for p in pinned], GROUP_NICE)
    spinners = [spinner(core) for _ in range(SPINNERS)]
    try:
        starved = evaluate_page(PAGE, CFG, ITEM, worker=worker)
    finally:
        for s in spinners:
            s.kill()
            s.wait()
        for pid, nice in groups.values():
            with contextlib.suppress(OSError):
                Path(f"/proc/{pid}/autogroup").write_text(str(nice))
        for p, cores in pinned.items():
            try:
                p.cpu_affinity(cores)
            except psutil.NoSuchProcess:
                pass
    assert comparable(starved) == comparable(quiet), first_difference(comparable(quiet), comparable(starved))
