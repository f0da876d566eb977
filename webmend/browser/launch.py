"""How Chromium is started: flags that keep a hostile page offline, and an empty network namespace.

Routes (network.py) are the primary gate. These flags are defence in depth: anything that
slips past request interception meets a dead proxy, a resolver that knows no host, WebRTC
without UDP, and, where the OS allows it, a network namespace with no interfaces at all.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from webmend.cdn.serve import MIRROR_HOST, resolver_rule

log = logging.getLogger(__name__)

# The headless shell first: the same Chromium build without the desktop browser layer around it
# (Debian's chromium-headless-shell). On the bench pages it used 16-21 % less CPU per page than
# the full binary in headless mode, with the same verdicts (docs/benchmarks.md, 2026-12-06).
HEADLESS_SHELL_CANDIDATES = ("/usr/lib/chromium/chromium-headless-shell", "/usr/bin/chromium-headless-shell")
FULL_CHROMIUM_CANDIDATES = ("/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser")
CHROMIUM_CANDIDATES = HEADLESS_SHELL_CANDIDATES + FULL_CHROMIUM_CANDIDATES

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
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--enable-unsafe-swiftshader",  # WebGL without a GPU
    "--use-angle=swiftshader",
    # 2D canvas on the CPU: through SwiftShader every fake frame cost ~10 ms (6x slower).
    "--disable-accelerated-2d-canvas",
    "--font-render-hinting=none",  # same glyph rasterisation on every machine
    # Re-raster a changed tile whole. With partial raster only the changed rect is redrawn, and
    # its anti-aliased edges depend on which intermediate frames were rastered, i.e. on wall
    # time: the same DOM gave screenshots a few hundred pixels apart (bench/determinism_sweep.py).
    "--disable-partial-raster",
    # Keyboard (Space, arrows, PageDown) and wheel scrolling jump at once instead of animating in
    # real time, outside page time: otherwise a key press on a static page scrolled on between two
    # screenshots, and a change check passed on a page where nothing could change. (Scrolling from
    # script is made instant by clock.js, CSS scroll-behavior by probes.js.)
    "--disable-smooth-scrolling",
    "--disable-features=Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider,AutofillServerCommunication",
)


def chromium_path() -> str:
    """WEBMEND_CHROMIUM if set, else the first installed candidate (the headless shell first)."""
    env = os.environ.get("WEBMEND_CHROMIUM")
    if env:
        if not Path(env).exists():
            raise FileNotFoundError(f"WEBMEND_CHROMIUM={env} does not exist")
        return env
    for cand in CHROMIUM_CANDIDATES:
        if Path(cand).exists():
            if cand in FULL_CHROMIUM_CANDIDATES:
                log.warning("chromium-headless-shell not installed; the full Chromium costs about a fifth "
                            "more CPU per page (make setup installs the shell)")
            return cand
    raise FileNotFoundError(
        "Chromium not found; install Debian's chromium-headless-shell (make setup) or set WEBMEND_CHROMIUM"
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


def _works(cmd: list[str]) -> bool:
    try:
        return subprocess.run(cmd, capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@functools.lru_cache(maxsize=4)
def sandbox_available(uid: int) -> bool:
    """True when Chromium's namespace sandbox can run here: as root, after dropping to `uid`
    (setpriv) in a user namespace of its own; otherwise as ourselves."""
    if os.geteuid() == 0:
        return bool(shutil.which("setpriv")) and _works(
            ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--", "unshare", "--user", "--map-root-user", "true"])
    return _works(["unshare", "--user", "--map-root-user", "true"])


@dataclass(frozen=True)
class Launch:
    executable: str
    isolated_network: bool  # empty network namespace
    chromium_sandbox: bool  # Chromium's own sandbox on (as an unprivileged user)


@functools.lru_cache(maxsize=8)
def _wrapper(binary: str, netns: bool, drop_to: int | None) -> str:
    """A tiny launcher: Chromium inside an empty network namespace and/or as an unprivileged user,
    with the CDN mirror server (webmend.cdn.serve) beside it in the same namespace.

    Playwright talks to Chromium over a pipe, so control keeps working without any network. The
    profile folder Playwright made (as root) is handed to the user Chromium runs as. The mirror
    server starts when WEBMEND_MIRROR_PORT is set; the launcher waits (at most 10 s) until it
    has written its status to WEBMEND_MIRROR_STATUS, so no page can ask it anything too early.
    The server does not inherit Playwright's pipe (fds 3 and 4): holding it would keep the
    driver from seeing Chromium exit.
    """
    package_parent = Path(__file__).resolve().parents[2]
    lines = ["#!/bin/sh"]
    if netns:
        lines.append('if [ -z "$WEBMEND_IN_NETNS" ]; then export WEBMEND_IN_NETNS=1; exec unshare -n -- "$0" "$@"; fi')
    lines += [
        'if [ -n "$WEBMEND_MIRROR_PORT" ] && [ -n "$WEBMEND_MIRROR_STATUS" ]; then',
        f'  PYTHONPATH="{package_parent}${{PYTHONPATH:+:$PYTHONPATH}}" "{sys.executable}" -m webmend.cdn.serve'
        ' --port "$WEBMEND_MIRROR_PORT" --ready "$WEBMEND_MIRROR_STATUS"'
        ' ${WEBMEND_MIRROR_CERT:+--cert "$WEBMEND_MIRROR_CERT" --key "$WEBMEND_MIRROR_KEY"} 3>&- 4>&- </dev/null >/dev/null 2>>"$WEBMEND_MIRROR_STATUS.log" &',
        '  i=0; while [ ! -s "$WEBMEND_MIRROR_STATUS" ] && [ $i -lt 200 ] && kill -0 $! 2>/dev/null; do sleep 0.05; i=$((i+1)); done',
        'fi',
    ]
    cmd = "exec "
    if drop_to is not None:
        lines.append('for a in "$@"; do case "$a" in --user-data-dir=*) d="${a#--user-data-dir=}";; esac; done')
        lines.append(f'[ -n "$d" ] && chown -R {drop_to}:{drop_to} "$d" && export HOME="$d"')
        cmd += f"setpriv --reuid={drop_to} --regid={drop_to} --clear-groups -- "
    lines.append(cmd + f'"{binary}" "$@"')
    return str(_write_launcher("\n".join(lines) + "\n"))


def _launcher_home() -> Path:
    """Where launchers are kept: the user's cache folder (not /tmp, where another user could
    plant a folder of the same name before us)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "webmend" / "launchers"


