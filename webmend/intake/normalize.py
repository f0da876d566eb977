"""Text normalisation shared by dedup and decontamination.

Two prompts that differ only in case, whitespace, punctuation or Unicode presentation forms
normalise to the same string, so exact duplicates are caught by a hash of the normal form.
"""

from __future__ import annotations

import re
import unicodedata

from webmend.schemas.hashing import sha256_hex

_NON_WORD = re.compile(r"[\W_]+")


def normalize_text(text: str) -> str:
    """NFKC, case-folded, every run of punctuation/symbols/whitespace collapsed to one space."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _NON_WORD.sub(" ", folded).strip()


def normal_hash(text: str) -> str:
    """Key for exact-after-normalisation matching."""
    return sha256_hex(normalize_text(text))


def shingles(normal: str, k: int) -> set[bytes]:
    """Character k-grams of an already normalised text (the whole text when it is shorter)."""
    data = normal.encode("utf-8")
    if len(data) <= k:
        return {data}
    return {data[i : i + k] for i in range(len(data) - k + 1)}
