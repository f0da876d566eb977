"""The flow's repair stage without Prefect: stored verdicts read back from the data root, the artifact."""

from __future__ import annotations

from store.store_fixtures import fixture_records

from webmend.evaluate.traces import write_evaluation_traces
from webmend.pool.repair import repair_markdown, stored_records
from webmend.store import DataRoot


def test_stored_records_rebuild_what_diagnosis_and_acceptance_read(tmp_path):
    records = fixture_records()[:3]
    root = DataRoot(tmp_path)
    key = write_evaluation_traces(records, root, "run-1")["evaluations"].rsplit("/", 1)[-1][: -len(".parquet")]
    rebuilt = stored_records(root, key)
    assert len(rebuilt) == 3
    by_id = {r["id"]: r for r in rebuilt.values()}
    for rec in records:
        got = by_id[rec["id"]]
        assert (got["status"], got["state"], got["score"], got["flags"]) == (
            rec["status"], rec["state"], rec["score"], rec["flags"])
        assert [(t["id"], t["passed"], t["failed_step"]) for t in got["tests"]] == [
            (t["id"], t["passed"], t["failed_step"]) for t in rec["tests"]]
        assert got["evidence"] == rec["evidence"] and got["config_hash"] == rec["config_hash"]


def test_stored_records_of_a_missing_batch_are_empty(tmp_path):
    assert stored_records(DataRoot(tmp_path), "0" * 32) == {}


def test_repair_markdown_shows_the_band_funnel():
    md = repair_markdown({"pages": 3, "improved": 2, "mean_score_before": 40.0, "mean_score_after": 70.0,
                          "transitions": {"Low": {"Mid": {"count": 2, "row_pct": 100.0}},
                                          "High": {"High": {"count": 1, "row_pct": 100.0}}}}, "pool-x")
    assert "3 pages, 2 improved; mean score 40.0 -> 70.0" in md
    assert "| Low | · | 2 (100%) | · |" in md and "| High | · | · | 1 (100%) |" in md


def test_a_process_builds_its_repair_model_once_so_the_spend_cap_spans_its_batches(tmp_path):
    from webmend.config import RepairConfig
    from webmend.llm.settings import GenerationSettings
    from webmend.pool.repair import ModelSpec, process_model

    spec = ModelSpec("openai/scripted", GenerationSettings(max_cost=0.5, workers=1).model_dump_json(), str(tmp_path))
    first = process_model(spec, RepairConfig())
    assert process_model(spec, RepairConfig()) is first  # the next batch on this worker
    assert process_model(spec, RepairConfig(max_rounds=2)) is not first  # another config, another model
    assert process_model(None, RepairConfig()) is None
