"""Decontamination against benchmark files (HTMLBench items and plain prompt lists)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webmend.intake.config import IntakeConfig
from webmend.intake.decontam import Decontaminator, load_benchmarks

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "data" / "bench" / "items.jsonl"


def _decontaminator(*paths) -> Decontaminator:
    cfg = IntakeConfig()
    return Decontaminator(load_benchmarks(paths), cfg.dedup, cfg.decontam)


def _bench_prompt(item_id: str) -> str:
    for line in BENCH.read_text().splitlines():
        item = json.loads(line)
        if item["id"] == item_id:
            return item["prompt"]
    raise KeyError(item_id)


def test_exact_and_near_matches_of_htmlbench_items():
    d = _decontaminator(BENCH)
    snake = _bench_prompt("game_snake_001")
    hit = d.check("  " + snake.upper().replace(",", ""))
    assert (hit.benchmark_id, hit.kind, hit.similarity, hit.benchmark_file) == ("game_snake_001", "exact", 1.0, str(BENCH))
    words = snake.split()
    edited = " ".join(words[:5] + ["really"] + words[5:-3] + ["please."])
    near = d.check(edited)
    assert near.benchmark_id == "game_snake_001" and near.kind == "near"
    assert d.check("Create a Tetris clone with hold piece, next preview, line clears and levels.") is None


def test_plain_prompt_list(tmp_path):
    plain = tmp_path / "other_bench.txt"
    plain.write_text("Make a Wordle clone with an on-screen keyboard and a fixed word list.\n\nDraw a spinning 3D cube with Three.js.\n")
    d = _decontaminator(plain)
    hit = d.check("make a wordle clone with an onscreen keyboard and a fixed list of words")
    assert hit.benchmark_id == "other_bench-1" and hit.kind == "near"


def test_missing_or_empty_benchmark_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_benchmarks([tmp_path / "nope.jsonl"])
    empty = tmp_path / "empty.txt"
    empty.write_text("\n")
    with pytest.raises(ValueError):
        load_benchmarks([empty])
