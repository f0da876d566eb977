"""The evaluator's pure core: one page in, its evidence, verdicts and status out.

No Prefect here: repair and training call `evaluate_page` directly. A worker (one warm
Chromium) is passed in or taken from the per-process cache.
"""

from __future__ import annotations

import functools
import logging
import time
from dataclasses import dataclass
from pathlib import Path

from webmend.browser.evidence import PageEvents
from webmend.browser.network import NetworkLog, RequestPolicy
from webmend.browser.session import PageSession, PageShared
from webmend.browser.worker import BrowserDied, BrowserWorker, WallTimeout, get_worker
from webmend.config import EvalConfig, Limits
from webmend.evaluate.experience import run_experience
from webmend.evaluate.static_facts import static_facts
from webmend.evaluate.testcase_lanes import run_cases_in_lanes
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


@dataclass(frozen=True)
class PageBudget:
    """The whole page's wall-clock budget, every attempt and browser profile included.

    limits.page_wall_s for the probe plus limits.test_wall_s per test case, times
    limits.gl_wall_factor for WebGL pages, counted from the start of the page: a page that turns
    out to need the gl browser, or a retry, spends from the same budget.
    """

    start: float  # time.monotonic()
    limits: Limits
    cases: int

    def seconds(self, profile: str) -> float:
        base = self.limits.page_wall_s + self.limits.test_wall_s * self.cases
        return base * (self.limits.gl_wall_factor if profile == "gl" else 1)

    def deadline(self, profile: str) -> float:
        return self.start + self.seconds(profile)

    def used_share(self, profile: str) -> float:
        return (time.monotonic() - self.start) / self.seconds(profile)


def evaluate_page(html: str, cfg: EvalConfig, item: dict | None = None, worker: BrowserWorker | None = None,
                  must_pass: frozenset[str] = frozenset()) -> dict:
    """Experience one page and run its test cases. Returns status, flags, evidence and test records.

    The page gets one wall-clock budget (PageBudget). A page that uses it up stops where it is and
    gets the `timeout` status with the evidence gathered so far; its browser is relaunched, so
    nothing it queued (GPU work) reaches the next page. A page that hung is evaluated once more
    with a doubled step cap, from the same budget, when the first attempt left room for it.
    Only these time limits make a verdict depend on machine speed.
    must_pass: ids of test cases run first; the first of them to fail raises EarlyRejected. Every
    test case runs on its own fresh document (own origin, empty storage, its own page clock), so
    running some first changes no verdict.
    """
    worker = worker or get_worker(cfg)
    started = time.perf_counter()
    facts = static_facts(html)
    cases = [c for c in (item or {}).get("test_cases") or [] if isinstance(c, dict)]
    budget = PageBudget(time.monotonic(), cfg.limits, len(cases))
    profile = "gl" if facts.get("uses_webgl") else "raster"
    try:
        result = _run_once(worker, html, cfg, cases, 1, profile, must_pass, budget)
        if result["status"] == "hang" and budget.used_share(result["profile"]) <= cfg.limits.hang_retry_max_share:
            # Under load a slow step can pass for a hang; a real loop hangs again, cheaply.
            again = _run_once(worker, html, cfg, cases, 2, result["profile"], must_pass, budget)
            result = again if again["status"] != "timeout" else result
            result["flags"].append("retried")
    except EarlyRejected as exc:
        exc.elapsed_s = time.perf_counter() - started
        raise
    except WallTimeout as exc:
        log.warning("page overran its budget and its cleanup grace: %s", exc)
        result = {"status": "timeout", "flags": [],
                  "reason": f"{exc}; the browser was relaunched and no evidence could be kept"}
    result["static"] = facts
    result["elapsed_s"] = time.perf_counter() - started
    return result


