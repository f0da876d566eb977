"""Deterministic bounds on what the judge may award, from probe evidence (thresholds: JudgeConfig).

Visual design: clamped to [0, budget], then capped by every probe finding that rules out a good
design on its own: a blank page, no styling, a blank canvas, horizontal overflow on mobile, no
viewport meta. Functionality (only when the caller allows the judge to inform it): clamped to
[0, budget] and to a band of +-functionality_max_shift x budget around the probe-based estimate; the
judge may not raise it at all when the page is blank, or when it is interactive and the probes saw
nothing respond (no control, key or animation).
"""

from __future__ import annotations

from webmend.config import JudgeConfig
from webmend.evaluate.judge.inputs import ObjectiveMetrics
from webmend.schemas.judge import GuardrailHit


def visual_caps(m: ObjectiveMetrics, cfg: JudgeConfig) -> list[tuple[str, float]]:
    """(rule, cap in points) for every cap that applies to this page."""
    rules = [
        ("blank_page", m.blank_page, cfg.cap_blank_page),
        ("unstyled", not m.styled, cfg.cap_unstyled),
        ("blank_canvas", m.blank_canvas, cfg.cap_blank_canvas),
        ("overflow_mobile", m.overflow_mobile, cfg.cap_overflow_mobile),
        ("no_viewport", not m.has_viewport_meta, cfg.cap_no_viewport),
    ]
    return [(name, round(share * m.visual_budget, 3)) for name, applies, share in rules if applies]


def _bound(value: float, lo: float, hi: float, rule: str, dim: str, hits: list[GuardrailHit]) -> float:
    bounded = min(max(value, lo), hi)
    if bounded != value:
        limit = hi if value > hi else lo
        hits.append(GuardrailHit(rule=rule, dimension=dim, limit=limit, before=value, after=bounded))
    return bounded


def bound_visual(score: float, m: ObjectiveMetrics, cfg: JudgeConfig, hits: list[GuardrailHit]) -> float:
    value = _bound(score, 0.0, m.visual_budget, "budget", "visual_design", hits)
    for rule, cap in sorted(visual_caps(m, cfg), key=lambda rc: rc[1]):  # the tightest cap is recorded
        value = _bound(value, 0.0, cap, rule, "visual_design", hits)
    return round(value, 3)


def functionality_band(m: ObjectiveMetrics, cfg: JudgeConfig) -> tuple[float, float, str]:
    """(low, high, rule) the judge's functionality must stay within."""
    budget, estimate = m.functionality_budget, m.fast_scores.functionality
    shift = cfg.functionality_max_shift * budget
    lo, hi, rule = max(0.0, estimate - shift), min(budget, estimate + shift), "probe_band"
    nothing_responded = not (m.controls_responsive or m.keys_responsive or m.animating)
    if m.blank_page:
        hi, rule = min(hi, estimate), "probe_band_blank_page"
    elif m.interactive and nothing_responded:
        hi, rule = min(hi, estimate), "probe_band_nothing_responded"
    return lo, hi, rule


def bound_functionality(score: float, m: ObjectiveMetrics, cfg: JudgeConfig, hits: list[GuardrailHit]) -> float:
    value = _bound(score, 0.0, m.functionality_budget, "budget", "functionality", hits)
    lo, hi, rule = functionality_band(m, cfg)
    return round(_bound(value, lo, hi, rule, "functionality", hits), 3)
