"""Result records -> trace-table rows, on a hand-written results.jsonl (no browser)."""

from __future__ import annotations

import json

import jsonschema
import pytest
from conftest import FIXTURES

from webmend.evaluate import traces
from webmend.schemas.export import HERE
from webmend.schemas.hashing import sha256_hex
from webmend.store import DataRoot, to_table

RESULTS = FIXTURES / "traces" / "results.jsonl"


@pytest.fixture(scope="module")
def records() -> list[dict]:
    return [json.loads(line) for line in RESULTS.read_text().splitlines()]


def test_fixture_is_a_valid_results_file(records):
    schema = json.loads((HERE / "result.schema.json").read_text())
    for rec in records:
        jsonschema.validate(rec, schema)


def test_rows_per_table_and_each_validates(records):
    rows = traces.trace_rows(records, run_id="r1")
    assert {t: len(r) for t, r in rows.items()} == {"evaluations": 5, "test_results": 5, "contract_results": 0, "experience_events": 11}
    for table, table_rows in rows.items():
        assert to_table(table, table_rows).num_rows == len(table_rows)


def test_evaluation_row_carries_scores_state_tests_and_blocked_requests(records):
    row = traces.trace_rows(records, run_id="r1", config_hash="stagecfg")["evaluations"][0]
    assert (row["id"], row["status"], row["state"], row["family"], row["subtype"]) == (
        "games/snake", "ok", "High", "games_simulations", "arcade")
    assert (row["score_total"], row["score_interaction"], row["score_code_quality"]) == (86.5, 14.0, 8.0)
    assert (row["tests_total"], row["tests_passed"], row["test_weight_passed"], row["test_weight_total"]) == (2, 1, 3.0, 5.0)
    assert row["blocked_requests_total"] == 3 and [b["channel"] for b in row["blocked_requests"]] == ["stylesheet", "fetch"]
    assert json.loads(row["evidence"]) == records[0]["evidence"]
    assert (row["run_id"], row["config_hash"], row["result_schema_version"]) == ("r1", "stagecfg", "1.0")


def test_rejects_and_failures_have_no_scores(records):
    rows = {r["id"]: r for r in traces.trace_rows(records, run_id="r1")["evaluations"]}
    for page in ("apps/planner", "refusal"):
        assert rows[page]["score_total"] is None and rows[page]["state"] is None and rows[page]["tests_total"] == 0
    assert rows["refusal"]["family"] is None and rows["refusal"]["evidence"] is None
    assert rows["charts/sales"]["score_interaction"] is None  # non-interactive profile
    assert rows["apps/planner"]["config_hash"] == "a1b2c3d4e5f60718"  # the record's own by default


def test_test_results_keep_order_and_failure_details(records):
    rows = traces.trace_rows(records, run_id="r1")["test_results"]
    assert [(r["id"], r["test_index"], r["test_id"], r["passed"]) for r in rows] == [
        ("games/snake", 0, "snake-start", True), ("games/snake", 1, "snake-turn", False),
        ("charts/sales", 0, "chart-bars", False),
        ("games/particles", 0, "particles-start", False), ("games/particles", 1, "snake-turn", False)]
    load_failure = rows[4]
    assert (load_failure["failed_step"], load_failure["failed_action"], load_failure["page_status"]) == (None, "load", "hang")


def test_experience_events_from_evidence_and_failed_tests(records):
    rows = traces.trace_rows(records, run_id="r1")["experience_events"]
    by_page = [(r["id"], r["seq"], r["layer"], r["kind"], r["test_id"], r["step_index"]) for r in rows]
    assert by_page[:4] == [
        ("games/snake", 0, "page", "console_error", None, None),
        ("games/snake", 1, "network", "blocked_request", None, None),
        ("games/snake", 2, "network", "blocked_request", None, None),
        ("games/snake", 3, "test", "test_failed", "snake-turn", 2)]
    assert json.loads(rows[3]["payload"]) == {"action": "assert_text", "error": "#score: expected '1', got '0'"}
    assert [r["kind"] for r in rows if r["id"] == "charts/sales"] == ["page_error", "dialog", "test_failed"]
    assert [r["kind"] for r in rows if r["id"] == "games/particles"] == ["hang", "blocked_request", "test_failed", "test_failed"]


def test_input_hashes_come_from_the_caller_or_fall_back_to_identity(records):
    page_hash = sha256_hex("<html>snake</html>")
    rows = traces.trace_rows(records[:2], run_id="r", input_hashes={"games/snake": page_hash})
    assert rows["evaluations"][0]["input_hash"] == page_hash
    assert {r["input_hash"] for r in rows["test_results"] if r["id"] == "games/snake"} == {page_hash}
    assert rows["evaluations"][1]["input_hash"] == sha256_hex("charts/sales\x1fresponses.jsonl:2")


