"""Intake configuration: every threshold that decides what enters the prompt corpus.

Thresholds live here, not in the stage code, so that a run's outputs can be traced to the settings
that produced them (the config hash names them) and so that the quality gates on the labelled
sets can be tightened without touching the core.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from webmend.config import Frozen, load_model_config, model_hash


class DedupSettings(Frozen):
    shingle_chars: int = 5  # character n-grams of the normalised text: robust to one-word edits
    num_perm: int = 128
    seed: int = 1  # MinHash permutation seed: fixed, so signatures agree across processes and runs
    # Estimated Jaccard at or above which two prompts are near-duplicates. On the labelled pairs
    # (data/intake/near_dup_pairs.jsonl) true variants score >= 0.63 and distinct same-topic
    # prompts <= 0.37 apart from two that differ in one decisive noun: 0.5 sits in the gap.
    threshold: float = 0.5


class DecontamSettings(Frozen):
    threshold: float = 0.45  # lower than dedup: a benchmark leak costs more than a lost prompt
    # Word n-gram overlap (GPT-3's 13-gram decontamination): a prompt that shares at least
    # ngram_min_matches distinct n-word runs of its normal form with one benchmark prompt is
    # contaminated, however much other text surrounds them (whole-text similarity misses a
    # benchmark passage pasted into a long post). 13 words is longer than stock phrases
    # ("in a single HTML file", "persist ... in localStorage") but shorter than any passage worth
    # leaking. ngram_min_matches = 0 switches the check off.
    ngram_n: int = Field(13, ge=1)
    ngram_min_matches: int = Field(1, ge=0)


class CrawlSettings(Frozen):
    user_agent: str = "webmend-intake/0.1 (+https://example.invalid/webmend; polite crawler)"
    delay_s: float = 1.0  # minimum gap between two requests to one host (robots Crawl-delay may raise it)
    timeout_s: float = 10.0
    max_bytes: int = 1_000_000  # a page larger than this is skipped, not truncated
    max_pages: int = 500
    max_depth: int = 3
    max_redirects: int = 5


class FamilySettings(Frozen):
    llm_below_confidence: float = 0.5  # rule results under this confidence go to the LLM classifier when one is given


class QualityGates(Frozen):
    """Minimum figures on the committed labelled sets (data/intake/); tests assert them."""

    family_accuracy_min: float = 0.85
    interactive_accuracy_min: float = 0.85
    near_dup_precision_min: float = 0.95
    near_dup_recall_min: float = 0.90
    decontam_precision_min: float = 0.95
    decontam_recall_min: float = 0.95
    # Rules alone on the held-out paraphrases of data/intake/policy_labelled.jsonl (measured 0.878
    # recall and 0.914 of the allowed demos passing when the rules were written).
    policy_held_out_recall_min: float = 0.85
    policy_demo_pass_min: float = 0.88


class IntakeConfig(Frozen):
    min_prompt_chars: int = 20
    max_prompt_chars: int = 8000
    dedup: DedupSettings = DedupSettings()
    decontam: DecontamSettings = DecontamSettings()
    crawl: CrawlSettings = CrawlSettings()
    family: FamilySettings = FamilySettings()
    quality: QualityGates = Field(default_factory=QualityGates)

    def config_hash(self) -> str:
        # Quality gates judge the pipeline; they do not change its output, so they stay out of the hash.
        return model_hash(self, exclude={"quality"})


def load_intake_config(path: str | Path | None) -> IntakeConfig:
    """TOML or JSON; unknown keys are an error, not silently ignored."""
    return load_model_config(path, IntakeConfig)
