"""A Dask worker SIGKILLed mid-batch, its Chromium with it: the batch runs again on a restarted
worker and every page still ends with exactly one record (build-refined-pool on the local cluster).
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

BATCH_SIZE = 4  # a batch takes about 10 s, so the kill lands inside one


def busy_dask_worker(flow: psutil.Process) -> psutil.Process | None:
    """The Dask worker process that has a Chromium under it (it is evaluating a batch)."""
    for proc in flow.children(recursive=True):
        try:
            if proc.name().startswith("python") and chromium_under(proc) and not any(
                    c.name().startswith("python") for c in proc.children()):
                return proc
        except psutil.NoSuchProcess:
            continue
    return None


def test_a_worker_killed_mid_batch_loses_no_page(prefect_api, tmp_path):
    _, env = prefect_api
    env = {**env, "DASK_LOGGING__DISTRIBUTED": "info"}  # the nanny's INFO lines below say what Dask saw
    pages = small_pages(tmp_path / "pages", copies=2)  # 8 pages: 2 batches of 4
    data_root, log = tmp_path / "data", tmp_path / "flow.log"
    proc = start_flow(flow_command(data_root, pages=[pages], batch_size=BATCH_SIZE, n_workers=2), env, log)
    try:
        flow = psutil.Process(proc.pid)
        victim, deadline = None, time.monotonic() + 240
        while victim is None and time.monotonic() < deadline and proc.poll() is None:
            victim = busy_dask_worker(flow)
            time.sleep(0.2)
        assert victim is not None, "no Dask worker started a browser\n" + log_tail(log)
        time.sleep(3)  # into the batch: its browser is warm and pages are being evaluated
        committed_before = len(list((data_root / "evaluations").glob("*.parquet"))) if data_root.exists() else 0
        assert committed_before < 2  # the victim's batch is not written yet
        killed = kill_tree(victim)  # the worker, its Playwright driver and Chromium, all SIGKILL
        assert len(killed) >= 3
        assert proc.wait(timeout=480) == 0, log_tail(log)
    finally:
        kill_session(proc)

    rows = query(data_root, "SELECT id, status, count(*) OVER (PARTITION BY id) FROM evaluations ORDER BY input_index")
    assert [r[0] for r in rows] == sorted(f"{name}_{n}" for n in range(2) for name in
                                          ("console_errors", "dead_buttons", "good_app", "mobile_overflow"))
    assert all(r[1] == "ok" and r[2] == 1 for r in rows), rows
    assert len(list((data_root / "evaluations").glob("*.parquet"))) == 2
    flow_log = log_tail(log, 1_000_000)
    assert f"Worker process {victim.pid} was killed by signal 9" in flow_log  # Dask saw it die ...
    for n in range(2):  # ... and each batch completed (so was written) exactly once
        assert flow_log.count(f"Task run 'evaluate-batch-{n}' - Finished in state Completed()") == 1
        assert flow_log.count(f"Task run 'write-traces-{n}' - Finished in state Completed()") == 1
