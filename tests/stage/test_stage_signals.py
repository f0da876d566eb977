"""stage.signals: SIGTERM/SIGINT end the processes a run started, even ones that ignore SIGTERM.
Each case runs in its own Python process: ending descendants here would end the test session's browsers."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import psutil
import pytest
from conftest import alive

# A run that started two children: one ends on SIGTERM, one ignores it (only SIGKILL ends it).
RUN = """
import subprocess, sys, time
from webmend.stage import signals
signals.GRACE_S = 1.0
with signals.ending_children():
    subprocess.Popen(["sleep", "120"])
    subprocess.Popen(["sh", "-c", "trap '' TERM; sleep 120 & wait"])
    print("ready", flush=True)
    time.sleep(120)
"""


def start_run() -> tuple[subprocess.Popen, list[psutil.Process]]:
    proc = subprocess.Popen([sys.executable, "-c", RUN], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    assert proc.stdout.readline().strip() == "ready"
    deadline = time.monotonic() + 10
    while len(kids := psutil.Process(proc.pid).children(recursive=True)) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    return proc, kids


@pytest.mark.parametrize("sig, rc", [(signal.SIGTERM, 128 + signal.SIGTERM), (signal.SIGINT, -signal.SIGINT)])
def test_a_stopped_run_ends_its_descendants(sig, rc):
    proc, kids = start_run()
    try:
        assert len(kids) >= 3  # sleep, sh and its sleep
        proc.send_signal(sig)
        assert proc.wait(timeout=30) == rc  # SIGINT: KeyboardInterrupt after the ending (Python then ends itself by SIGINT)
        time.sleep(0.3)
        assert [p.name() for p in kids if alive(p)] == []
        assert f"stopped by {signal.Signals(sig).name}: ended" in proc.stderr.read()
    finally:
        for p in kids:
            if alive(p):
                p.kill()
        if proc.poll() is None:
            proc.kill()