def _write_launcher(text: str) -> Path:
    """The launcher script, named by its content, so every process and every run reuses one file
    instead of leaving a new temporary folder behind each time. Written to a fresh name and
    renamed, so a concurrent reader never sees half a script."""
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    script = _launcher_home() / digest / "chromium"
    try:
        if not (script.is_file() and script.read_text() == text):
            script.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("w", dir=script.parent, delete=False) as f:
                f.write(text)
            os.chmod(f.name, 0o755)
            os.replace(f.name, script)
    except OSError as exc:  # a read-only home: fall back to a folder of this process's own
        log.warning("launcher cache unavailable (%s); using a temporary folder", exc)
        script = Path(tempfile.mkdtemp(prefix="webmend-chromium-")) / "chromium"
        script.write_text(text)
        script.chmod(0o755)
        script.parent.chmod(0o755)  # mkdtemp makes it 0700
    return script


def resolve_launch(sandbox) -> Launch:
    """How to start Chromium under the configured sandbox settings (config.Sandbox)."""
    binary = chromium_path()
    isolated = False
    if sandbox.netns != "off":
        isolated = netns_available()
        if not isolated:
            if sandbox.netns == "on":
                raise RuntimeError("sandbox.netns = 'on' but `unshare -n` is not permitted here")
            log.warning("no network namespace available; relying on request interception and proxy flags")
    chromium_sandbox = sandbox.chromium_sandbox != "off" and sandbox_available(sandbox.unprivileged_uid)
    if sandbox.chromium_sandbox == "on" and not chromium_sandbox:
        raise RuntimeError("sandbox.chromium_sandbox = 'on' but Chromium's sandbox cannot run here")
    if sandbox.chromium_sandbox == "auto" and not chromium_sandbox:
        log.warning("Chromium's own sandbox is unavailable here; running it with --no-sandbox")
    drop_to = sandbox.unprivileged_uid if chromium_sandbox and os.geteuid() == 0 else None
    return Launch(_wrapper(binary, isolated, drop_to), isolated, chromium_sandbox)


# Browser profiles. Both composite in software: a screenshot costs ~0.04 s instead of 0.2-0.4 s
# through the SwiftShader compositor, and a CSS filter over a canvas is blurred by Skia on the CPU
# instead of by shaders in SwiftShader. WebGL still draws through SwiftShader; each frame that
# drew into a canvas is read back for the compositor, which at the "gl" profile's smaller pixel
# ratio and with hidden frames skipped (clock.js) costs less than GPU compositing did: 3D pages
# -34 %, the blurred-canvas fixture 41 -> 4 CPU-s (docs/benchmarks.md, 2026-12-06). The "gl"
# browser stays separate: its pages see devicePixelRatio = EvalConfig.gl_pixel_ratio and get the
# WebGL wall factor, and a WebGL page's GPU process is killed with it.
#
# The raster browser runs its GPU thread (the display compositor, and SwiftShader for a page the
# code scan missed, until it moves to the gl browser) inside the browser process: no IPC between
# two processes for every frame and capture, 6-18 % less CPU per page with the same verdicts
# (docs/benchmarks.md, 2026-12-06, third session). The gl browser keeps a GPU process of its own:
# there it made no measurable difference, and SwiftShader's WebGL work stays out of the process
# that answers DevTools. docs/sandbox.md says what the raster browser gives up.
SOFTWARE_COMPOSITING = ("--disable-gpu-compositing",)
GPU_IN_BROWSER_PROCESS = ("--in-process-gpu",)
PROFILES = {"raster": (*SOFTWARE_COMPOSITING, *GPU_IN_BROWSER_PROCESS), "gl": SOFTWARE_COMPOSITING}


