"""The evaluator's pure core: one page in, its evidence, verdicts and status out.

No Prefect here: repair and training call `evaluate_page` directly. A worker (one warm
Chromium) is passed in or taken from the per-process cache.
"""

from __future__ import annotations

import functools
import logging
import time
from pathlib import Path

from webmend.browser.evidence import PageEvents
from webmend.browser.network import NetworkLog, RequestPolicy
from webmend.browser.session import PageSession, PageShared
from webmend.browser.worker import BrowserDied, BrowserWorker, WallTimeout, get_worker
from webmend.config import EvalConfig
from webmend.evaluate.experience import run_experience
from webmend.evaluate.static_facts import static_facts
from webmend.evaluate.testcases import failed_at_load, run_test_case

log = logging.getLogger(__name__)


class EarlyRejected(Exception):
    """A test case the caller needed to pass failed before the rest of the page was experienced.

    Repair runs its checkpoint's passing test cases first (`must_pass`): a candidate that breaks
    one is rejected whatever else it does, so the rest of its evaluation would be wasted time.
    """

    def __init__(self, test: dict, elapsed_s: float = 0.0):
        super().__init__(f"test case {test.get('id')} failed: {test.get('error')}")
        self.test = test
        self.elapsed_s = elapsed_s


@functools.lru_cache(maxsize=4)
def load_mirror(cdn_dir: str | None):
    """The CDN mirror for this process, or None when it is not installed (recorded as absent)."""
    from webmend.cdn.resolver import CdnMirror

    try:
        return CdnMirror(Path(cdn_dir)) if cdn_dir else CdnMirror.load_default()
    except FileNotFoundError as exc:
        log.warning("CDN mirror not available: %s", exc)
        return None


def mirror_hash(cfg: EvalConfig) -> str | None:
    mirror = load_mirror(cfg.cdn_dir)
    return mirror.mirror_hash if mirror is not None else None


def evaluate_page(html: str, cfg: EvalConfig, item: dict | None = None, worker: BrowserWorker | None = None,
                  must_pass: frozenset[str] = frozenset()) -> dict:
    """Experience one page and run its test cases. Returns status, flags, evidence and test records.

    A page that hits the wall-clock cap is retried once with doubled budgets; only then does it
    get the `timeout` status. This is the only place where a verdict may depend on machine speed.
    must_pass: ids of test cases run first; the first of them to fail raises EarlyRejected. Every
    test case runs on its own fresh document (own origin, empty storage, its own page clock), so
    running some first changes no verdict.
    """
    worker = worker or get_worker(cfg)
    started = time.perf_counter()
    facts = static_facts(html)
    cases = [c for c in (item or {}).get("test_cases") or [] if isinstance(c, dict)]
    result = None
    for scale in (1, 2):
        try:
            result = _run_once(worker, html, cfg, cases, scale, "gl" if facts.get("uses_webgl") else "raster",
                               must_pass)
        except EarlyRejected as exc:
            exc.elapsed_s = time.perf_counter() - started
            raise
        except WallTimeout as exc:
            log.warning("page timed out (budget x%d): %s", scale, exc)
            continue
        if result["status"] != "hang":  # a hang is a time limit too: it gets the same retry
            break
    if result is None:
        return {"status": "timeout", "reason": "page exceeded its wall-clock cap twice (budget doubled on retry)",
                "flags": ["retried"], "static": facts, "elapsed_s": time.perf_counter() - started}
    result["static"] = facts
    if scale > 1:
        result["flags"].append("retried")
    result["elapsed_s"] = time.perf_counter() - started
    return result


def _run_once(worker: BrowserWorker, html: str, cfg: EvalConfig, cases: list, scale: int, profile: str,
              must_pass: frozenset[str] = frozenset()) -> dict:
    """One attempt; a browser that died under the page is replaced and the page run again.

    A page that turned out to draw with WebGL in the raster browser is run again in the gl one
    (see launch.PROFILES), so the verdict never depends on which browser the code scan chose.
    """
    try:
        result = _run(worker, html, cfg, cases, scale, profile, must_pass)
    except BrowserDied as exc:
        log.warning("browser died during a page (%s); relaunching and retrying", exc)
        result = _run(worker, html, cfg, cases, scale, profile, must_pass)
    if profile == "raster" and result["events"]["webgl_documents"]:
        log.info("page uses WebGL at run time; evaluating it again in the gl browser")
        return _run_once(worker, html, cfg, cases, scale, "gl", must_pass)
    if cfg.skip_hidden_draws and result["events"]["contained"].get("gl_skip_diverged"):
        # Skipping hidden WebGL frames changed what could be seen (clock.js): render every frame.
        log.info("hidden-frame skipping diverged on this page; evaluating it again with every frame drawn")
        return _run_once(worker, html, cfg.model_copy(update={"skip_hidden_draws": False}), cases, scale, profile,
                         must_pass)
    return result


