"""Screenshot comparison as the test-case format defines it: block SSIM on small grayscale thumbnails."""

from __future__ import annotations

import numpy as np

_C1 = (0.01 * 255) ** 2
_C2 = (0.03 * 255) ** 2


def block_ssim(a: np.ndarray, b: np.ndarray, block: int = 8) -> float:
    """Mean SSIM over non-overlapping block x block tiles of two equal-size grayscale images."""
    if a.shape != b.shape:
        raise ValueError(f"shape mismatch {a.shape} vs {b.shape}")
    h = (a.shape[0] // block) * block
    w = (a.shape[1] // block) * block
    ta = a[:h, :w].reshape(h // block, block, w // block, block).swapaxes(1, 2).reshape(-1, block * block)
    tb = b[:h, :w].reshape(h // block, block, w // block, block).swapaxes(1, 2).reshape(-1, block * block)
    mu_a, mu_b = ta.mean(axis=1), tb.mean(axis=1)
    var_a, var_b = ta.var(axis=1), tb.var(axis=1)
    cov = ((ta - mu_a[:, None]) * (tb - mu_b[:, None])).mean(axis=1)
    ssim = ((2 * mu_a * mu_b + _C1) * (2 * cov + _C2)) / ((mu_a**2 + mu_b**2 + _C1) * (var_a + var_b + _C2))
    return float(ssim.mean())


def screenshot_diff(a: np.ndarray, b: np.ndarray) -> float:
    return round(1.0 - block_ssim(a, b), 6)


def is_blank(thumb: np.ndarray, min_std: float = 2.0) -> bool:
    """A near-uniform viewport: nothing visible was drawn."""
    return float(thumb.std()) < min_std


def changed_share(a: np.ndarray, b: np.ndarray, level: float = 8.0) -> float:
    """Share of thumbnail pixels that changed by more than `level` grey levels.

    Block SSIM averages a small moving object away; this does not, so motion checks use both.
    """
    return round(float((np.abs(a - b) > level).mean()), 6)


def visibly_changed(a: np.ndarray, b: np.ndarray, eps: float = 0.01, min_share: float = 0.0005) -> bool:
    return screenshot_diff(a, b) > eps or changed_share(a, b) > min_share
