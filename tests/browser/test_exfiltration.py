"""One fixture per network channel: nothing reaches a listener on 127.0.0.1, and each attempt is evidence.

These run with the network namespace OFF, so only the in-browser defences (routes, proxy and
resolver flags, WebRTC policy, init-script containment) stand between the page and the sink.
"""

from __future__ import annotations

import socket
import threading

import pytest
from conftest import FIXTURES, case

from webmend.browser.worker import BrowserWorker
from webmend.config import EvalConfig
from webmend.evaluate.page import evaluate_page

# channel fixture -> (where the attempt shows up, expected detail)
EXPECTED = {
    "fetch": ("blocked", "fetch"),
    "xhr": ("blocked", "xhr"),
    "image": ("blocked", "image"),
    "css_background": ("blocked", "image"),
    "css_import": ("blocked", "stylesheet"),
    "font": ("blocked", "font"),
    "iframe": ("blocked", "document"),
    "form_post": ("blocked", "document"),
    "websocket": ("blocked", "websocket"),
    "eventsource": ("blocked", "eventsource"),
    "beacon": ("blocked", "ping"),
    "a_ping": ("blocked", "ping"),
    "worker": ("contained", "worker_blocked"),  # past the first, workers are refused at creation
    "prefetch": ("blocked", None),
    "script_tag": ("blocked", "script"),
    "meta_refresh": ("blocked", "document"),
    "navigation": ("blocked", "document"),
    "file_url": ("local", None),
    "chrome_url": ("local", None),
    "webrtc": ("contained", "webrtc"),
    "service_worker": ("contained", "service_worker"),
    "window_open": ("contained", "popup"),
    "preconnect": (None, None),  # a connection hint makes no request; the sink count is the check
}


class Sink:
    """TCP and UDP listeners on one loopback port that count everything that arrives."""

    def __init__(self):
        self.tcp = socket.socket()
        self.tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(64)
        self.port = self.tcp.getsockname()[1]
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", self.port))
        self.connections = 0
        self.datagrams = 0
        for target in (self._accept, self._receive):
            threading.Thread(target=target, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.tcp.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()

    def _receive(self):
        while True:
            try:
                self.udp.recvfrom(65536)
            except OSError:
                return
            self.datagrams += 1

    def fill(self, html: str) -> str:
        return (html.replace("{{SINK}}", f"http://127.0.0.1:{self.port}")
                .replace("{{SINK_HOST}}", "127.0.0.1").replace("{{SINK_PORT}}", str(self.port)))

    def close(self):
        self.tcp.close()
        self.udp.close()


@pytest.fixture(scope="module")
def sink():
    s = Sink()
    yield s
    s.close()


@pytest.fixture(scope="module")
def no_netns():
    cfg = EvalConfig.model_validate({"sandbox": {"netns": "off"}})
    w = BrowserWorker(cfg)
    yield cfg, w
    w.close()


GO = {"id": "go", "test_cases": [case(
    {"action": "click", "selector": "#go"},
    {"action": "wait", "ms": 1000},
    {"action": "assert_js_value", "expression": "window.exfil.successes === 0", "expected": True},
)]}


def test_the_sink_counts_what_reaches_it(sink):
    before = sink.connections
    _poke(sink.port)
    assert sink.connections == before + 1


def _poke(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=5):
        pass
    import time

    time.sleep(0.2)  # let the accept thread count it


def test_every_channel_has_a_fixture():
    assert sorted(p.stem for p in (FIXTURES / "exfil").glob("*.html")) == sorted(EXPECTED)


@pytest.mark.parametrize("channel", sorted(EXPECTED))
def test_channel_reaches_nothing(channel, sink, no_netns):
    cfg, worker = no_netns
    html = sink.fill((FIXTURES / "exfil" / f"{channel}.html").read_text())
    before = (sink.connections, sink.datagrams)
    ev = evaluate_page(html, cfg, GO, worker=worker)
    assert (sink.connections, sink.datagrams) == before, "the sink was reached"
    assert not worker.isolated_network
    # Refused navigations are answered 204, so no channel replaces the page: the click on #go
    # lands, the attempt fires again, and the page's own success counter is still 0.
    assert ev["status"] == "ok", ev["reason"]
    test = ev["tests"][0]
    assert test["passed"] and test["failed_step"] is None and test["error"] is None, test
    where, detail = EXPECTED[channel]
    blocked = ev["network"]["blocked"]
    if where == "blocked":
        assert blocked and all("?" not in b["url"] for b in blocked)  # query strings never recorded
        assert all("SECRET" not in b["url"] for b in blocked)
        if detail:
            assert detail in {b["channel"] for b in blocked}, blocked
    elif where == "local":
        assert ev["events"]["refused_local"] and "local_file_blocked" in ev["flags"]
        assert ev["events"]["console_error_count"] == 0  # our refusals are not the page's errors
    elif where == "contained":
        assert ev["events"]["contained"].get(detail, 0) > 0, ev["events"]["contained"]


def test_netns_isolation_when_available(sink, evaluate, worker):
    from webmend.browser.launch import netns_available

    html = sink.fill((FIXTURES / "exfil" / "fetch.html").read_text())
    before = sink.connections
    ev = evaluate(html, GO)
    assert sink.connections == before
    assert worker.isolated_network == netns_available()
    assert ev["tests"][0]["passed"]