def test_write_then_rerun_skips_and_replace_overwrites(records, tmp_path):
    root = DataRoot(tmp_path)
    urls = traces.write_evaluation_traces(records, root, "run-a")
    assert sorted(urls) == ["contract_results", "evaluations", "experience_events", "test_results"]
    key = traces.traces_key(records)
    assert all(url.endswith(f"/{key}.parquet") for url in urls.values())
    assert traces.write_evaluation_traces(records, str(tmp_path), "run-b") == urls  # same key: skipped
    assert set(root.read("evaluations").column("run_id").to_pylist()) == {"run-a"}
    assert root.read("test_results").num_rows == 5 and root.read("experience_events").num_rows == 11
    traces.write_evaluation_traces(records, root, "run-c", mode="replace")
    assert set(root.read("evaluations").column("run_id").to_pylist()) == {"run-c"}
    assert root.read("evaluations").num_rows == 5


def test_key_depends_on_pages_and_config(records):
    assert traces.traces_key(records) == traces.traces_key([dict(r) for r in records])
    assert traces.traces_key(records) != traces.traces_key(records[:4])
    assert traces.traces_key(records) != traces.traces_key(records, config_hash="other")
    assert traces.write_evaluation_traces([], "unused", "r") == {}


def test_chunk_keys_number_repeats_and_refuse_empty_chunks():
    keys = traces.chunk_keys(["a", "b", "a", "b", "c"], "cfg", batch_size=2)
    assert len(keys) == 3 and keys[0] != keys[1] and len(set(keys)) == 3  # second (a, b) numbered
    assert keys[0] == traces.make_key(traces.STAGE, "a", "b", "cfg")
    assert keys == traces.chunk_keys(["a", "b", "a", "b", "c"], "cfg", batch_size=2)
    assert traces.chunk_keys(["a", "b"], "other", batch_size=2) != keys[:1]
    with pytest.raises(ValueError):
        traces.chunk_keys(["a"], "cfg", batch_size=0)


def test_results_traces_in_chunks_then_rerun_skips(records, tmp_path):
    hashes = [sha256_hex(f"<html>{r['id']}</html>") for r in records]
    root = DataRoot(tmp_path)
    done = traces.write_results_traces(records, hashes, root, "cfg", batch_size=2)
    assert (done["batches"], done["written"], done["skipped"]) == (3, 3, 0)
    assert done["run_id"].startswith("evaluate-")
    keys = traces.chunk_keys(hashes, "cfg", batch_size=2)
    assert sorted(p.stem for p in (tmp_path / "evaluations").glob("*.parquet")) == sorted(keys)
    rows = root.read("evaluations").sort_by("input_index")
    assert rows.column("input_hash").to_pylist() == hashes
    assert set(rows.column("config_hash").to_pylist()) == {"cfg"}
    assert set(rows.column("run_id").to_pylist()) == {done["run_id"]}
    assert root.read("test_results").num_rows == 5 and root.read("experience_events").num_rows == 11
    again = traces.write_results_traces(iter(records), hashes, str(tmp_path), "cfg", batch_size=2)
    assert (again["written"], again["skipped"], again["run_id"]) == (0, 3, done["run_id"])


def test_results_traces_refuse_results_that_do_not_match_the_inputs(records, tmp_path):
    hashes = [sha256_hex(r["id"]) for r in records]
    with pytest.raises(ValueError, match="do not match"):
        traces.write_results_traces(records[1:], hashes[1:], tmp_path, "cfg")  # indexes start at 1
    with pytest.raises(ValueError, match="more results"):
        traces.write_results_traces(records, hashes[:4], tmp_path / "b", "cfg", batch_size=2)


def test_experience_trace_and_keyframes_become_rows_with_page_time(records):
    rec = json.loads(json.dumps(records[0]))
    rec["layers"] = [1, 2, 4]
    rec["trace_summary"] = {"layers": [1, 2, 4], "rendered": True}
    rec["evidence"]["experience"] = {"layers": [1, 2, 4], "trace": [
        {"i": 0, "layer": 1, "doc": "probe", "page_ms": 500, "action": "load", "target": None, "change": None,
         "evidence": {"rendered": True}},
        {"i": 1, "layer": 2, "doc": "probe", "page_ms": 4100, "action": "click", "target": "#go", "change": False,
         "evidence": {"listeners": []}},
    ]}
    rec["keyframes"] = [{"n": 0, "file": "keyframes/abc.png", "annotation": "first paint", "layer": 1, "page_ms": 500, "event": 0}]
    rows = traces.trace_rows([rec], run_id="r1")
    exp = [r for r in rows["experience_events"] if r["layer"].startswith("L")]
    assert [(r["layer"], r["kind"], r["step_index"], r["page_time_ms"]) for r in exp] == [
        ("L1", "load", 0, 500.0), ("L2", "click", 1, 4100.0), ("L4", "keyframe", 0, 500.0)]
    assert json.loads(exp[1]["payload"]) == {"doc": "probe", "target": "#go", "change": False, "evidence": {"listeners": []}}
    assert json.loads(exp[2]["payload"])["file"] == "keyframes/abc.png"
    evaluation = rows["evaluations"][0]
    assert evaluation["layers"] == [1, 2, 4] and json.loads(evaluation["trace_summary"])["rendered"] is True
    for table, table_rows in rows.items():
        to_table(table, table_rows)  # validates against the table schema
