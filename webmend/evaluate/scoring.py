"""Scores from stored evidence (no browser): five dimensions in points of their budgets.

Evaluation writes evidence; this module turns it into numbers; the band thresholds come from
config. `webmend rescore` reruns exactly this on stored results. Rules: docs/scoring.md.
"""

from __future__ import annotations

import math

from webmend.config import EvalConfig
from webmend.evaluate.experience.gating import game_like
from webmend.evaluate.facts import is_animating

SCORING_VERSION = "2"  # bump whenever a rule below changes (2: experience-protocol evidence)
SCORED_STATUSES = ("ok", "hang", "crashed", "resource_limit")


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
    drawn = probe.get("canvas_pixels")
    if has_canvas and drawn and all(c.get("blank") for c in drawn) and doc.get("textChars", 0) == 0:
        return 0.5  # the page's only content is a canvas nobody drew on
    return 1.0 if doc.get("textChars", 0) > 0 or has_canvas else 0.5


def _error_health(events: dict) -> float:
    return _clamp(1 - 0.5 * events.get("page_error_count", 0) - 0.25 * events.get("console_error_count", 0))


def _overflow_ok(probe: dict, key: str) -> float:
    info = probe.get(key)
    return 0.0 if info is None or info.get("overflowing") else 1.0


def _layout(probe: dict) -> float:
    """Share of viewports (desktop, tablet, mobile) a user can use: no sideways overflow, every
    control on screen and not covered, text readable. Older evidence has desktop and mobile only."""
    views = probe.get("viewports")
    if not views:
        return 0.5 * _overflow_ok(probe, "overflow_desktop") + 0.5 * _overflow_ok(probe, "overflow_mobile")
    ok = []
    for v in views.values():
        problems = [v.get("overflow"), v.get("offscreen_controls"), v.get("overlapping_controls"), v.get("unreadable_text")]
        ok.append(1.0 - min(1.0, 0.5 * sum(1 for p in problems if p)))
    return sum(ok) / len(ok)


def rendering_terms(ev: dict, status: str) -> dict[str, float]:
    """Rendering's terms, each 0..1 (weighted: visible 0.4, errors 0.3, layout 0.2, stable 0.1)."""
    probe, events = ev.get("probe") or {}, ev.get("events") or {}
    stalled = (probe.get("motion") or {}).get("stalled")
    stable = 0.0 if status in ("crashed", "resource_limit") or probe.get("load_hang") else 0.5 if stalled else 1.0
    return {"visible": _visible(probe), "no_errors": _error_health(events), "layout": _layout(probe), "stable": stable}


def rendering(ev: dict, status: str) -> float:
    t = rendering_terms(ev, status)
    return 0.4 * t["visible"] + 0.3 * t["no_errors"] + 0.2 * t["layout"] + 0.1 * t["stable"]


# What the fast visual-design estimate counts, in a sentence a repair prompt can carry.
VISUAL_ESTIMATE_TERMS = (
    "styled = number of CSS rules (60+ = 1), viewport = a viewport meta, font = not the browser default font, "
    "mobile = no sideways overflow on a phone, palette = distinct background colours (2-14 = 1, one = 0.4, "
    "15+ = 0.6), hierarchy = distinct font sizes (4+ = 1), hover = hover rules (4+ = 1); their weighted mean "
    "is scaled by legible (text with enough contrast, not tiny) and intact (text not overlapping)")

# The deterministic visual-design estimate's presentation terms and their weights; legibility and
# intactness scale the whole (visual_design_terms).
PRESENTATION_WEIGHTS = {"styled": 0.15, "viewport": 0.10, "font": 0.10, "mobile": 0.10, "palette": 0.10,
                        "hierarchy": 0.10, "hover": 0.05}


def visual_design_terms(ev: dict) -> dict[str, float] | None:
    """The estimate's terms, each 0..1; None when nothing visible was measured (estimate 0).

    styled: CSS rules (log scale, 60 rules = 1); viewport: a viewport meta; font: not the browser's
    default font; mobile: no sideways overflow on a phone; palette: distinct background colours
    (0 none, 0.4 one, 1 for 2-14, 0.6 more); hierarchy: distinct font sizes (4+ = 1); hover: hover
    rules (4+ = 1); legible: text with enough contrast and not tiny; intact: text not overlapping.
    """
    probe, facts = ev.get("probe") or {}, ev.get("static") or {}
    d = probe.get("design")
    if not d or _visible(probe) == 0:
        return None
    n = max(1, d["textElements"])
    bgs = d["backgrounds"]
    return {
        "styled": _clamp(math.log1p(d["cssRules"]) / math.log(61)),
        "viewport": 1.0 if facts.get("has_viewport_meta") else 0.0,
        "font": 0.0 if d["defaultFont"] else 1.0,
        "mobile": _overflow_ok(probe, "overflow_mobile"),
        "palette": 0.0 if bgs == 0 else 0.4 if bgs == 1 else 1.0 if bgs <= 14 else 0.6,
        "hierarchy": _clamp((d["fontSizes"] - 1) / 3),
        "hover": _clamp(d["hoverRules"] / 4),
        "legible": _clamp(1 - d["lowContrast"] / n) * (1 - 0.5 * _clamp(d["smallText"] / n)),
        "intact": _clamp(1 - d["overlaps"] / max(3.0, 0.2 * n)),
    }


