"""`webmend prompts` end to end: every input ends kept or rejected with a reason; outputs match the schemas."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq

from webmend.cli import main
from webmend.schemas.tables import REJECT_REASONS, TABLES

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "data" / "bench" / "items.jsonl"

LINES = [
    {"id": "ok-1", "prompt": "Make a classic Snake game on canvas with arrow key controls, score, and increasing speed."},
    {"id": "dup-exact", "prompt": "make a classic snake game on canvas with arrow key controls -- score and increasing speed!"},
    {"id": "dup-near", "prompt": "Make a classic Snake game on an HTML canvas with arrow key controls, a score, and increasing speed."},
    {"id": "ok-2", "prompt": "Create a Tetris clone with hold piece, next preview, line clears and levels."},
    {"id": "login", "prompt": "Build a page that logs in to my bank account and lists my transactions."},
    {"id": "secret", "prompt": "Weather widget page; my api key is sk-abcdefghijklmnop0123456 so use it."},
    {"id": "question", "prompt": "How do I center a div in CSS?"},
    {"id": "short", "prompt": "Pong."},
    {"id": "ok#3", "prompt": "Design a landing page for a meditation app with a pricing toggle and an FAQ accordion."},
    {"id": "ok-1", "prompt": "Build a Pomodoro timer with 25/5 cycles and a session counter."},
]


def _inputs(tmp_path) -> Path:
    path = tmp_path / "prompts.jsonl"
    if path.exists():
        return path  # rewriting it would change its mtime, which is the records' fetch time
    snake = next(json.loads(l) for l in BENCH.read_text().splitlines() if json.loads(l)["id"] == "game_snake_001")
    rows = LINES + [{"id": "leak", "prompt": snake["prompt"].replace("Snake", "snake")}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + "not json\n")
    return path


def _run(tmp_path, name: str) -> tuple[list[dict], list[dict], dict]:
    out = tmp_path / name
    assert main(["prompts", str(_inputs(tmp_path)), "--benchmark", str(BENCH), "--out", str(out)]) == 0
    prompts = pq.read_table(out / "prompts.parquet")
    rejects = pq.read_table(out / "rejects.parquet")
    assert prompts.schema.equals(TABLES["prompts"]) and rejects.schema.equals(TABLES["prompt_rejects"])
    return prompts.to_pylist(), rejects.to_pylist(), json.loads((out / "report.json").read_text())


def test_every_input_is_accounted_for_with_a_reason(tmp_path):
    prompts, rejects, report = _run(tmp_path, "out")
    kept = {p["id"]: p for p in prompts}
    why = {r["id"]: r for r in rejects}
    assert set(kept) == {"ok-1", "ok-2", "ok-3", "ok-1~2"}  # '#' never survives; a reused id gets a suffix
    assert why["dup-exact"]["reason"] == "duplicate" and why["dup-exact"]["matched_id"] == "ok-1"
    assert why["dup-near"]["reason"] == "near_duplicate" and why["dup-near"]["similarity"] >= 0.5
    assert why["login"]["reason"] == "policy" and why["login"]["rule"] == "login_required"
    assert why["secret"]["reason"] == "policy" and "sk-abc" not in why["secret"]["prompt"]  # redacted
    assert why["question"]["reason"] == "not_a_web_task"
    assert why["short"]["reason"] == "length"
    assert why["leak"]["reason"] == "contaminated" and why["leak"]["matched_id"] == "game_snake_001"
    assert why["prompts-12"]["reason"] == "malformed_input"
    assert {r["reason"] for r in rejects} <= set(REJECT_REASONS)
    assert report["inputs"] == 12 == report["kept"] + report["rejected"]
    assert report["contamination"] == [{
        "id": "leak", "benchmark_id": "game_snake_001", "benchmark_file": str(BENCH), "match": "exact",
        "similarity": 1.0, "matched_ngrams": None, "source": "prompts", "file": why["leak"]["file"],
        "url": None}]
    assert kept["ok-2"]["family"] == "games_simulations" and kept["ok-2"]["family_method"] == "rules"
    assert all(len(p["input_hash"]) == 64 and p["run_id"] == report["run_id"] for p in prompts)


def test_rerun_gives_identical_rows(tmp_path):
    first = _run(tmp_path, "a")
    second = _run(tmp_path, "b")
    assert first[0] == second[0] and first[1] == second[1]
    assert first[2]["run_id"] == second[2]["run_id"]


def test_bad_benchmark_is_a_usage_error(tmp_path, capsys):
    code = main(["prompts", str(_inputs(tmp_path)), "--benchmark", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "o")])
    assert code == 2 and "no such file" in capsys.readouterr().err
