"""A Dask worker SIGKILLed mid-batch, its Chromium with it: the lost batch runs again on another
worker and every page still ends with exactly one record (build-refined-pool on the local cluster).
(Observed: the local cluster's nanny does not bring the killed worker back; the surviving worker
runs the lost batch after its own.)
"""

from __future__ import annotations

import time

import psutil
from flow_fixtures import (
    chromium_under,
    flow_command,
    kill_session,
    kill_tree,
    log_tail,
    query,
    small_pages,
    start_flow,
)

BATCH_SIZE = 4  # 2 batches for 2 workers: both run at once, each one page after another


def dask_workers(flow: psutil.Process) -> list[psutil.Process]:
    """The Dask worker processes under the flow (python processes without python children: not the nannies)."""
    out = []
    for proc in flow.children(recursive=True):
        try:
            if proc.name().startswith("python") and not any(c.name().startswith("python") for c in proc.children()):
                out.append(proc)
        except psutil.NoSuchProcess:
            continue
    return out


def busy_dask_worker(flow: psutil.Process) -> psutil.Process | None:
    """The Dask worker process that has a Chromium under it (it is evaluating a batch)."""
    for proc in dask_workers(flow):
        try:
            if chromium_under(proc):
                return proc
        except psutil.NoSuchProcess:
            continue
    return None


def page_open(proc: psutil.Process) -> bool:
    """A Chromium renderer under the worker: a page is being evaluated in its browser."""
    for child in chromium_under(proc):
        try:
            if "--type=renderer" in child.cmdline():
                return True
        except psutil.NoSuchProcess:
            continue
    return False


def wait_for(what: str, check, proc, log, timeout: float = 240):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if found := check():
            return found
        time.sleep(0.1)  # polling an event, not a guess at timing
    raise AssertionError(f"never saw {what}\n" + log_tail(log))


def committed(data_root) -> set[str]:
    folder = data_root / "evaluations"
    return {p.name for p in folder.glob("*.parquet")} if folder.exists() else set()


def test_a_worker_killed_mid_batch_loses_no_page(prefect_api, tmp_path):
    _, env = prefect_api
    env = {**env, "DASK_LOGGING__DISTRIBUTED": "info"}  # the nanny's INFO lines below say what Dask saw
    pages = small_pages(tmp_path / "pages", copies=2)  # 8 pages: 2 batches of 4
    data_root, log = tmp_path / "data", tmp_path / "flow.log"
    proc = start_flow(flow_command(data_root, pages=[pages], batch_size=BATCH_SIZE, n_workers=2), env, log)
    try:
        flow = psutil.Process(proc.pid)
        victim = wait_for("a Dask worker with a browser", lambda: busy_dask_worker(flow), proc, log)
        wait_for("a page open in the victim's browser", lambda: page_open(victim), proc, log)
        # Mid-batch: a page is being evaluated and no batch is written, so the victim's batch
        # (whichever of the two it is) exists only in the victim's memory.
        assert committed(data_root) == set(), "a batch was written before the kill"
        killed = kill_tree(victim)  # the worker, its Playwright driver and Chromium, all SIGKILL
        assert len(killed) >= 3 and victim.pid in killed
        assert proc.wait(timeout=480) == 0, log_tail(log)
    finally:
        kill_session(proc)

    rows = query(data_root, "SELECT id, status, count(*) OVER (PARTITION BY id) FROM evaluations ORDER BY input_index")
    assert [r[0] for r in rows] == sorted(f"{name}_{n}" for n in range(2) for name in
                                          ("console_errors", "dead_buttons", "good_app", "mobile_overflow"))
    assert all(r[1] == "ok" and r[2] == 1 for r in rows), rows  # every page exactly once, the lost batch's too
    assert len(committed(data_root)) == 2  # each batch written once, under its own key
    flow_log = log_tail(log, 1_000_000)
    died = flow_log.find(f"Worker process {victim.pid} was killed by signal 9")
    assert died >= 0, flow_log[-4000:]  # Dask saw it die
    for n in range(2):
        # Each batch completed (so was written) exactly once, and only after the victim died: the
        # victim's batch, which existed only in its memory, was evaluated again from the start.
        for line in (f"Task run 'evaluate-batch-{n}' - Finished in state Completed()",
                     f"Task run 'write-traces-{n}' - Finished in state Completed()"):
            assert flow_log.count(line) == 1, line
            assert flow_log.index(line) > died, line