def visual_design_estimate(ev: dict) -> float:
    """Deterministic stand-in for the visual judge, built from computed-style evidence.

    Presentation (styling, type, palette, responsiveness) is scaled by legibility: text that
    cannot be read or that overlaps other text spoils a design however much CSS it has.
    """
    t = visual_design_terms(ev)
    if t is None:
        return 0.0
    weight = sum(PRESENTATION_WEIGHTS.values())
    look = sum(w * t[k] for k, w in PRESENTATION_WEIGHTS.items()) / weight
    return look * (0.3 + 0.7 * t["legible"] * t["intact"])


def _controls(probe: dict) -> tuple[int, int]:
    """(controls judged, controls that responded); text fields that only took input are neutral."""
    ctrls = [c for c in probe.get("controls") or [] if c.get("responded") is not None]
    return len(ctrls), sum(1 for c in ctrls if c.get("responded"))


# What layer 3 found, as a behaviour score (None: layer 3 did not run, nothing to say).
PLAY_OUTCOME = {"played": 1.0, "stalled": 0.3, "error": 0.2, "did_not_start": 0.1}


def _play(ev: dict) -> float | None:
    """The rollout's outcome as behaviour, for pages that looked like games. A rollout through a
    multi-step UI is evidence for repair, not a verdict: a form wizard does not "start"."""
    outcome = ((ev.get("probe") or {}).get("play") or {}).get("outcome")
    reasons = ((ev.get("experience") or {}).get("layers_why") or {}).get("3") or []
    if not outcome or (reasons and not game_like(reasons)):
        return None
    return PLAY_OUTCOME.get(outcome)


def _behaviour(ev: dict, interactive: bool) -> float:
    """How much of what the page offers works: controls, forms, keys, motion and play."""
    probe = ev.get("probe") or {}
    tried, worked = _controls(probe)
    forms = probe.get("forms") or []
    parts = []
    if tried:
        parts.append(worked / tried)
    if forms:
        parts.append(sum(1 for f in forms if f.get("changed")) / len(forms))
    play = _play(ev)
    if play is not None:
        parts.append(play)
    moving = is_animating(probe)
    if not parts:
        if probe.get("keys_responsive") or moving:
            parts.append(1.0)
        else:
            # A static prompt asked for nothing to use; an interactive one did.
            parts.append(0.3 if interactive else 1.0)
    behaviour = sum(parts) / len(parts)
    if (probe.get("motion") or {}).get("stalled"):
        behaviour *= 0.7  # a loop that died while nobody touched the page
    return behaviour


def _probe_functionality(ev: dict, interactive: bool) -> float:
    probe, events = ev.get("probe") or {}, ev.get("events") or {}
    return 0.3 * _visible(probe) + 0.2 * _error_health(events) + 0.5 * _behaviour(ev, interactive)


def interaction_terms(ev: dict, cfg: EvalConfig) -> dict[str, float]:
    """Interaction's terms, each 0..1 (weighted: responsive 0.45, keys 0.15, hover 0.1, prompt 0.1,
    no_hangs 0.2; a game's rollout outcome, play, takes 0.2 of the whole when layer 3 played one)."""
    probe = ev.get("probe") or {}
    tried, worked = _controls(probe)
    latencies = [c["latency_ms"] for c in probe.get("controls") or [] if c.get("responded") and c.get("latency_ms")]
    terms = {
        "responsive": worked / tried if tried else (1.0 if probe.get("keys_responsive") else 0.0),
        "keys": 1.0 if probe.get("keys_responsive") or tried else 0.0,
        "hover": 1.0 if (probe.get("design") or {}).get("hoverRules")
        or any(c.get("hover_changed") for c in probe.get("controls") or []) else 0.0,
        "prompt": 0.0 if any(ms > cfg.scoring.slow_response_ms for ms in latencies) else 1.0,
        "no_hangs": 0.0 if (ev.get("events") or {}).get("hangs") else 1.0,
    }
    play = _play(ev)
    if play is not None:
        terms["play"] = play
    return terms


def interaction(ev: dict, cfg: EvalConfig) -> float:
    t = interaction_terms(ev, cfg)
    base = 0.45 * t["responsive"] + 0.15 * t["keys"] + 0.1 * t["hover"] + 0.1 * t["prompt"] + 0.2 * t["no_hangs"]
    return base if "play" not in t else 0.8 * base + 0.2 * t["play"]


