"""Helpers for the build-refined-pool tests: small real corpora, flow processes, process trees."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil
from conftest import FIXTURES, ROOT

from webmend.store.duckdb_views import connect

SAMPLES = ROOT / "data" / "samples"
FIXTURE_PAGES = ["console_errors", "dead_buttons", "mobile_overflow", "good_app"]  # about 3 s each


def sample_subset(folder: Path, ids: list[str], malformed: bool = True) -> Path:
    """A responses JSONL with the sample answers of these ids, plus one line that is not JSON."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = [line for line in (SAMPLES / "responses.jsonl").read_text().splitlines()
             if json.loads(line)["id"] in ids]
    assert len(lines) == len(ids)
    if malformed:
        lines.append('{"id": "broken-line", "response": "<html>')  # cut off: invalid JSON
    path = folder / "responses.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def small_pages(folder: Path, copies: int = 2) -> Path:
    """copies x the small fixture pages, each copy distinct in content (so in content hash)."""
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(copies):
        for name in FIXTURE_PAGES:
            html = (FIXTURES / "pages" / f"{name}.html").read_text()
            (folder / f"{name}_{n}.html").write_text(html.replace("</body>", f"<!-- copy {n} --></body>", 1))
    return folder


def flow_command(data_root: Path, *, pages: list[Path] = (), responses: list[Path] = (), items: Path | None = None,
                 batch_size: int = 2, n_workers: int = 1) -> list[str]:
    cmd = [sys.executable, "-m", "webmend.flows.build_refined_pool", *map(str, pages),
           "--data-root", str(data_root), "--batch-size", str(batch_size), "--n-workers", str(n_workers)]
    for r in responses:
        cmd += ["--responses", str(r)]
    if items:
        cmd += ["--items", str(items)]
    return cmd


def start_flow(cmd: list[str], env: dict, log: Path) -> subprocess.Popen:
    """The flow in its own session, so it can be killed with everything it started."""
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=open(log, "ab"), stderr=subprocess.STDOUT,
                            start_new_session=True)


def kill_tree(proc: psutil.Process | int) -> list[int]:
    """SIGKILL a process and all its descendants (Dask workers, Playwright drivers, Chromium)."""
    try:
        proc = proc if isinstance(proc, psutil.Process) else psutil.Process(proc)
        family = [proc] + proc.children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    for p in family:
        try:
            p.send_signal(signal.SIGKILL)
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(family, timeout=10)
    return [p.pid for p in family]


def kill_session(proc: subprocess.Popen) -> None:
    """SIGKILL a flow started by start_flow: its process group and any descendant that left it."""
    kill_tree(proc.pid)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def chromium_under(proc: psutil.Process, ignore: frozenset[int] = frozenset()) -> list[psutil.Process]:
    """Chromium processes below `proc`, except the pids in `ignore` (e.g. the test session's own
    shared browser, started by an earlier test)."""
    out = []
    for child in proc.children(recursive=True):
        try:
            if ("chromium" in child.name() or "chrome" in child.name()) and child.pid not in ignore:
                out.append(child)
        except psutil.NoSuchProcess:
            pass
    return out


def query(root: Path, sql: str) -> list[tuple]:
    with connect(str(root)) as con:
        return con.execute(sql).fetchall()


def log_tail(log: Path, n: int = 4000) -> str:
    return log.read_text(errors="replace")[-n:] if log.exists() else ""
