"""Decontamination: no prompt that matches a benchmark prompt may enter the corpus.

Benchmarks are files: HTMLBench-format items (JSONL with `prompt`) or plain prompt lists (one per
line, or JSONL/Parquet/JSON records with a prompt field). A prompt is contaminated when its normal
form equals a benchmark prompt's (`exact`), when their estimated Jaccard reaches the decontamination
threshold (`near`; below the dedup threshold on purpose: a leak costs more than a lost prompt), or
when it shares enough word n-grams with one benchmark prompt (`ngram`: a benchmark passage inside
longer text, which whole-text similarity dilutes away).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from webmend.intake.config import DecontamSettings, DedupSettings
from webmend.intake.dedup import Fingerprint, NearDupIndex, Signer
from webmend.intake.normalize import normalize_text
from webmend.intake.sources import iter_file
from webmend.schemas.hashing import sha256_hex

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BenchmarkPrompt:
    id: str
    file: str
    prompt: str


@dataclass(frozen=True)
class Contamination:
    benchmark_id: str
    benchmark_file: str
    kind: str  # "exact" | "near" | "ngram"
    similarity: float  # 1.0 exact; estimated Jaccard near; share of the benchmark's n-grams found (ngram)
    matched_ngrams: int | None = None  # ngram: distinct benchmark n-grams the prompt contains


def word_ngrams(normal: str, n: int) -> set[str]:
    """Distinct n-word runs of an already normalised text (none when it has fewer than n words)."""
    words = normal.split()
    return {" ".join(words[i:i + n]) for i in range(len(words) - n + 1)}


class NgramIndex:
    """Benchmark n-grams -> the benchmark prompts that contain them; the best match of a text is
    the benchmark prompt with the most distinct shared n-grams (then the earliest)."""

    def __init__(self, n: int, min_matches: int):
        self.n, self.min_matches = n, min_matches
        self._owners: dict[str, list[int]] = {}
        self._sizes: list[int] = []

    def add(self, normal: str) -> None:
        index = len(self._sizes)
        grams = word_ngrams(normal, self.n)
        self._sizes.append(len(grams))
        for gram in grams:
            self._owners.setdefault(gram, []).append(index)

    def best_match(self, normal: str) -> tuple[int, int, float] | None:
        """(benchmark index, shared n-grams, share of that benchmark's n-grams), or None below min_matches."""
        if self.min_matches < 1 or not self._owners:
            return None
        counts: dict[int, int] = {}
        for gram in word_ngrams(normal, self.n):
            for owner in self._owners.get(gram, ()):
                counts[owner] = counts.get(owner, 0) + 1
        if not counts:
            return None
        best = min(counts, key=lambda i: (-counts[i], i))
        if counts[best] < self.min_matches:
            return None
        return best, counts[best], round(counts[best] / self._sizes[best], 4)


def load_benchmarks(paths) -> list[BenchmarkPrompt]:
    """Every usable prompt of the given files; a missing or empty benchmark file is an error."""
    out: list[BenchmarkPrompt] = []
    for given in paths:
        path = Path(given)
        if not path.is_file():
            raise FileNotFoundError(f"benchmark file {path}: no such file")
        found = [BenchmarkPrompt(r.id, str(path), r.text) for r in iter_file(path) if r.problem is None and r.text]
        if not found:
            raise ValueError(f"benchmark file {path}: no prompts found")
        out.extend(found)
    return out


class Decontaminator:
    def __init__(self, benchmarks: list[BenchmarkPrompt], dedup: DedupSettings, settings: DecontamSettings):
        self.dedup_settings = dedup
        self._signer = Signer(dedup)
        self._exact: dict[str, BenchmarkPrompt] = {}
        self._near = NearDupIndex(settings.threshold, dedup.num_perm)
        self._by_key: dict[str, BenchmarkPrompt] = {}
        self._ngrams = NgramIndex(settings.ngram_n, settings.ngram_min_matches)
        self._benchmarks = list(benchmarks)
        for i, bench in enumerate(benchmarks):
            normal = normalize_text(bench.prompt)
            self._exact.setdefault(sha256_hex(normal), bench)
            key = str(i)
            self._by_key[key] = bench
            self._near.add(key, self._signer.sign(normal))
            self._ngrams.add(normal)
        log.info("decontamination index: %d benchmark prompts", len(benchmarks))

    def check(self, text: str, fp: Fingerprint | None = None) -> Contamination | None:
        """fp: the text's fingerprint when the caller has one (it must come from the same dedup settings)."""
        fp = fp or self._signer.fingerprint(text)
        bench = self._exact.get(fp.exact_key)
        if bench is not None:
            return Contamination(bench.id, bench.file, "exact", 1.0)
        match = self._near.best_match(fp.signature)
        if match is not None:
            bench = self._by_key[match.key]
            return Contamination(bench.id, bench.file, "near", match.similarity)
        overlap = self._ngrams.best_match(fp.normal)
        if overlap is None:
            return None
        index, shared, share = overlap
        bench = self._benchmarks[index]
        return Contamination(bench.id, bench.file, "ngram", share, shared)
