"""Dedup: exact after normalisation, near-duplicates by MinHash/LSH, stable across processes."""

from __future__ import annotations

import json
import subprocess
import sys

from webmend.intake.config import DedupSettings, IntakeConfig
from webmend.intake.dedup import Deduplicator, Signer
from webmend.intake.normalize import normalize_text
from webmend.intake.quality import near_dup_metrics

BASE = "Build a Kanban board with three columns (To Do, Doing, Done); drag cards between them and save to localStorage."


def test_normalisation_ignores_case_whitespace_punctuation_and_unicode_forms():
    variants = [BASE.upper(), "  " + BASE.replace(" ", "\n\t "), BASE.replace(",", "").replace(";", " ; "),
                BASE.replace("Kanban", "Ｋａｎｂａｎ")]
    assert {normalize_text(v) for v in variants} == {normalize_text(BASE)}


def test_exact_then_near_then_distinct():
    d = Deduplicator(DedupSettings())
    assert d.check("a", BASE) is None
    exact = d.check("b", "build a kanban board with three columns: to do, doing, done -- drag cards between them and save to localstorage")
    assert (exact.kind, exact.key, exact.similarity) == ("exact", "a", 1.0)
    near = d.check("c", "Build a Kanban board with four columns (To Do, Doing, Review, Done); drag cards between them and save to localStorage.")
    assert near.kind == "near" and near.key == "a" and 0.5 <= near.similarity < 1
    assert d.check("d", "Create a Pomodoro timer with 25/5 minute cycles, a session counter and a sound at the end.") is None


def test_the_best_and_earliest_match_wins():
    d = Deduplicator(DedupSettings())
    d.check("first", BASE)
    d.check("other", "Make a memory card game with emoji pairs, a move counter and a timer.")
    assert d.check("again", BASE + " ").key == "first"


def test_labelled_pairs_meet_the_configured_gates():
    cfg = IntakeConfig()
    m = near_dup_metrics(cfg)
    assert m["pairs"] >= 200
    assert m["precision"] >= cfg.quality.near_dup_precision_min, m
    assert m["recall"] >= cfg.quality.near_dup_recall_min, m
    for variant in ("whitespace", "case", "punctuation", "small_edit", "distinct_same_topic"):
        assert variant in m["correct_by_variant"]


def test_signatures_are_identical_in_a_fresh_process():
    """No salted hash(): another interpreter (another PYTHONHASHSEED) computes the same signature."""
    here = Signer(DedupSettings()).sign(normalize_text(BASE)).hashvalues.tolist()
    code = ("import json,sys; from webmend.intake.dedup import Signer; from webmend.intake.config import DedupSettings;"
            "from webmend.intake.normalize import normalize_text;"
            "print(json.dumps(Signer(DedupSettings()).sign(normalize_text(sys.argv[1])).hashvalues.tolist()))")
    env = {"PYTHONHASHSEED": "12345", "PATH": "/usr/bin:/bin"}
    there = subprocess.run([sys.executable, "-c", code, BASE], capture_output=True, text=True, env=env, check=True)
    assert json.loads(there.stdout) == here
