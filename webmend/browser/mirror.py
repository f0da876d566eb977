"""Per-browser plan for the CDN mirror server (webmend.cdn.serve) the launcher starts beside it."""

from __future__ import annotations

import logging
import os
import shutil
import socket
import tempfile
from dataclasses import dataclass
from pathlib import Path

from webmend.cdn.serve import make_certificate

log = logging.getLogger(__name__)


def _free_port() -> int:
    # Inside the browser's own network namespace every port is free; without one the server
    # shares this machine's loopback, so ask the OS for a port nobody holds.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass(frozen=True)
class MirrorServer:
    port: int
    status_file: Path
    cdn_dir: str | None
    cert: Path
    key: Path
    spki: str  # base64 SHA-256 of the server's public key, which Chromium is told to trust

    @classmethod
    def plan(cls, cfg) -> "MirrorServer | None":
        """A server for the next launch, or None when config turns it off (cfg.cdn_server)."""
        if not cfg.cdn_server:
            return None
        workdir = Path(tempfile.mkdtemp(prefix="webmend-mirror-"))
        workdir.chmod(0o700)  # the server runs as this user; the key stays private to it
        cert, key, spki = make_certificate(workdir)
        return cls(_free_port(), workdir / "status", cfg.cdn_dir, cert, key, spki)

    def env(self) -> dict[str, str]:
        env = {**os.environ, "WEBMEND_MIRROR_PORT": str(self.port), "WEBMEND_MIRROR_STATUS": str(self.status_file),
               "WEBMEND_MIRROR_CERT": str(self.cert), "WEBMEND_MIRROR_KEY": str(self.key)}
        if self.cdn_dir:
            env["WEBMEND_CDN_DIR"] = self.cdn_dir
        return env

    def discard(self) -> None:
        """Remove the key folder of a server whose browser never launched."""
        shutil.rmtree(self.status_file.parent, ignore_errors=True)

    def started(self) -> bool:
        """Read once after launch: did the server come up? If not, say why and go on without it."""
        try:
            status = self.status_file.read_text().strip()
        except OSError:
            status = "no status (the launcher did not start it)"
        if status != "ok":
            log.warning("CDN mirror server not running (%s, log in %s); library bodies go through the request route",
                        status, self.status_file.parent)
            return False
        self.discard()
        return True
