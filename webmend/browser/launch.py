"""How Chromium is started: flags that keep a hostile page offline, and an empty network namespace.

Routes (network.py) are the primary gate. These flags are defence in depth: anything that
slips past request interception meets a dead proxy, a resolver that knows no host, WebRTC
without UDP, and, where the OS allows it, a network namespace with no interfaces at all.
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)

CHROMIUM_CANDIDATES = ("/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser")

OFFLINE_FLAGS = (
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--disable-dev-shm-usage",
    "--disable-breakpad",
    "--mute-audio",
    "--proxy-server=socks5://127.0.0.1:9",  # nothing listens on the discard port
    "--proxy-bypass-list=<-loopback>",  # loopback goes to the dead proxy too
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--enable-unsafe-swiftshader",  # WebGL without a GPU
    "--use-angle=swiftshader",
    # 2D canvas on the CPU: through SwiftShader every fake frame cost ~10 ms (6x slower).
    "--disable-accelerated-2d-canvas",
    "--font-render-hinting=none",  # same glyph rasterisation on every machine
    "--disable-features=Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider,AutofillServerCommunication",
)


def chromium_path() -> str:
    env = os.environ.get("WEBMEND_CHROMIUM")
    for cand in ((env,) if env else ()) + CHROMIUM_CANDIDATES:
        if cand and Path(cand).exists():
            return cand
    raise FileNotFoundError(
        "Chromium not found; install Debian's chromium (make setup) or set WEBMEND_CHROMIUM"
    )


@functools.lru_cache(maxsize=1)
def netns_available() -> bool:
    """True when `unshare -n` works here (root, or user namespaces enabled)."""
    if not shutil.which("unshare"):
        return False
    try:
        res = subprocess.run(["unshare", "-n", "--", "true"], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return res.returncode == 0


@functools.lru_cache(maxsize=4)
def _netns_wrapper(binary: str) -> str:
    """A tiny launcher that execs Chromium inside a fresh, empty network namespace.

    Playwright talks to Chromium over a pipe, so control keeps working without any network.
    """
    folder = Path(tempfile.mkdtemp(prefix="webmend-chromium-"))
    script = folder / "chromium-netns"
    script.write_text(f'#!/bin/sh\nexec unshare -n -- "{binary}" "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return str(script)


def resolve_executable(netns_mode: str) -> tuple[str, bool]:
    """Return (executable, isolated) for the configured namespace mode."""
    binary = chromium_path()
    if netns_mode == "off":
        return binary, False
    if netns_available():
        return _netns_wrapper(binary), True
    if netns_mode == "on":
        raise RuntimeError("sandbox.netns = 'on' but `unshare -n` is not permitted here")
    log.warning("no network namespace available; relying on request interception and proxy flags")
    return binary, False


# Browser profiles. "raster" composites in software: a screenshot costs ~0.04 s instead of
# 0.2-0.4 s through the SwiftShader compositor. But then every WebGL frame is read back to the
# CPU (~80 ms per fake frame at 1280x720), so WebGL pages run in a "gl" browser that composites
# through SwiftShader, where WebGL frames cost almost nothing until something is captured.
PROFILES = {"raster": ("--disable-gpu-compositing",), "gl": ()}


def launch_args(js_heap_mb: int, profile: str = "raster") -> list[str]:
    return [*OFFLINE_FLAGS, *PROFILES[profile], f"--js-flags=--max-old-space-size={js_heap_mb}"]
