"""Canvas pixel facts (experience/view.py): the most frequent colour and the blank test."""

from __future__ import annotations

import numpy as np

from webmend.evaluate.experience.view import pixel_facts


def _mode_by_rows(px: np.ndarray) -> np.ndarray:
    """The definition: np.unique over RGB rows, first (lowest) colour among the most frequent."""
    colours, counts = np.unique(px.reshape(-1, 3), axis=0, return_counts=True)
    return colours[counts.argmax()]


def _off_share(px: np.ndarray, mode: np.ndarray) -> float:
    return round(float((np.abs(px.reshape(-1, 3).astype(np.int16) - mode).max(axis=1) > 8).mean()), 4)


def test_the_mode_is_the_lowest_of_the_most_frequent_colours():
    rng = np.random.default_rng(7)
    for _ in range(50):
        # Few colours 6 apart, so ties are common and which one is the mode changes the share
        # of pixels more than 8 away from it.
        px = rng.integers(0, 4, (6, 5, 3), dtype=np.uint8) * 6
        assert pixel_facts(px, 1.0)["off_mode_share"] == _off_share(px, _mode_by_rows(px))
    px = np.array([[(0, 0, 0), (0, 0, 0), (0, 0, 30), (0, 0, 30), (0, 0, 6)]], np.uint8)
    # Black and (0, 0, 30) twice each: black, the lower triple, is the mode; only the two
    # (0, 0, 30) pixels are more than 8 away from it (the other mode would give 3 of 5).
    assert pixel_facts(px, 1.0)["off_mode_share"] == 0.4


def test_a_cleared_canvas_is_blank_and_a_drawn_one_is_not():
    cleared = np.full((90, 160, 3), 17, np.uint8)
    assert pixel_facts(cleared, 1.0)["blank"]
    drawn = cleared.copy()
    drawn[20:70, 30:130] = (200, 40, 40)
    facts = pixel_facts(drawn, 1.0)
    assert not facts["blank"] and facts["off_mode_share"] == round(50 * 100 / (90 * 160), 4)
