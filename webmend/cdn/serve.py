"""The CDN mirror as an HTTPS server next to Chromium, inside its network namespace.

Why: answering a library request through the request route sends its body from Python through
Playwright's driver to Chromium as base64 JSON, on every fresh document. A page that loads
plotly (4.6 MB) paid about a second of CPU per test case for that alone. The route handler now
only rewrites such a request to this server (`mirror_url`), and the body travels over a socket.

The server is started by the Chromium launcher (launch.py) inside the same empty network
namespace, so nothing outside that namespace can reach it and it can reach nothing. It answers
`GET /u/<percent-encoded CDN URL>` with exactly what `CdnMirror.lookup` returns, and 404 otherwise.
It exits when the Chromium that started it does.

    python -m webmend.cdn.serve --port 48443 --ready FILE [--cert PEM --key PEM] [--cdn-dir DIR]
"""

from __future__ import annotations

import argparse
import base64
import ctypes
import datetime
import fcntl
import hashlib
import os
import signal
import socket
import ssl
import struct
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote, unquote

MIRROR_HOST = "mirror.webmend.test"
PREFIX = "/u/"


def mirror_url(port: int, url: str) -> str:
    """Where the server answers for the CDN URL `url` (Chromium maps MIRROR_HOST to it)."""
    return f"https://{MIRROR_HOST}:{port}{PREFIX}{quote(url, safe='')}"


def resolver_rule(port: int) -> str:
    """The host-resolver rule that sends MIRROR_HOST to this server's loopback port."""
    return f"MAP {MIRROR_HOST} 127.0.0.1:{port}"


def _loopback_up() -> None:
    """A fresh network namespace has its loopback interface down; bring it up (no-op elsewhere)."""
    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack("16sH14s", b"lo", 0, bytes(14))
        flags = struct.unpack("16sH", fcntl.ioctl(s, siocgifflags, req)[:18])[1]
        if not flags & iff_up:
            fcntl.ioctl(s, siocsifflags, struct.pack("16sH14s", b"lo", flags | iff_up, bytes(14)))


def _die_with_parent() -> None:
    """End when the Chromium that started us ends. The parent-death signal alone was not
    enough (a Chromium that changed its user id on the way left the server behind), so a
    watcher thread also checks for a new parent twice a second."""
    pr_set_pdeathsig = 1
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)
    except OSError:
        pass
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def make_certificate(workdir: Path) -> tuple[Path, Path, str]:
    """A throwaway self-signed certificate (EC P-256) for MIRROR_HOST, written to `workdir`.

    Returns (cert file, key file, base64 SHA-256 of the public key). Chromium is told to trust
    exactly that key (`--ignore-certificate-errors-spki-list`), so browser contexts need not
    ignore certificate errors, and responses stay cacheable (Chromium caches nothing that came
    with a certificate error).
    """
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, MIRROR_HOST)])
    now = datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=3650))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(MIRROR_HOST)]), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = workdir / "cert.pem", workdir / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    key_file.chmod(0o600)
    spki = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return cert_file, key_file, base64.b64encode(hashlib.sha256(spki).digest()).decode()


def make_handler(mirror):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: one TLS handshake per connection

        def do_GET(self):  # noqa: N802 (http.server's naming)
            served = mirror.lookup(unquote(self.path[len(PREFIX):])) if self.path.startswith(PREFIX) else None
            if served is None:
                self._send(404, b"", {"content-type": "text/plain"})
            else:
                self._send(200, served.body, served.headers())

        def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:  # requests are recorded by the route handler
            pass

    return Handler


def serve(port: int, cdn_dir: str | None, ready: str | None, cert: str | None = None, key: str | None = None) -> None:
    """Serve until the parent ends. Without `cert`/`key` a throwaway pair is made here."""
    from webmend.cdn.resolver import CdnMirror

    _die_with_parent()
    status = "ok"
    try:
        _loopback_up()
        mirror = CdnMirror(Path(cdn_dir)) if cdn_dir else CdnMirror.load_default()
        server = ThreadingHTTPServer(("127.0.0.1", port), make_handler(mirror))
        server.daemon_threads = True
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        with tempfile.TemporaryDirectory(prefix="webmend-mirror-") as tmp:
            if not (cert and key):
                cert, key, _ = make_certificate(Path(tmp))
            ctx.load_cert_chain(cert, key)
        # The handshake happens in each connection's own thread, not in the accept loop.
        server.socket = ctx.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    except Exception as exc:  # the launcher then answers library requests through the route
        status = f"failed: {type(exc).__name__}: {exc}"
        server = None
    if ready:
        with open(ready, "w") as fh:
            fh.write(status.replace("\n", " ") + "\n")
    if server is not None:
        server.serve_forever()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--cdn-dir")
    ap.add_argument("--ready", help="a file that gets 'ok' once the server listens, or why it failed")
    ap.add_argument("--cert", help="PEM certificate (with --key); default: a throwaway one")
    ap.add_argument("--key", help="PEM private key of --cert")
    args = ap.parse_args()
    serve(args.port, args.cdn_dir, args.ready, args.cert, args.key)


if __name__ == "__main__":
    main()
