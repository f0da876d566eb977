"""The router: a fixed rule system from D(h) to the admissible LLM strategies of a round.

Thresholds are the evaluator's bands (config); the rules are in the order they are tried and the
first that matches decides, so every decision names the one rule that made it (htmlcure.txt 3.1).
Low pages have no stable local target: rewrite, or complete the features. Mid pages keep usable
structure: repair what the probes saw broken, rewrite stays admissible last. High pages are
preserved unless a localised, low-risk defect shows; then only small additive patches.
Deterministic operators are outside the router: they fix known defects in every band.
"""

from __future__ import annotations

from webmend.config import RepairConfig
from webmend.schemas.repair import Diagnosis, RouteDecision

SCORED = ("ok", "hang", "crashed", "resource_limit")
REWRITE_STRATEGIES = ("holistic_rewrite",)  # a complete document; every other strategy patches
HIGH_VISUAL_SHORTFALL = 0.25  # a High page whose visual design misses this share of its budget


def game_layer(d: Diagnosis) -> str | None:
    """The failing layer of a game from the probe evidence, most basic first (D.6.3)."""
    g = d.game
    if not g.detected and not (d.static.get("uses_canvas") and g.keyboard_listeners):
        return None
    if g.start_overlay:
        return "overlay"
    if g.canvas_blank:
        return "canvas"
    if g.loop_stalled:
        return "loop"
    if g.keyboard_listeners and not g.keys_worked:
        return "input"
    if g.no_state_change:
        return "gameplay"
    return None


def _interaction_broken(d: Diagnosis) -> bool:
    acting = {"click", "type", "fill", "press", "hover", "drag", "select", "check"}
    return bool(d.controls.dead) or any(t.failed_action in acting for t in d.failed_tests)


def _missing_features(d: Diagnosis) -> bool:
    return bool(d.failed_tests) or any(r.status in ("missing", "broken") for r in d.requirements)


def not_repairable(d: Diagnosis, rcfg: RepairConfig) -> tuple[str, str] | None:
    """(stop reason, rule) for a page the loop must not touch at all, else None."""
    if d.status not in SCORED or d.total is None:
        return "unscored", f"unscored: status {d.status}"
    if d.state not in rcfg.bands:
        return "not_repaired", f"band {d.state} is not repaired in this run"
    return None


def route(d: Diagnosis, rcfg: RepairConfig, round_no: int) -> RouteDecision:
    def decide(rule: str, *strategies: str, layer: str | None = None) -> RouteDecision:
        return RouteDecision(round=round_no, state=d.state, strategies=list(strategies)[:rcfg.candidates_per_round],
                             game_layer=layer, rule=rule)

    if (untouched := not_repairable(d, rcfg)) is not None:
        return decide(untouched[1])
    layer = game_layer(d)
    if d.state == "Low":
        return decide("low: no stable local target, replace", "holistic_rewrite", "feature_completion")
    if d.state == "Mid":
        if layer is not None:
            return decide(f"mid: game layer {layer} failing", "game_repair", "holistic_rewrite", layer=layer)
        if _interaction_broken(d):
            return decide("mid: broken controls or interaction tests", "interaction_repair", "feature_completion")
        if d.page_errors:
            return decide("mid: uncaught JS errors", "bug_fix", "holistic_rewrite")
        if _missing_features(d):
            return decide("mid: failed tests or missing requirements", "feature_completion", "holistic_rewrite")
        return decide("mid: no specific failure, rewrite admissible", "feature_completion", "holistic_rewrite")
    # High: preservation by default.
    if d.failed_tests or d.controls.dead or d.page_errors:
        return decide("high: localised defect, additive refinement only", "high_state_refinement")
    if d.shortfall.get("visual_design", 0.0) >= HIGH_VISUAL_SHORTFALL:
        return decide("high: weak visual design, additive enrichment only", "visual_enrichment")
    return decide("high: preserve (no localised defect)")


def mode_of(strategy: str, state: str | None) -> str:
    """Rewrite for holistic rewrites and for Low feature completion; patches everywhere else."""
    if strategy in REWRITE_STRATEGIES or (strategy == "feature_completion" and state == "Low"):
        return "rewrite"
    return "patch"
