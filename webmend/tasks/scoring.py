"""Scores from stored evidence (no browser): five dimensions in points of their budgets.

Evaluation writes evidence; this module turns it into numbers; the band thresholds come from
config. `webmend rescore` reruns exactly this on stored results. Rules: docs/scoring.md.
"""

from __future__ import annotations

import math

from webmend.config import EvalConfig

SCORING_VERSION = "1"  # bump whenever a rule below changes
SCORED_STATUSES = ("ok", "hang", "crashed", "resource_limit")
MOTION_EPS = 0.01


def _clamp(x: float) -> float:
    return max(0.0, min(1.0, x))


def state_band(total: float | None, cfg: EvalConfig) -> str | None:
    if total is None:
        return None
    if total < cfg.bands.low_below:
        return "Low"
    return "High" if total >= cfg.bands.high_from else "Mid"


def weighted_pass_rate(tests: list[dict]) -> float | None:
    total = sum(t["weight"] for t in tests)
    if not tests or total <= 0:
        return None
    return sum(t["weight"] for t in tests if t["passed"]) / total


def _visible(probe: dict) -> float:
    if probe.get("blank", True):
        return 0.0
    doc = probe.get("doc") or {}
    has_canvas = any(c.get("visible") and c["width"] * c["height"] > 0 for c in probe.get("canvases") or [])
    return 1.0 if doc.get("textChars", 0) > 0 or has_canvas else 0.5


def _error_health(events: dict) -> float:
    return _clamp(1 - 0.5 * events.get("page_error_count", 0) - 0.25 * events.get("console_error_count", 0))


def _overflow_ok(probe: dict, key: str) -> float:
    info = probe.get(key)
    return 0.0 if info is None or info.get("overflowing") else 1.0


def rendering(ev: dict, status: str) -> float:
    probe, events = ev.get("probe") or {}, ev.get("events") or {}
    stable = 0.0 if status in ("crashed", "resource_limit") or probe.get("load_hang") else 1.0
    layout = 0.5 * _overflow_ok(probe, "overflow_desktop") + 0.5 * _overflow_ok(probe, "overflow_mobile")
    return 0.4 * _visible(probe) + 0.3 * _error_health(events) + 0.2 * layout + 0.1 * stable


def visual_design_estimate(ev: dict) -> float:
    """Deterministic stand-in for the visual judge, built from computed-style evidence.

    Presentation (styling, type, palette, responsiveness) is scaled by legibility: text that
    cannot be read or that overlaps other text spoils a design however much CSS it has.
    """
    probe, facts = ev.get("probe") or {}, ev.get("static") or {}
    d = probe.get("design")
    if not d or _visible(probe) == 0:
        return 0.0
    n = max(1, d["textElements"])
    bgs = d["backgrounds"]
    presentation = {
        "styled": (0.15, _clamp(math.log1p(d["cssRules"]) / math.log(61))),
        "viewport": (0.10, 1.0 if facts.get("has_viewport_meta") else 0.0),
        "font": (0.10, 0.0 if d["defaultFont"] else 1.0),
        "mobile": (0.10, _overflow_ok(probe, "overflow_mobile")),
        "palette": (0.10, 0.0 if bgs == 0 else 0.4 if bgs == 1 else 1.0 if bgs <= 14 else 0.6),
        "hierarchy": (0.10, _clamp((d["fontSizes"] - 1) / 3)),
        "hover": (0.05, _clamp(d["hoverRules"] / 4)),
    }
    weight = sum(w for w, _ in presentation.values())
    look = sum(w * v for w, v in presentation.values()) / weight
    legible = _clamp(1 - d["lowContrast"] / n) * (1 - 0.5 * _clamp(d["smallText"] / n))
    intact = _clamp(1 - d["overlaps"] / max(3.0, 0.2 * n))
    return look * (0.3 + 0.7 * legible * intact)


def _controls(probe: dict) -> tuple[int, int]:
    ctrls = probe.get("controls") or []
    return len(ctrls), sum(1 for c in ctrls if c.get("responded"))


def _probe_functionality(ev: dict, interactive: bool) -> float:
    probe, events = ev.get("probe") or {}, ev.get("events") or {}
    tried, worked = _controls(probe)
    moving = max(probe.get("motion_diff", 0), probe.get("motion_late_diff", 0)) > MOTION_EPS
    if tried:
        behaviour = worked / tried
    elif probe.get("keys_responsive") or moving:
        behaviour = 1.0
    else:
        behaviour = 0.3 if interactive else 1.0
    return 0.3 * _visible(probe) + 0.2 * _error_health(events) + 0.5 * behaviour


def interaction(ev: dict) -> float:
    probe = ev.get("probe") or {}
    tried, worked = _controls(probe)
    responsive = worked / tried if tried else (1.0 if probe.get("keys_responsive") else 0.0)
    hangs = (ev.get("events") or {}).get("hangs") or []
    hover = 1.0 if (probe.get("design") or {}).get("hoverRules") else 0.0
    keys = 1.0 if probe.get("keys_responsive") or tried else 0.0
    return 0.5 * responsive + 0.2 * keys + 0.1 * hover + 0.2 * (0.0 if hangs else 1.0)


def code_quality(ev: dict) -> float:
    f = ev.get("static") or {}
    events = ev.get("events") or {}
    semantic = sum(1 for t in ("header", "nav", "main", "section", "article", "footer") if (f.get("semantic_tags") or {}).get(t))
    checks = [
        bool(f.get("doctype")),
        bool(f.get("lang")),
        bool(f.get("title")),
        bool(f.get("has_viewport_meta")),
        bool(f.get("charset_declared")),
        semantic >= 2,
        f.get("images_without_alt", 0) == 0,
        events.get("page_error_count", 0) == 0,
        f.get("size_bytes", 0) < 500_000,
        f.get("inline_event_handlers", 0) <= 5,
    ]
    return sum(checks) / len(checks)


def score(ev: dict, cfg: EvalConfig, interactive: bool) -> dict | None:
    """Points per dimension and the total; None for statuses that are not scored."""
    status = ev.get("status")
    if status not in SCORED_STATUSES:
        return None
    b = cfg.budgets
    rate = weighted_pass_rate(ev.get("tests") or [])
    func_budget = b.functionality if interactive else b.functionality_static
    func = rate if rate is not None else _probe_functionality(ev, interactive)
    dims = {
        "rendering": b.rendering * rendering(ev, status),
        "visual_design": b.visual_design * visual_design_estimate(ev),
        "functionality": func_budget * func,
        "interaction": b.interaction * interaction(ev) if interactive else None,
        "code_quality": b.code_quality * code_quality(ev),
    }
    dims = {k: (round(v, 3) if v is not None else None) for k, v in dims.items()}
    dims["total"] = round(sum(v for v in dims.values() if v is not None), 3)
    return dims
