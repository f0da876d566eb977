"""Shared fixtures: one warm Chromium for the whole session, as the evaluator uses it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import pytest

from webmend.browser.evidence import PageEvents
from webmend.browser.network import NetworkLog, RequestPolicy
from webmend.browser.session import PageSession, PageShared
from webmend.browser.worker import BrowserWorker
from webmend.config import EvalConfig
from webmend.evaluate.page import evaluate_page

ROOT = Path(__file__).resolve().parent.parent
# torch tests: they run in the training environment, in `make test`'s second pytest run
collect_ignore = ["training/trainenv"]
FIXTURES = ROOT / "data" / "fixtures"


def sigkill_when(args: list[str], ready: Callable[[], bool], *, cwd: Path = ROOT, timeout_s: float = 300) -> None:
    """Run `python ARGS` in its own session and SIGKILL the whole session (the process, its
    browsers and drivers: no cleanup runs) as soon as `ready()`; fails if it ended before that."""
    proc = subprocess.Popen([sys.executable, *args], cwd=cwd, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + timeout_s
        while proc.poll() is None and time.monotonic() < deadline and not ready():
            time.sleep(0.01)
        assert proc.poll() is None, f"{args[:3]} ended before it could be killed"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def alive(p) -> bool:
    """Whether a psutil.Process still runs (a zombie or a gone process does not)."""
    import psutil

    try:
        return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.fixture(scope="session")
def cfg() -> EvalConfig:
    return EvalConfig()


@pytest.fixture(scope="session")
def worker(cfg):
    w = BrowserWorker(cfg)
    yield w
    w.close()


@pytest.fixture(scope="session")
def evaluate(worker, cfg):
    """evaluate(html, item=None, **limits) -> evaluation dict, on the shared browser."""

    def run(html: str, item: dict | None = None, cfg_: EvalConfig | None = None) -> dict:
        return evaluate_page(html, cfg_ or cfg, item, worker=worker)

    return run


def fixture_html(rel: str) -> str:
    return (FIXTURES / rel).read_text(encoding="utf-8")


def drive_session(worker, cfg, html: str, steps, profile: str = "raster", step_wall_s: float = 60) -> tuple[object, dict]:
    """Load `html` in a real page session and return (await steps(session), page events)."""
    events = PageEvents()

    async def job(browser):
        shared = PageShared(cfg=cfg, policy=RequestPolicy(html, None, NetworkLog(), 3), events=events, step_wall_s=step_wall_s, profile=profile)
        session = PageSession(browser, shared)
        try:
            await session.open()
            await session.load(1)
            return await steps(session)
        finally:
            await session.close()

    return worker.run(job, wall_s=240, profile=profile), events.to_dict()


def case(*steps, id="tc", weight=2) -> dict:
    return {"id": id, "name": id, "weight": weight, "steps": list(steps)}


@pytest.fixture
def llm_server():
    """A started scripted OpenAI-compatible server on 127.0.0.1 (tests/llm/llm_server.py)."""
    from llm.llm_server import ScriptedLLMServer

    with ScriptedLLMServer() as server:
        yield server


@pytest.fixture(scope="session")
def prefect_api(tmp_path_factory):
    """A real Prefect server on a free 127.0.0.1 port with a temporary PREFECT_HOME (no scheduler).

    Yields (api_url, env): env points Prefect commands and flow processes at it.
    """
    from webmend.flows.local import local_server, prefect_env

    home = tmp_path_factory.mktemp("prefect-home")
    with local_server(home, scheduler=False) as api_url:
        yield api_url, prefect_env(home, api_url)
