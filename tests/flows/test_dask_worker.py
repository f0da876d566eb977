"""Dask workers close their warm Chromium when they shut down (the CloseBrowsers worker plugin),
and Dask logs at WARNING unless the user asks for more."""

from __future__ import annotations

import logging

import psutil
import pytest
from conftest import FIXTURES
from distributed import Client, LocalCluster
from flow_fixtures import chromium_under

from webmend.browser.worker import close_browsers
from webmend.config import EvalConfig
from webmend.flows import dask_worker, tasks
from webmend.pool import batches

CLUSTER = {"n_workers": 2, "threads_per_worker": 1, "processes": True, "dashboard_address": None,
           "host": "127.0.0.1"}


def already_running() -> frozenset[int]:
    """Chromium this test process had before the test: the session's shared browser, when an
    earlier test started it, is not one the code under test must close."""
    return frozenset(p.pid for p in chromium_under(psutil.Process()))


def one_page_batches(n: int) -> list[batches.Batch]:
    """n one-page batches of a small fixture page (about 3 s each)."""
    inputs = batches.read_corpus([FIXTURES / "pages" / "console_errors.html"]) * n
    return batches.cut_batches(inputs, {}, EvalConfig().config_hash(), batch_size=1)


def run_on_cluster() -> tuple[list[dict], list[psutil.Process], list[psutil.Process]]:
    """Evaluate one page per worker; return (records, Chromium seen while open, survivors of close)."""
    me, before = psutil.Process(), already_running()
    with LocalCluster(**CLUSTER) as cluster, Client(cluster) as client:
        dask_worker.register(client)
        futures = [client.submit(batches.evaluate_batch, b, EvalConfig().model_dump_json(), pure=False, workers=[w])
                   for b, w in zip(one_page_batches(2), client.scheduler_info()["workers"])]
        records = [r for f in futures for r in f.result()]
        browsers = chromium_under(me, before)
    survivors = [p for p in browsers if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    return records, browsers, survivors


def test_closing_a_local_cluster_leaves_no_chromium():
    records, browsers, survivors = run_on_cluster()
    assert [r["status"] for r in records] == ["ok", "ok"]
    assert len({p.pid for p in browsers}) >= 2  # each worker had its own browser
    assert survivors == []  # checked at once: without the plugin the orphaned Chromium is still up here


def test_the_flows_runner_closes_browsers_when_its_work_is_done(dask_log_level):
    me, before = psutil.Process(), already_running()
    with dask_worker.running(tasks.dask_runner(n_workers=1)) as runner:
        client = runner.client
        batch = one_page_batches(1)[0]
        assert client.submit(batches.evaluate_batch, batch, EvalConfig().model_dump_json()).result()[0]["status"] == "ok"
        browsers = chromium_under(me, before)
        plugins = client.run(lambda dask_worker: sorted(dask_worker.plugins))
    assert browsers
    assert all(dask_worker.PLUGIN_NAME in names for names in plugins.values())
    assert [p for p in browsers if p.is_running() and p.status() != psutil.STATUS_ZOMBIE] == []


def test_close_browsers_closes_them_and_a_later_batch_starts_afresh():
    me, batch, before = psutil.Process(), one_page_batches(1)[0], already_running()
    try:
        assert batches.evaluate_batch(batch, EvalConfig().model_dump_json())[0]["status"] == "ok"
        browsers = chromium_under(me, before)
        assert browsers
        assert close_browsers() == 1
        assert not any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in browsers)
        assert batches.evaluate_batch(batch, EvalConfig().model_dump_json())[0]["status"] == "ok"  # a fresh browser
    finally:
        close_browsers()
    assert chromium_under(me, before) == []


@pytest.fixture
def dask_log_level(monkeypatch):
    """Run with DASK_LOGGING__DISTRIBUTED unset; restore this process's distributed log level after."""
    monkeypatch.delenv(dask_worker.LOG_LEVEL_ENV, raising=False)
    logger = logging.getLogger("distributed")
    level = logger.level
    yield monkeypatch
    logger.setLevel(level)


@pytest.mark.parametrize("asked, level", [(None, logging.WARNING), ("info", logging.INFO)])
def test_dask_logs_warnings_only_unless_asked(dask_log_level, asked, level):
    # Under Prefect the root logger prints everything that reaches it, so what counts is the level
    # of Dask's loggers: in this process (nannies, scheduler) and in every worker process.
    if asked:
        dask_log_level.setenv(dask_worker.LOG_LEVEL_ENV, asked)
    assert dask_worker.quiet_dask_logs() == (asked or "warning")
    with LocalCluster(**{**CLUSTER, "n_workers": 1}) as cluster, Client(cluster) as client:
        in_workers = client.run(lambda: logging.getLogger("distributed.worker").getEffectiveLevel())
    assert list(in_workers.values()) == [level]
    assert logging.getLogger("distributed.nanny").getEffectiveLevel() == level
