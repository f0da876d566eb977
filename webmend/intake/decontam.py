"""Decontamination: no prompt that matches a benchmark prompt may enter the corpus.

Benchmarks are files: HTMLBench-format items (JSONL with `prompt`) or plain prompt lists (one per
line, or JSONL/Parquet/JSON records with a prompt field). A prompt is contaminated when its normal
form equals a benchmark prompt's, or when their estimated Jaccard reaches the decontamination
threshold, which sits below the dedup threshold on purpose (a leak costs more than a lost prompt).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from webmend.intake.config import DecontamSettings, DedupSettings
from webmend.intake.dedup import Fingerprint, NearDupIndex, Signer
from webmend.intake.normalize import normalize_text, sha256_hex
from webmend.intake.sources import iter_file

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
    kind: str  # "exact" | "near"
    similarity: float


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
        for i, bench in enumerate(benchmarks):
            normal = normalize_text(bench.prompt)
            self._exact.setdefault(sha256_hex(normal), bench)
            key = str(i)
            self._by_key[key] = bench
            self._near.add(key, self._signer.sign(normal))
        log.info("decontamination index: %d benchmark prompts", len(benchmarks))

    def check(self, text: str, fp: Fingerprint | None = None) -> Contamination | None:
        """fp: the text's fingerprint when the caller has one (it must come from the same dedup settings)."""
        fp = fp or self._signer.fingerprint(text)
        bench = self._exact.get(fp.exact_key)
        if bench is not None:
            return Contamination(bench.id, bench.file, "exact", 1.0)
        match = self._near.best_match(fp.signature)
        if match is None:
            return None
        bench = self._by_key[match.key]
        return Contamination(bench.id, bench.file, "near", match.similarity)