def code_quality_terms(ev: dict) -> dict[str, float]:
    """Code quality's ten checks, each 0 or 1 (equal weights)."""
    f = ev.get("static") or {}
    events = ev.get("events") or {}
    semantic = sum(1 for t in ("header", "nav", "main", "section", "article", "footer") if (f.get("semantic_tags") or {}).get(t))
    checks = {
        "doctype": bool(f.get("doctype")),
        "lang": bool(f.get("lang")),
        "title": bool(f.get("title")),
        "viewport_meta": bool(f.get("has_viewport_meta")),
        "charset": bool(f.get("charset_declared")),
        "semantic_tags": semantic >= 2,
        "img_alt": f.get("images_without_alt", 0) == 0,
        "no_page_errors": events.get("page_error_count", 0) == 0,
        "size_ok": f.get("size_bytes", 0) < 500_000,
        "few_inline_handlers": f.get("inline_event_handlers", 0) <= 5,
    }
    return {k: float(v) for k, v in checks.items()}


def code_quality(ev: dict) -> float:
    checks = code_quality_terms(ev)
    return sum(checks.values()) / len(checks)


def dimension_budgets(cfg: EvalConfig, interactive: bool) -> dict[str, float | None]:
    """Points each dimension is worth under this profile (None: not scored, no interaction)."""
    b = cfg.budgets
    return {"rendering": b.rendering, "visual_design": b.visual_design,
            "functionality": b.functionality if interactive else b.functionality_static,
            "interaction": b.interaction if interactive else None, "code_quality": b.code_quality}


def score(ev: dict, cfg: EvalConfig, interactive: bool) -> dict | None:
    """Points per dimension and the total; None for statuses that are not scored."""
    status = ev.get("status")
    if status not in SCORED_STATUSES:
        return None
    b = dimension_budgets(cfg, interactive)
    rate = weighted_pass_rate(ev.get("tests") or [])
    if rate is None:  # no test cases: the task's contract is the prompt-grounded check, when there is one
        rate = (ev.get("contract") or {}).get("reward")
    func = rate if rate is not None else _probe_functionality(ev, interactive)
    dims = {
        "rendering": b["rendering"] * rendering(ev, status),
        "visual_design": b["visual_design"] * visual_design_estimate(ev),
        "functionality": b["functionality"] * func,
        "interaction": b["interaction"] * interaction(ev, cfg) if interactive else None,
        "code_quality": b["code_quality"] * code_quality(ev),
    }
    dims = {k: (round(v, 3) if v is not None else None) for k, v in dims.items()}
    dims["total"] = round(sum(v for v in dims.values() if v is not None), 3)
    return dims


def apply_judge(score: dict | None, verdict: dict | None) -> dict | None:
    """Scores with the judge's visual design (and bounded functionality) in place of the estimates."""
    if not score or not verdict:
        return score
    out = dict(score)
    if verdict.get("visual_design") is not None:
        out["visual_design"] = round(float(verdict["visual_design"]), 3)
    if verdict.get("functionality") is not None:
        out["functionality"] = round(float(verdict["functionality"]), 3)
    out["total"] = round(sum(v for k, v in out.items() if k != "total" and v is not None), 3)
    return out


def functionality_terms(ev: dict, interactive: bool) -> dict[str, float]:
    """Functionality's source: the test cases' weighted pass rate, else the contract's reward, else
    the probes (visible 0.3, no_errors 0.2, behaviour 0.5)."""
    rate = weighted_pass_rate(ev.get("tests") or [])
    if rate is not None:
        return {"tests_passed": rate}
    reward = (ev.get("contract") or {}).get("reward")
    if reward is not None:
        return {"contract_reward": reward}
    probe, events = ev.get("probe") or {}, ev.get("events") or {}
    return {"visible": _visible(probe), "no_errors": _error_health(events), "behaviour": _behaviour(ev, interactive)}


def score_terms(record: dict, cfg: EvalConfig) -> dict[str, dict[str, float]]:
    """{dimension: {term: 0..1}} behind a result record's fast-mode score, from its stored evidence:
    what a repair rejection names when a dimension moved. Empty for unscored records."""
    if record.get("status") not in SCORED_STATUSES or not record.get("evidence"):
        return {}
    ev = {**record["evidence"], "tests": record.get("tests") or [], "contract": record.get("contract"),
          "status": record["status"]}
    interactive = bool(record.get("interactive"))
    terms = {"rendering": rendering_terms(ev, record["status"]), "visual_design": visual_design_terms(ev) or {},
             "functionality": functionality_terms(ev, interactive), "code_quality": code_quality_terms(ev)}
    if interactive:
        terms["interaction"] = interaction_terms(ev, cfg)
    return {d: {k: round(v, 4) for k, v in t.items()} for d, t in terms.items()}
