"""Pixel measures for the canvas checks (docs/icg-format.md, "Observations"): which colours a
region shows, how much of it is drawn on, how much of it changed. Pure numpy on RGB arrays."""

from __future__ import annotations

import numpy as np
from PIL import ImageColor

# A region showing a colour "has" it when this share of its pixels is within `tolerance` of it:
# one small planet of a 1280x720 view is about 0.05 %.
MIN_SHARE = 0.0005
TOLERANCE = 40.0  # Euclidean RGB distance: anti-aliasing and gradients stay near their colour
CHANGE_LEVEL = 24  # a pixel changed when one channel moved by more than this


def parse_color(text: str) -> tuple[int, int, int]:
    """'#rgb', '#rrggbb', 'rgb(r, g, b)', 'hsl(...)' or a CSS colour name, as PIL reads them;
    ValueError for anything else."""
    rgb = ImageColor.getrgb(str(text).strip())
    return tuple(int(c) for c in rgb[:3])


def color_share(pixels: np.ndarray, color: tuple[int, int, int], tolerance: float = TOLERANCE) -> float:
    """Share of pixels within `tolerance` of `color`."""
    dist = np.linalg.norm(pixels.reshape(-1, 3).astype(np.float64) - np.asarray(color, dtype=np.float64), axis=1)
    return float((dist <= tolerance).mean()) if dist.size else 0.0


def distinct_colors(pixels: np.ndarray, min_share: float = MIN_SHARE) -> int:
    """Colours covering at least `min_share` of the region each, counted on a 6-level-per-channel
    grid (216 bins: shades of one colour count once; anti-aliased edges fall below the share)."""
    flat = pixels.reshape(-1, 3).astype(np.int64)
    if not flat.size:
        return 0
    bins = (flat * 6 // 256) @ np.array([36, 6, 1])
    counts = np.bincount(bins, minlength=216) / len(flat)
    return int((counts >= min_share).sum())


def dominant_color(pixels: np.ndarray) -> tuple[int, int, int]:
    """The most common colour of the region (its background, for coverage)."""
    flat = pixels.reshape(-1, 3)
    values, counts = np.unique(flat, axis=0, return_counts=True)
    return tuple(int(c) for c in values[int(counts.argmax())])


def coverage(pixels: np.ndarray, background: tuple[int, int, int], tolerance: float = TOLERANCE) -> float:
    """Share of the region drawn on: pixels farther than `tolerance` from the background."""
    return 1.0 - color_share(pixels, background, tolerance)


def changed(a: np.ndarray, b: np.ndarray, level: int = CHANGE_LEVEL) -> float:
    """Share of pixels whose colour moved by more than `level` in some channel."""
    if a.shape != b.shape:
        return 1.0
    return float((np.abs(a.astype(np.int16) - b.astype(np.int16)).max(axis=-1) > level).mean()) if a.size else 0.0
