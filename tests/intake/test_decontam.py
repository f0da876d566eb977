"""Decontamination against benchmark files (HTMLBench items and plain prompt lists)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from webmend.cli import main
from webmend.intake.config import IntakeConfig
from webmend.intake.decontam import Decontaminator, load_benchmarks, word_ngrams
from webmend.intake.normalize import normalize_text
from webmend.intake.quality import decontam_metrics

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "data" / "bench" / "items.jsonl"


def _decontaminator(*paths, **decontam) -> Decontaminator:
    cfg = IntakeConfig()
    return Decontaminator(load_benchmarks(paths), cfg.dedup, cfg.decontam.model_copy(update=decontam))


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


# A passage of app_todo_001 (23 words) pasted into a post three times its length.
TODO_PASSAGE = ("Users can add tasks (button or Enter), mark them complete with a checkbox, delete them, and filter "
                "by All / Active / Completed. Show how many items are left")
EMBEDDED = ("Hi all, long-time lurker, first post. For my evening course we have to hand in a small project next "
            f"week and the brief says, word for word: \"{TODO_PASSAGE}\". I have done some HTML before but never "
            "any JavaScript, so I am a bit lost with the events part and with how to keep the list when the page "
            "reloads. Would plain JavaScript be enough or do I need a framework? Thanks in advance to anyone who "
            "takes the time to answer, and sorry for my English.")
# Same topic, stock phrases only (each shorter than 13 words): not a leak.
CLEAN = [
    "Build a grocery list app in a single HTML file: users can add items, tick them off and delete them, "
    "and the list should persist in localStorage. Clean, modern, responsive design.",
    "Create a notes app with a sidebar and an editor, a dark-mode toggle, and autosave to localStorage. "
    "The layout should stack vertically on phones.",
    # 12 consecutive words of app_todo_001, one short of an n-gram:
    "Make a checklist page: add a chore with Enter, mark them complete with a checkbox, delete them, and filter by tag.",
]


def test_a_passage_inside_longer_text_is_caught_by_word_ngrams_only():
    assert _decontaminator(BENCH, ngram_min_matches=0).check(EMBEDDED) is None  # whole-text similarity misses it
    hit = _decontaminator(BENCH).check(EMBEDDED)
    passage_ngrams = len(normalize_text(TODO_PASSAGE).split()) - 13 + 1
    bench_ngrams = len(word_ngrams(normalize_text(_bench_prompt("app_todo_001")), 13))
    assert (hit.benchmark_id, hit.kind, hit.matched_ngrams) == ("app_todo_001", "ngram", passage_ngrams)
    assert hit.similarity == round(passage_ngrams / bench_ngrams, 4)


def test_common_phrases_are_not_contamination_and_n_and_threshold_are_settings():
    d = _decontaminator(BENCH)
    assert [d.check(text) for text in CLEAN] == [None, None, None]
    assert _decontaminator(BENCH, ngram_n=12).check(CLEAN[2]).matched_ngrams == 1  # a 12-word run at n = 12
    passage_ngrams = len(normalize_text(TODO_PASSAGE).split()) - 12
    assert _decontaminator(BENCH, ngram_min_matches=passage_ngrams).check(EMBEDDED).kind == "ngram"
    assert _decontaminator(BENCH, ngram_min_matches=passage_ngrams + 1).check(EMBEDDED) is None


def test_labelled_cases_meet_the_gates_and_ngrams_carry_the_passages():
    cfg = IntakeConfig()
    m = decontam_metrics(cfg)
    assert m["precision"] >= cfg.quality.decontam_precision_min and m["recall"] >= cfg.quality.decontam_recall_min, m
    assert m["correct_by_variant"]["embedded_passage"] == "20/20" and m["correct_by_variant"]["clean_same_topic"] == "20/20"
    whole_text = decontam_metrics(cfg.model_copy(update={"decontam": cfg.decontam.model_copy(update={"ngram_min_matches": 0})}))
    assert whole_text["correct_by_variant"]["embedded_passage"] == "0/20" and whole_text["recall"] < 0.5


def test_the_report_lists_ngram_matches_with_their_count(tmp_path):
    inputs = tmp_path / "posts.jsonl"
    inputs.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "pasted", "prompt": EMBEDDED}, *({"id": f"clean{i}", "prompt": t} for i, t in enumerate(CLEAN))]))
    out = tmp_path / "out"
    assert main(["prompts", str(inputs), "--benchmark", str(BENCH), "--out", str(out)]) == 0
    report = json.loads((out / "report.json").read_text())
    passage_ngrams = len(normalize_text(TODO_PASSAGE).split()) - 12
    [entry] = report["contamination"]
    assert (entry["id"], entry["benchmark_id"], entry["match"], entry["matched_ngrams"]) == (
        "pasted", "app_todo_001", "ngram", passage_ngrams)
    assert report["contaminated_by_match"] == {"exact": 0, "near": 0, "ngram": 1}
    assert report["thresholds"]["contaminated_ngram"] == {"n": 13, "min_matches": 1}
    assert report["kept"] == 3
    rejects = pq.read_table(out / "rejects.parquet").to_pylist()
    assert rejects[0]["rule"] == "ngram" and f"{passage_ngrams} shared 13-word n-grams" in rejects[0]["detail"]
