"""The worker survives its browser: a killed Chromium is replaced and the next page is evaluated."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from conftest import case

from webmend.browser.worker import BrowserWorker

PAGE = "<!doctype html><html><body><h1 id=t>alive</h1></body></html>"
ITEM = {"id": "p", "test_cases": [case({"action": "assert_text_contains", "selector": "#t", "text": "alive"})]}


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _kill_browsers_of(worker: BrowserWorker) -> int:
    killed = 0
    for pid in _descendants(os.getpid()):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"chromium" in cmd and b"--type=" not in cmd:  # the browser process, not its helpers
            os.kill(pid, signal.SIGKILL)
            killed += 1
    return killed


def test_a_killed_browser_is_replaced(cfg):
    from webmend.evaluate.page import evaluate_page

    worker = BrowserWorker(cfg)
    try:
        assert evaluate_page(PAGE, cfg, ITEM, worker=worker)["tests"][0]["passed"]
        launches = worker.launches
        assert _kill_browsers_of(worker) >= 1
        ev = evaluate_page(PAGE, cfg, ITEM, worker=worker)
        assert ev["tests"][0]["passed"], ev["tests"]
        assert worker.launches == launches + 1
    finally:
        worker.close()


def _status(pid: int) -> dict[str, str]:
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return dict(line.split(":\t", 1) for line in lines if ":\t" in line)


def test_renderers_run_unprivileged_inside_chromiums_sandbox(cfg):
    from webmend.browser.launch import sandbox_available

    if not sandbox_available(cfg.sandbox.unprivileged_uid):
        pytest.skip("this OS allows no user namespaces for Chromium's sandbox (the fallback is logged)")

    async def renderers_while_open(browser):
        context = await browser.new_context()
        page = await context.new_page()
        await page.set_content(PAGE)
        found = [pid for pid in _descendants(os.getpid()) if b"--type=renderer" in _cmdline(pid)]
        return found, {pid: _status(pid) for pid in found}, {pid: os.readlink(f"/proc/{pid}/ns/user") for pid in found}

    worker = BrowserWorker(cfg)
    try:
        renderers, status, userns = worker.run(renderers_while_open, wall_s=60)
        assert worker.chromium_sandbox and worker.isolated_network
        assert renderers
        for pid in renderers:
            assert status[pid]["Uid"].split()[0] != "0" and status[pid]["Seccomp"].strip() == "2", status[pid]
            assert userns[pid] != os.readlink("/proc/self/ns/user")  # a user namespace of its own
    finally:
        worker.close()


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def test_only_the_gl_browser_has_a_gpu_process(worker):
    """The raster browser composites on a thread of its own process (launch.PROFILES: one IPC hop
    less per frame and capture); the gl browser keeps SwiftShader's WebGL work in a GPU process."""
    from webmend.browser.launch import profile_marker

    async def draw_a_frame(browser):
        context = await browser.new_context()
        page = await context.new_page()
        await page.set_content(PAGE)
        await page.screenshot()  # a composited frame: the GPU thread or process is running
        await context.close()

    def gpu_processes(profile: str) -> int:
        marker = profile_marker(profile).encode()
        browsers = [pid for pid in _descendants(os.getpid())
                    if marker in _cmdline(pid) and b"--type=" not in _cmdline(pid)]
        assert len(browsers) == 1, (profile, browsers)
        return sum(b"--type=gpu-process" in _cmdline(pid) for pid in _descendants(browsers[0]))

    found = {}
    for profile in ("raster", "gl"):
        worker.run(draw_a_frame, wall_s=60, profile=profile)
        found[profile] = gpu_processes(profile)
    assert found == {"raster": 0, "gl": 1}
