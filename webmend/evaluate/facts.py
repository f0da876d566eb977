"""Facts derived from an evaluation's probe evidence, defined once.

Scoring, the visual judge's inputs and the trace summary all read these, so "the page animates"
means the same thing wherever a verdict or a summary uses it.
"""

from __future__ import annotations

# Pixel change between two looks at an idle page below which the page counts as still.
MOTION_EPS = 0.01


def pixel_motion(probe: dict) -> float:
    """The larger of the early and late idle-window pixel change ratios (0 when not measured)."""
    return max(probe.get("motion_diff") or 0.0, probe.get("motion_late_diff") or 0.0)


def is_animating(probe: dict) -> bool:
    """Pixels moved while the page sat idle, or layer 1's page clock saw an animation running."""
    return pixel_motion(probe) > MOTION_EPS or bool((probe.get("motion") or {}).get("animating"))
