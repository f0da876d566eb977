"""Embedded defaults: a Prefect server on 127.0.0.1 with SQLite under a project-local PREFECT_HOME.

Used by scripts/prefect-local.sh (through `python -m webmend.flows.local`), the flow tests and the
pipeline benchmark. No Prefect import here: the server is a child process driven by its CLI.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

BIN = Path(sys.executable).parent
# Offline machines: no telemetry (otherwise Prefect logs errors about unreachable hosts).
QUIET = {"PREFECT_SERVER_ANALYTICS_ENABLED": "false", "DO_NOT_TRACK": "1",
         "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "90"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def prefect_env(home: str | Path, api_url: str | None = None, base: dict | None = None) -> dict:
    """Environment for Prefect commands: project-local PREFECT_HOME (SQLite lives there), no telemetry."""
    env = dict(os.environ if base is None else base)
    env.update(QUIET, PREFECT_HOME=str(Path(home).resolve()))
    if api_url:
        env["PREFECT_API_URL"] = api_url
    return env


def healthy(api_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{api_url}/health", timeout=2) as resp:
            return resp.status == 200
    except OSError:
        return False


def wait_healthy(api_url: str, timeout: float = 120, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not healthy(api_url):
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"prefect server exited with {proc.returncode}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"no Prefect server at {api_url} after {timeout:.0f}s")
        time.sleep(0.5)


def start_server(home: str | Path, port: int, log_path: str | Path | None = None,
                 scheduler: bool = True) -> subprocess.Popen:
    """`prefect server start` on 127.0.0.1:port in its own process group (so it can be stopped whole).

    scheduler=False: no scheduled runs are created (tests deploy the nightly schedule but must not run it).
    """
    Path(home).mkdir(parents=True, exist_ok=True)
    log = open(log_path or Path(home) / "server.log", "ab")
    cmd = [str(BIN / "prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(port),
           "--analytics-off", "--no-ui"] + ([] if scheduler else ["--no-scheduler"])
    return subprocess.Popen(cmd, env=prefect_env(home), stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)


def stop(proc: subprocess.Popen, timeout: float = 20) -> None:
    """SIGTERM the process group (Prefect workers and servers stop on SIGTERM, not SIGINT), then SIGKILL."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=timeout)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


@contextmanager
def local_server(home: str | Path, port: int | None = None, scheduler: bool = True) -> Iterator[str]:
    """A started Prefect server; yields its API URL and stops it on exit."""
    port = port or free_port()
    api_url = f"http://127.0.0.1:{port}/api"
    proc = start_server(home, port, scheduler=scheduler)
    try:
        wait_healthy(api_url, proc=proc)
        yield api_url
    finally:
        stop(proc)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="wait for a local Prefect server (used by scripts/prefect-local.sh)")
    p.add_argument("api_url")
    p.add_argument("--timeout", type=float, default=120)
    args = p.parse_args(argv)
    try:
        wait_healthy(args.api_url, args.timeout)
    except TimeoutError as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
