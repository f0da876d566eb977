"""The CDN mirror server (webmend.cdn.serve): same bytes as the resolver, nothing else, gone
with its parent; and pages in Chromium get their libraries through it with the same verdicts."""

import base64
import hashlib
import http.client
import os
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from cdn_fixtures import mirror  # noqa: F401  (pytest fixtures)

from webmend.browser.launch import launch_args
from webmend.browser.mirror import _free_port
from webmend.cdn.serve import MIRROR_HOST, make_certificate, mirror_url, resolver_rule

ROOT = Path(__file__).resolve().parents[2]
THREE = "https://cdnjs.cloudflare.com/ajax/libs/three.js/r128/three.min.js"
FONT_CSS = "https://fonts.googleapis.com/css2?family=Inter:wght@400;700&display=swap"


def _wait_for(path: Path, seconds: float = 20) -> str:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        time.sleep(0.05)
    raise AssertionError(f"no status in {path} after {seconds}s")


def _get(port: int, url: str) -> http.client.HTTPResponse:
    ctx = ssl.create_default_context()
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE  # the server's throwaway certificate
    conn = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=20)
    parts = urlsplit(mirror_url(port, url))
    conn.request("GET", parts.path, headers={"host": MIRROR_HOST})
    return conn.getresponse()


@pytest.fixture
def server(tmp_path, mirror):  # noqa: F811
    port, status = _free_port(), tmp_path / "status"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "WEBMEND_CDN_DIR": str(mirror.root)}
    proc = subprocess.Popen([sys.executable, "-m", "webmend.cdn.serve", "--port", str(port), "--ready", str(status)],
                            env=env)
    try:
        assert _wait_for(status) == "ok"
        yield port
    finally:
        proc.kill()
        proc.wait()


def test_mirror_url_keeps_the_whole_cdn_url():
    url = mirror_url(4443, FONT_CSS)
    parts = urlsplit(url)
    assert (parts.hostname, parts.port, parts.query) == (MIRROR_HOST, 4443, "")  # the query is inside the path
    assert resolver_rule(4443) == f"MAP {MIRROR_HOST} 127.0.0.1:4443"


def test_launch_flags_name_only_the_mirror_host():
    plain = " ".join(launch_args(512))
    assert "--host-resolver-rules=MAP * ~NOTFOUND" in plain and MIRROR_HOST not in plain
    args = launch_args(512, "raster", 4443)
    rules = next(a for a in args if a.startswith("--host-resolver-rules="))
    assert rules == f"--host-resolver-rules=MAP {MIRROR_HOST} 127.0.0.1:4443, MAP * ~NOTFOUND"
    assert f"--proxy-bypass-list=<-loopback>;{MIRROR_HOST}" in args
    assert "--ip-address-space-overrides=127.0.0.1:4443=public" in args
    assert not any(a.startswith("--ignore-certificate-errors-spki-list") for a in args)
    pinned = launch_args(512, "raster", 4443, "c2hhMjU2")
    assert "--ignore-certificate-errors-spki-list=c2hhMjU2" in pinned
    assert "--ignore-certificate-errors" not in pinned  # only that key is trusted, not every certificate


def test_the_pinned_key_is_the_one_the_server_presents(tmp_path, mirror):  # noqa: F811
    cert, key, spki = make_certificate(tmp_path)
    port, status = _free_port(), tmp_path / "status"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "WEBMEND_CDN_DIR": str(mirror.root)}
    proc = subprocess.Popen([sys.executable, "-m", "webmend.cdn.serve", "--port", str(port), "--ready", str(status),
                             "--cert", str(cert), "--key", str(key)], env=env)
    try:
        assert _wait_for(status) == "ok"
        ctx = ssl.create_default_context()
        ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
        with socket.create_connection(("127.0.0.1", port), timeout=20) as raw:
            with ctx.wrap_socket(raw, server_hostname=MIRROR_HOST) as tls:
                der = tls.getpeercert(binary_form=True)
    finally:
        proc.kill()
        proc.wait()
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    pub = x509.load_der_x509_certificate(der).public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    assert base64.b64encode(hashlib.sha256(pub).digest()).decode() == spki


def test_server_answers_exactly_what_the_resolver_serves(server, mirror):  # noqa: F811
    for url in (THREE, FONT_CSS):
        served = mirror.lookup(url)
        res = _get(server, url)
        assert res.status == 200
        assert res.read() == served.body
        assert res.getheader("content-type") == served.content_type
        assert res.getheader("access-control-allow-origin") == "*"


def test_server_refuses_what_the_mirror_does_not_hold(server):
    res = _get(server, "https://evil.example/steal?token=1")
    assert res.status == 404 and res.read() == b""


def test_server_ends_with_its_parent(tmp_path, mirror):  # noqa: F811
    """Started the way the launcher does it: a shell that then becomes another program."""
    status, pidfile = tmp_path / "status", tmp_path / "pid"
    script = (f'PYTHONPATH="{ROOT}" WEBMEND_CDN_DIR="{mirror.root}" "{sys.executable}" -m webmend.cdn.serve '
              f'--port {_free_port()} --ready "{status}" </dev/null & echo $! > "{pidfile}"; exec sleep 3')
    subprocess.run(["sh", "-c", script], check=True, timeout=60)
    pid = int(pidfile.read_text())
    end = time.monotonic() + 10
    while time.monotonic() < end and Path(f"/proc/{pid}").exists():
        time.sleep(0.1)
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split(")")[1][:3]


def test_a_server_that_did_not_come_up_is_reported_and_not_used(tmp_path, caplog):
    from webmend.browser.mirror import MirrorServer
    from webmend.config import EvalConfig

    assert MirrorServer.plan(EvalConfig(cdn_server=False)) is None
    plan = MirrorServer.plan(EvalConfig())
    assert plan.cert.exists() and plan.key.exists() and len(plan.spki) == 44
    assert not plan.started()  # the launcher never ran: no status file
    assert "no status" in caplog.text
    plan.status_file.write_text("failed: OSError: address in use\n")
    assert not plan.started() and "address in use" in caplog.text
    assert plan.status_file.parent.exists()  # kept, with the server's log, for whoever reads the warning
    plan.status_file.write_text("ok\n")
    assert plan.started()
    assert not plan.status_file.parent.exists()  # the key and certificate are not left behind
