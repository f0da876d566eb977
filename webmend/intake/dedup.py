"""Duplicate detection: exact after normalisation, then near-duplicates by MinHash/LSH (datasketch).

Signatures must agree across processes and runs, so nothing here uses Python's salted `hash()`:
shingles are hashed with CRC-32 and the permutations come from a fixed seed. When several kept
prompts match, the most similar wins and ties go to the earliest one, so results depend only on
input order.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from functools import lru_cache

from datasketch import LeanMinHash, MinHash, MinHashLSH

from webmend.intake.config import DedupSettings
from webmend.intake.normalize import normalize_text, shingles
from webmend.schemas.hashing import sha256_hex


@dataclass(frozen=True)
class Match:
    kind: str  # "exact" (same normal form) or "near" (estimated Jaccard >= threshold)
    key: str  # the id of the prompt (or benchmark item) matched
    similarity: float


@dataclass(frozen=True)
class Fingerprint:
    """A text's normal form, its exact-match key and its signature: computed once, used by dedup and decontam."""

    normal: str
    exact_key: str
    signature: LeanMinHash


class Signer:
    """Builds MinHash signatures with one shared, seeded set of permutations."""

    def __init__(self, settings: DedupSettings):
        self.settings = settings
        self._permutations = MinHash(num_perm=settings.num_perm, seed=settings.seed).permutations

    def sign(self, normal: str) -> LeanMinHash:
        m = MinHash(
            num_perm=self.settings.num_perm,
            seed=self.settings.seed,
            hashfunc=zlib.crc32,
            permutations=self._permutations,
            scheme="affine32",
        )
        m.update_batch(shingles(normal, self.settings.shingle_chars))
        return LeanMinHash(m)

    def fingerprint(self, text: str) -> Fingerprint:
        normal = normalize_text(text)
        return Fingerprint(normal, sha256_hex(normal), self.sign(normal))


@lru_cache(maxsize=16)
def _lsh_params(threshold: float, num_perm: int) -> tuple[int, int]:
    """Bands and rows datasketch picks for a threshold: computed once (the search integrates numerically)."""
    probe = MinHashLSH(threshold=threshold, num_perm=num_perm)
    return probe.b, probe.r


class NearDupIndex:
    """LSH over signatures plus a verification step on the estimated Jaccard."""

    def __init__(self, threshold: float, num_perm: int):
        self.threshold = threshold
        self._lsh = MinHashLSH(threshold=threshold, num_perm=num_perm, params=_lsh_params(threshold, num_perm))
        self._signatures: dict[str, LeanMinHash] = {}
        self._order: dict[str, int] = {}

    def add(self, key: str, sig: LeanMinHash) -> None:
        self._lsh.insert(key, sig, check_duplication=False)
        self._signatures[key] = sig
        self._order[key] = len(self._order)

    def best_match(self, sig: LeanMinHash) -> Match | None:
        best: tuple[float, int, str] | None = None
        for key in self._lsh.query(sig):
            sim = sig.jaccard(self._signatures[key])
            if sim < self.threshold:
                continue  # LSH candidates are only likely matches: verify
            rank = (-sim, self._order[key], key)
            if best is None or rank < best:
                best = rank
        return None if best is None else Match("near", best[2], round(-best[0], 4))

    def __len__(self) -> int:
        return len(self._signatures)


class Deduplicator:
    """Feed prompts in order; each one is either new (and remembered) or a duplicate of an earlier one."""

    def __init__(self, settings: DedupSettings):
        self.signer = Signer(settings)
        self._exact: dict[str, str] = {}
        self._near = NearDupIndex(settings.threshold, settings.num_perm)

    def check(self, key: str, text: str, fp: Fingerprint | None = None) -> Match | None:
        fp = fp or self.signer.fingerprint(text)
        if fp.exact_key in self._exact:
            return Match("exact", self._exact[fp.exact_key], 1.0)
        match = self._near.best_match(fp.signature)
        if match is None:
            self._exact[fp.exact_key] = key
            self._near.add(key, fp.signature)
        return match