def _run_once(worker: BrowserWorker, html: str, cfg: EvalConfig, cases: list, scale: int, profile: str,
              must_pass: frozenset[str], budget: PageBudget) -> dict:
    """One attempt; a browser that died under the page is replaced and the page run again.

    A page that turned out to draw with WebGL in the raster browser is run again in the gl one
    (see launch.PROFILES), so the verdict never depends on which browser the code scan chose.
    """
    try:
        result = _run(worker, html, cfg, cases, scale, profile, must_pass, budget)
    except BrowserDied as exc:
        log.warning("browser died during a page (%s); relaunching and retrying", exc)
        result = _run(worker, html, cfg, cases, scale, profile, must_pass, budget)
    if result["status"] == "timeout":
        return result
    if profile == "raster" and result["events"]["webgl_documents"]:
        log.info("page uses WebGL at run time; evaluating it again in the gl browser")
        return _run_once(worker, html, cfg, cases, scale, "gl", must_pass, budget)
    if cfg.skip_hidden_draws and result["events"]["contained"].get("gl_skip_diverged"):
        # Skipping hidden WebGL frames changed what could be seen (clock.js): render every frame.
        log.info("hidden-frame skipping diverged on this page; evaluating it again with every frame drawn")
        return _run_once(worker, html, cfg.model_copy(update={"skip_hidden_draws": False}), cases, scale, profile,
                         must_pass, budget)
    return result


def page_shared(html: str, cfg: EvalConfig, budget: PageBudget, profile: str, scale: int = 1) -> PageShared:
    """The sandbox state every fresh load of one page version shares: its request policy (offline,
    the CDN mirror), event counters, step cap and the page budget's deadline."""
    net = NetworkLog()
    policy = RequestPolicy(html, load_mirror(cfg.cdn_dir), net, cfg.limits.max_reloads)
    # Software-rendered WebGL makes every real frame dear (SwiftShader): gl pages get more wall
    # time per step before a slow frame is mistaken for a hang.
    scale *= cfg.limits.gl_wall_factor if profile == "gl" else 1
    return PageShared(cfg=cfg, policy=policy, events=PageEvents(max_messages=cfg.limits.max_console_messages),
                      step_wall_s=cfg.limits.step_wall_s * scale, profile=profile, deadline=budget.deadline(profile))


def page_profile(html: str) -> str:
    """The browser a page starts in (launch.PROFILES): WebGL pages by their code get the gl one."""
    return "gl" if static_facts(html).get("uses_webgl") else "raster"


def _run(worker: BrowserWorker, html: str, cfg: EvalConfig, cases: list, scale: int, profile: str,
         must_pass: frozenset[str], budget: PageBudget) -> dict:
    shared = page_shared(html, cfg, budget, profile, scale)
    events, net, policy = shared.events, shared.policy.log, shared.policy

    async def job(browser):
        policy.mirror_port = worker.mirror_port(browser)
        session = PageSession(browser, shared)
        try:
            await session.open()
            done = await _run_first(session, cases, must_pass)
            probe, experience, frames = await run_experience(session)
            if profile == "raster" and events.webgl_documents and shared.exhausted_during is None:
                return probe, experience, frames, []  # to be run again in the gl browser (see _run_once)
            if probe.get("load_hang") or probe.get("crash_during") == "load":
                # Loading is deterministic: every fresh load would hang or crash the same way.
                why = "page hung during load (infinite loop?)" if probe.get("load_hang") else "renderer crashed during load"
                return probe, experience, frames, [failed_at_load(case, why) for case in cases]
            return probe, experience, frames, await run_cases_in_lanes(session, cases, done)
        finally:
            if shared.exhausted_during is None:  # otherwise the whole browser goes (below)
                await session.close()

    wall_s = shared.deadline - time.monotonic() + cfg.limits.overrun_grace_s
    probe, experience, frames, tests = worker.run(job, wall_s=max(wall_s, 1.0), profile=profile)
    if shared.exhausted_during is not None:
        worker.recycle(profile)  # drop whatever the page left queued (GPU frames, timers)
    status, reason, flags = classify(probe, events, net, cfg)
    if status == "ok" and shared.exhausted_during is not None:
        status = "timeout"
        reason = (f"the page used its whole wall-clock budget ({budget.seconds(profile):.0f} s) during: "
                  f"{shared.exhausted_during}; the evidence gathered until then is kept")
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
            if session.shared.exhausted_during is not None:
                return done  # out of time is not a regression: the caller gets the timeout
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
