"""Text normalisation shared by dedup and decontamination.

Two prompts that differ only in case, whitespace, punctuation or Unicode presentation forms
normalise to the same string, so exact duplicates are caught by a hash of the normal form.
"""

from __future__ import annotations

import re
import unicodedata

_NON_WORD = re.compile(r"[\W_]+")


def normalize_text(text: str) -> str:
    """NFKC, case-folded, every run of punctuation/symbols/whitespace collapsed to one space."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _NON_WORD.sub(" ", folded).strip()


def shingles(normal: str, k: int) -> set[bytes]:
    """Character k-grams of an already normalised text (the whole text when it is shorter)."""
    data = normal.encode("utf-8")
    if len(data) <= k:
        return {data}
    return {data[i : i + k] for i in range(len(data) - k + 1)}
