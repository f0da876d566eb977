"""The flow's repair stage without Prefect: stored verdicts read back from the data root, the artifact."""

from __future__ import annotations

from store.store_fixtures import fixture_records, repair_records

from webmend.evaluate.traces import write_evaluation_traces
from webmend.pool.repair import repair_markdown, stored_verdicts, summarize_repair
from webmend.repair.traces import write_repair_traces
from webmend.schemas.results import PageVerdict
from webmend.store import DataRoot


KEYFRAMES = [{"n": 0, "file": "keyframes/snake/0.png", "annotation": "first paint", "layer": 1, "page_ms": 120,
              "event": None},
             {"n": 1, "file": "keyframes/snake/1.png", "annotation": "after Space", "layer": 2, "page_ms": 1850,
              "event": 4}]
# A row keeps no assertion verdicts, per-assertion reasons or steps: those stay empty here.
CONTRACT = {"task_id": "snake", "contract_hash": "c" * 64, "transition_validity": 0.5, "req_explicit": 1.0,
            "req_implicit": 0.0, "reward": 0.5, "requirements": {"R1": 1.0, "R2": 0.0}, "labels": {"R1": 1, "R2": 0},
            "unmet": [{"id": "R2", "kind": "implicit", "text": "keeps score"}], "documents": 2, "transitions_run": 2,
            "elapsed_s": 1.5, "error": None,
            "transitions": {"start": {"status": "passed", "failed_step": None, "reason": "", "assertions": {}},
                            "turn": {"status": "failed", "failed_step": 1, "reason": "no turn", "assertions": {}}}}


def test_stored_verdicts_are_the_records_verdicts(tmp_path):
    """Rows back to typed verdicts: everything diagnosis and acceptance read, keyframes included."""
    records = fixture_records()[:3]
    records[0] = {**records[0], "keyframes": KEYFRAMES, "contract": CONTRACT}
    root = DataRoot(tmp_path)
    key = write_evaluation_traces(records, root, "run-1")["evaluations"].rsplit("/", 1)[-1][: -len(".parquet")]
    rebuilt = stored_verdicts(root, key)
    assert sorted(v.id for v in rebuilt.values()) == sorted(rec["id"] for rec in records)
    by_id = {v.id: v for v in rebuilt.values()}
    for rec in records:
        assert by_id[rec["id"]] == PageVerdict.of(rec)


def test_stored_verdicts_of_a_missing_batch_are_empty(tmp_path):
    assert stored_verdicts(DataRoot(tmp_path), "0" * 32) == {}


def test_repair_markdown_shows_the_band_funnel():
    md = repair_markdown({"pages": 3, "improved": 2, "mean_score_before": 40.0, "mean_score_after": 70.0,
                          "transitions": {"Low": {"Mid": {"count": 2, "row_pct": 100.0}},
                                          "High": {"High": {"count": 1, "row_pct": 100.0}}}}, "pool-x")
    assert "3 pages, 2 improved; mean score 40.0 -> 70.0" in md
    assert "| Low | · | 2 (100%) | · |" in md and "| High | · | · | 1 (100%) |" in md


def test_each_batch_names_its_slowest_page_and_its_share(tmp_path):
    """Two repair batches (one worker each, pages one after another): the summary and the artifact
    say which page held each batch up."""
    root = DataRoot(tmp_path)
    low, high, mid = repair_records()
    for rec in (low, high, mid):
        write_repair_traces([(rec, {})], root, f"page-{rec['id']}", run_id="r")
    summary = summarize_repair(str(tmp_path), ["page-p-low", "page-p-high", "page-p-mid"],
                               [["page-p-low", "page-p-high"], ["page-p-mid"]])
    assert summary["slowest_by_batch"] == [
        {"batch": 0, "wall_s": 13.5, "pages": 2, "slowest_page": "p-low", "slowest_s": 12.0, "slowest_share": 0.889},
        {"batch": 1, "wall_s": 4.0, "pages": 1, "slowest_page": "p-mid", "slowest_s": 4.0, "slowest_share": 1.0}]
    md = repair_markdown(summary, "pool-x")
    assert "| 1 | 1 | 4.0 | p-mid | 4.0 | 100% |" in md and "| 0 | 2 | 13.5 | p-low | 12.0 | 89% |" in md


def test_a_process_builds_its_repair_model_once_so_the_spend_cap_spans_its_batches(tmp_path):
    from webmend.config import RepairConfig
    from webmend.llm.settings import GenerationSettings
    from webmend.pool.repair import ModelSpec, process_model

    spec = ModelSpec("openai/scripted", GenerationSettings(max_cost=0.5, workers=1).model_dump_json(), str(tmp_path))
    first = process_model(spec, RepairConfig())
    assert process_model(spec, RepairConfig()) is first  # the next batch on this worker
    assert process_model(spec, RepairConfig(max_rounds=2)) is not first  # another config, another model
    assert process_model(None, RepairConfig()) is None