def launch_args(js_heap_mb: int, profile: str = "raster", mirror_port: int | None = None,
                mirror_spki: str | None = None) -> list[str]:
    """Chromium's flags. The resolver knows no host (and loopback goes to the dead proxy), except
    the CDN mirror server's name when one runs beside this browser (webmend.cdn.serve)."""
    rules, bypass, extra = "MAP * ~NOTFOUND", "<-loopback>", []
    if mirror_port is not None:
        rules, bypass = f"{resolver_rule(mirror_port)}, {rules}", f"{bypass};{MIRROR_HOST}"
        # Local Network Access would refuse a public page's request to a loopback address; the
        # mirror endpoint stands in for public CDNs, so it is declared public (and only it).
        extra.append(f"--ip-address-space-overrides=127.0.0.1:{mirror_port}=public")
    args = [*OFFLINE_FLAGS, f"--host-resolver-rules={rules}", f"--proxy-bypass-list={bypass}",
            *PROFILES[profile], f"--js-flags=--max-old-space-size={js_heap_mb}", *extra, profile_marker(profile)]
    if mirror_spki:
        # Trust exactly the mirror server's key (webmend.cdn.serve.make_certificate).
        args.append(f"--ignore-certificate-errors-spki-list={mirror_spki}")
    return args


def profile_marker(profile: str) -> str:
    """A switch Chromium ignores, so this worker can find the browser process of a profile in
    /proc (kill_browser) without asking the browser, which may be too busy to answer."""
    return f"--webmend-profile={profile}"


def _parents() -> dict[int, int]:
    parents: dict[int, int] = {}
    for path in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(path.parent.name)] = int(path.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return parents


def _under(pid: int, root: int, parents: dict[int, int]) -> bool:
    hops = 0
    while pid not in (0, 1) and hops < 64:
        if pid == root:
            return True
        pid, hops = parents.get(pid, 0), hops + 1
    return False


def kill_browser(profile: str, root: int | None = None) -> int:
    """SIGKILL the `profile` browser that `root` (this process by default) started, with every
    process below it (renderers, the GPU process, its mirror server). Returns how many went.

    Closing a browser politely waits for its GPU process, which may be minutes behind on a heavy
    WebGL page; a kill frees the worker at once."""
    root = os.getpid() if root is None else root
    parents = _parents()
    marker = profile_marker(profile).encode()
    tops = []
    for pid in parents:
        try:
            if marker in Path(f"/proc/{pid}/cmdline").read_bytes() and _under(pid, root, parents):
                tops.append(pid)
        except OSError:
            continue
    doomed = {pid for pid in parents if any(_under(pid, top, parents) for top in tops)}
    for pid in doomed:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return len(doomed)


def process_tree_cpu(root: int | None = None) -> dict[int, float]:
    """CPU seconds used so far by `root` (this process by default) and every process below it,
    by pid, read from /proc (one scan; processes that vanish mid-scan are skipped)."""
    root = os.getpid() if root is None else root
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for path in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = path.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(path.parent.name)
        parents[pid] = int(fields[1])
        cpu[pid] = (int(fields[11]) + int(fields[12])) / tick
    out = {}
    for pid, used in cpu.items():
        p, hops = pid, 0
        while p not in (0, 1, root) and hops < 64:
            p, hops = parents.get(p, 0), hops + 1
        if p == root:
            out[pid] = used
    return out


def gpu_process_cpu_s(root: int | None = None) -> float:
    """CPU seconds used so far by the GPU processes of the Chromiums that `root` (this process by
    default) started, read from /proc.

    WebGL commands are queued: a clock step returns once the page's JavaScript has run, and the
    GPU process renders the queued frames afterwards (SwiftShader: up to a quarter of a CPU second
    per frame of a three.js scene). A browser call that outlasts its wall cap while this figure
    keeps growing is waiting for that rendering, not for a stuck page script.
    """
    return sum(used for pid, used in process_tree_cpu(root).items() if _is_gpu_process(pid))


def _is_gpu_process(pid: int) -> bool:
    try:
        # Zygote children rewrite their command line into one space-separated string.
        return b"--type=gpu-process" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