def _run(worker: BrowserWorker, html: str, cfg: EvalConfig, cases: list, scale: int, profile: str,
         must_pass: frozenset[str] = frozenset()) -> dict:
    mirror = load_mirror(cfg.cdn_dir)
    events = PageEvents(max_messages=cfg.limits.max_console_messages)
    net = NetworkLog()
    policy = RequestPolicy(html, mirror, net, cfg.limits.max_reloads)
    # Software-rendered WebGL makes every real frame dear (SwiftShader): gl pages get more wall
    # time per step before a slow frame is mistaken for a hang.
    scale *= cfg.limits.gl_wall_factor if profile == "gl" else 1
    shared = PageShared(cfg=cfg, policy=policy, events=events, step_wall_s=cfg.limits.step_wall_s * scale)

    async def job(browser):
        policy.mirror_port = worker.mirror_port(browser)
        session = PageSession(browser, shared)
        try:
            await session.open()
            done = await _run_first(session, cases, must_pass)
            probe, experience, frames = await run_experience(session)
            if profile == "raster" and events.webgl_documents:
                return probe, experience, frames, []  # to be run again in the gl browser (see _run_once)
            if probe.get("load_hang") or probe.get("crash_during") == "load":
                # Loading is deterministic: every fresh load would hang or crash the same way.
                why = "page hung during load (infinite loop?)" if probe.get("load_hang") else "renderer crashed during load"
                return probe, experience, frames, [failed_at_load(case, why) for case in cases]
            tests = [done.get(i) or await run_test_case(session, case, i + 1) for i, case in enumerate(cases)]
            return probe, experience, frames, tests
        finally:
            await session.close()

    wall_s = (cfg.limits.page_wall_s + cfg.limits.test_wall_s * len(cases)) * scale
    probe, experience, frames, tests = worker.run(job, wall_s=wall_s, profile=profile)
    status, reason, flags = classify(probe, events, net, cfg)
    return {
        "status": status,
        "reason": reason,
        "flags": flags,
        "probe": {k: v for k, v in probe.items() if not k.startswith("_")},
        "text_runs": probe.get("_text_runs") or [],  # for the judge only; not stored (page text)
        "experience": experience,
        "keyframes": frames,
        "tests": tests,
        "events": events.to_dict(),
        "network": net.to_dict(),
        "profile": profile,
    }


async def _run_first(session: PageSession, cases: list, must_pass: frozenset[str]) -> dict[int, dict]:
    """Run the `must_pass` test cases before anything else; raise at the first that fails."""
    done: dict[int, dict] = {}
    for i, case in enumerate(cases):
        if str(case.get("id", "")) in must_pass:
            done[i] = await run_test_case(session, case, i + 1)  # same document index as in the full run
            if not done[i]["passed"]:
                raise EarlyRejected(done[i])
    return done


def classify(probe: dict, events: PageEvents, net: NetworkLog, cfg: EvalConfig) -> tuple[str, str, list[str]]:
    """Turn evidence into a status and flags (closed lists, see docs/output-contract.md)."""
    flags: list[str] = []
    if probe.get("tampering"):
        flags.append("tampering")
    if events.contained.get("console_flood"):
        flags.append("console_flood")
    if events.dialogs:
        flags.append("dialogs")
    if events.contained.get("popup"):
        flags.append("popups_blocked")
    if events.downloads:
        flags.append("downloads_blocked")
    if events.contained.get("worker_blocked"):
        flags.append("workers_blocked")
    if events.contained.get("webrtc"):
        flags.append("webrtc_blocked")
    if events.contained.get("service_worker"):
        flags.append("service_worker_blocked")
    if net.blocked_total:
        flags.append("network_blocked")
    if any(b["reason"] == "navigation_away" for b in net.blocked):
        flags.append("navigation_blocked")
    if any(b["reason"] == "reload_loop" for b in net.blocked):
        flags.append("reload_loop")
    if events.refused_local:
        flags.append("local_file_blocked")
    if net.cdn_misses:
        flags.append("cdn_miss")
    nodes = probe.get("dom_nodes_final") or (probe.get("doc") or {}).get("nodes") or 0
    if events.crashes or probe.get("crashed"):
        return "crashed", "the renderer crashed (out of memory or killed)", flags
    if events.hangs or probe.get("load_hang"):
        where = ", ".join(sorted(set(events.hangs)))[:200]
        return "hang", f"the page stopped responding (infinite loop?) during: {where}", flags
    if nodes > cfg.limits.max_dom_nodes:
        return "resource_limit", f"DOM grew to {nodes} nodes (limit {cfg.limits.max_dom_nodes})", flags
    return "ok", "", flags
