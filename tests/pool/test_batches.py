"""Batching, keys and skip-if-committed of build-refined-pool (no browser); the driver: tests/stage/."""

from __future__ import annotations

import hashlib
import json

import pytest
from conftest import FIXTURES, ROOT

from webmend.config import EvalConfig
from webmend.evaluate import traces
from webmend.evaluate.inputs import RawInput
from webmend.pool import batches
from webmend.store import DataRoot

RESULTS = FIXTURES / "traces" / "results.jsonl"
SAMPLES = ROOT / "data" / "samples"


@pytest.fixture(scope="module")
def records() -> list[dict]:
    return [json.loads(line) for line in RESULTS.read_text().splitlines()]


def inputs_for(records: list[dict]) -> list[RawInput]:
    """Inputs with the fixture records' ids (the page text stands in for the answer)."""
    return [RawInput(r["index"], r["id"], r["source"], f"<html>{r['id']}</html>") for r in records]


def test_batches_are_fixed_chunks_in_input_order_with_stable_keys():
    corpus = batches.read_corpus([SAMPLES / "pages"], [SAMPLES / "responses.jsonl"])
    items = {"game_snake": {"id": "game_snake"}}
    first = batches.cut_batches(corpus, items, "cfg1", batch_size=4)
    again = batches.cut_batches(batches.read_corpus([SAMPLES / "pages"], [SAMPLES / "responses.jsonl"]),
                                items, "cfg1", batch_size=4)
    assert [b.key for b in first] == [b.key for b in again]
    assert [len(b.items) for b in first] == [4] * 7 + [3]  # 9 pages + 22 answers
    assert [j.raw.index for b in first for j in b.items] == list(range(31))
    assert len({b.key for b in first}) == 8
    other_config = batches.cut_batches(corpus, items, "cfg2", batch_size=4)
    assert not {b.key for b in first} & {b.key for b in other_config}
    snake = [j for b in first for j in b.items if j.raw.id == "game_snake#1"][0]
    assert snake.item == {"id": "game_snake"}  # a sample P#k gets its prompt's item
    with pytest.raises(ValueError):
        batches.cut_batches(corpus, items, "cfg1", batch_size=0)


def test_read_corpus_indexes_pages_then_answers():
    corpus = batches.read_corpus([SAMPLES / "pages"], [SAMPLES / "responses.jsonl"])
    assert [r.index for r in corpus] == list(range(31))
    assert corpus[0].source.endswith("apps_expense_tracker.html")
    assert corpus[9].id == "apps_expense_tracker" and corpus[9].source.endswith("responses.jsonl:1")


def test_input_hash_is_the_sha256_of_the_input_and_rejects_differ():
    raw = RawInput(0, "a", "x.jsonl:1", "<p>hi</p>")
    assert batches.input_hash(raw) == hashlib.sha256(b"<p>hi</p>").hexdigest()
    bad1 = RawInput(1, "line-2", "x.jsonl:2", None, ("malformed_input", "invalid JSON"))
    bad2 = RawInput(2, "line-3", "x.jsonl:3", None, ("malformed_input", "invalid JSON"))
    assert batches.input_hash(bad1) != batches.input_hash(bad2)


def test_planned_key_is_the_key_the_traces_are_written_under(tmp_path, records):
    cfg = EvalConfig()
    root = DataRoot(tmp_path / "data")
    plan = batches.plan_pool(root, inputs_for(records), {}, cfg, batch_size=2)
    assert [len(b.items) for b in plan.batches] == [2, 2, 1] and plan.pending == plan.batches
    assert plan.run_id == batches.plan_pool(root, inputs_for(records), {}, cfg, batch_size=2).run_id
    first = plan.batches[0]
    recs = [dict(r, input_hash=j.input_hash) for r, j in zip(records[:2], first.items)]
    assert first.key == traces.traces_key(recs, plan.config_hash)  # the key write_evaluation_traces would use
    batches.write_batch(first, recs, str(root.path), plan.run_id, plan.config_hash)
    assert root.keys("evaluations") == [first.key]
    rows = root.read("evaluations").to_pylist()
    assert [(r["id"], r["input_hash"], r["config_hash"], r["run_id"]) for r in rows] == [
        (j.raw.id, j.input_hash, cfg.config_hash(), plan.run_id) for j in first.items]
    rerun = batches.plan_pool(root, inputs_for(records), {}, cfg, batch_size=2)
    assert [b.key for b in rerun.pending] == [b.key for b in plan.batches[1:]]  # committed batch skipped
    forced = batches.plan_pool(root, inputs_for(records), {}, cfg, batch_size=2, replace=True)
    assert forced.pending == forced.batches


def test_write_batch_refuses_records_of_another_batch(tmp_path, records):
    plan = batches.plan_pool(DataRoot(tmp_path), inputs_for(records), {}, EvalConfig(), batch_size=2)
    with pytest.raises(ValueError, match="do not match"):
        batches.write_batch(plan.batches[0], records[2:4], str(tmp_path), "r", plan.config_hash)
    assert DataRoot(tmp_path).keys("evaluations") == []


def test_input_hash_of_a_record_wins_over_the_id_map(records):
    rec = dict(records[0], input_hash="c" * 64)
    assert traces.record_input_hash(rec, {rec["id"]: "d" * 64}) == "c" * 64


def test_repeated_contents_get_their_own_batches_and_rows(tmp_path, records):
    """Identical answers under different ids (e.g. empty ones) must not share a key, or the
    repeat would be skipped as done and its pages would get no record."""
    inputs = [RawInput(i, f"p#{i}", f"r.jsonl:{i + 1}", "") for i in range(4)]
    plan = batches.plan_pool(DataRoot(tmp_path), inputs, {}, EvalConfig(), batch_size=1)
    assert len({b.key for b in plan.batches}) == 4
    assert plan.batches[0].key == batches.batch_key([batches.input_hash(inputs[0])], plan.config_hash)
    template = records[4]  # a reject record (no_html)
    for batch in plan.batches:
        job = batch.items[0]
        rec = dict(template, id=job.raw.id, source=job.raw.source, index=job.raw.index, input_hash=job.input_hash)
        batches.write_batch(batch, [rec], str(tmp_path), plan.run_id, plan.config_hash)
    rows = DataRoot(tmp_path).read("evaluations").to_pylist()
    assert sorted(r["id"] for r in rows) == ["p#0", "p#1", "p#2", "p#3"]
    assert batches.plan_pool(DataRoot(tmp_path), inputs, {}, EvalConfig(), batch_size=1).pending == ()
