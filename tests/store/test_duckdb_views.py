"""DuckDB views over a data root, the database file, and the shipped example queries."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from s3_server import LocalS3
from store_fixtures import build_trace_root, fixture_records, prompt_rows

from webmend.evaluate.traces import write_evaluation_traces
from webmend.schemas.tables import TABLES
from webmend.store import DataRoot
from webmend.store.duckdb_views import build_database, connect, duckdb_type, example_queries, format_result, run_query

DOCS = Path(__file__).resolve().parents[2] / "docs" / "queries.md"

# The exact answer of every shipped example on the fixture root (data/fixtures/traces/results.jsonl).
EXPECTED = {
    "score_by_family": (
        ["family", "pages", "scored", "mean", "min", "median", "max"],
        [("(none)", 1, 0, None, None, None, None), ("apps_tools", 1, 0, None, None, None, None),
         ("data_visualization", 1, 1, 55.0, 55.0, 55.0, 55.0), ("games_simulations", 2, 2, 54.0, 21.5, 54.0, 86.5)]),
    "pages_by_state": (
        ["band", "pages", "percent"],
        [("High", 1, 20.0), ("Mid", 1, 20.0), ("Low", 1, 20.0), ("unscored", 2, 40.0)]),
    "most_failed_tests": (
        ["test_id", "failures", "runs", "failure_rate", "failed_at_load"],
        [("snake-turn", 2, 2, 1.0, 1), ("chart-bars", 1, 1, 1.0, 0), ("particles-start", 1, 1, 1.0, 0)]),
    "blocked_requests": (
        ["reason", "channel", "requests", "pages"],
        [("offsite", "fetch", 1, 1), ("offsite", "stylesheet", 1, 1), ("offsite", "websocket", 1, 1)]),
    "blocked_by_page": (
        ["id", "family", "blocked_requests_total", "listed"],
        [("games/snake", "games_simulations", 3, 2), ("games/particles", "games_simulations", 1, 1)]),
    "timed_out_pages": (
        ["id", "status", "family", "elapsed_s", "reason"],
        [("apps/planner", "timeout", "apps_tools", 60.4, "page exceeded its wall-clock cap twice (budget doubled on retry)"),
         ("games/particles", "hang", "games_simulations", 31.25,
          "page stopped responding after an action (click #start), also on the retry")]),
    "repair_transitions": (
        ["original_band", "final_band", "pages", "row_pct"],
        [("High", "High", 1, 100.0), ("Low", "Mid", 1, 100.0), ("Mid", "Mid", 1, 100.0)]),
    "repair_lift_by_strategy": (
        ["strategy", "original_state", "attempts", "accepted", "mean_accepted_gain", "early_rejected"],
        [("holistic_rewrite", "Low", 1, 0, None, 1), ("interaction_repair", "Mid", 1, 1, 10.0, 0),
         ("operator", "Low", 1, 1, 15.0, 0)]),
    "repair_unpassable_checks": (["id", "test_id"], [("p-mid", "tc_04"), ("p-mid", "tc_13")]),
    "repair_rounds_to_best": (
        ["original_state", "best_round", "pages"],
        [("High", 0, 1), ("Low", 1, 1), ("Mid", 1, 1)]),
}


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> DataRoot:
    return build_trace_root(tmp_path_factory.mktemp("traces"))


def test_every_shipped_example_is_tested():
    assert sorted(example_queries()) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_query_result(root, name):
    assert run_query(root, example_queries()[name]) == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_query_is_documented_verbatim(name):
    assert example_queries()[name].strip() in DOCS.read_text()


def test_views_span_all_files_and_empty_tables_keep_their_columns(root):
    assert len(root.keys("evaluations")) == 2
    with connect(root) as con:
        assert con.execute("SELECT count(*) FROM evaluations").fetchall() == [(5,)]
        for table, schema in TABLES.items():
            described = con.execute(f'DESCRIBE "{table}"').fetchall()
            assert [(row[0], row[1]) for row in described] == [(f.name, duckdb_type(f.type)) for f in schema], table


def test_database_file_opens_in_another_client_and_follows_new_files(tmp_path):
    root = build_trace_root(tmp_path / "data")
    path = build_database(root)
    assert path == str(tmp_path / "data" / "webmend.duckdb")
    query = "SELECT count(*), count(DISTINCT run_id) FROM evaluations"
    reader = [sys.executable, "-c",
              f"import duckdb; print(duckdb.connect({path!r}, read_only=True).execute({query!r}).fetchall())"]
    assert subprocess.run(reader, capture_output=True, text=True, check=True).stdout.strip() == "[(5, 1)]"
    write_evaluation_traces([{**r, "id": r["id"] + "-v2"} for r in fixture_records()], root, "run-2")
    assert subprocess.run(reader, capture_output=True, text=True, check=True).stdout.strip() == "[(10, 2)]"
    assert sorted(p.name for p in (tmp_path / "data").iterdir() if p.suffix == ".duckdb") == ["webmend.duckdb"]


DUCKDB_SHELL = Path(sys.executable).with_name("duckdb")  # the pinned duckdb-cli package's `duckdb`


def shell(*args: str, sql: str | None = None) -> str:
    res = subprocess.run([str(DUCKDB_SHELL), *args], input=sql, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return res.stdout


@pytest.fixture(scope="module")
def database(root) -> str:
    return build_database(root)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_example_runs_in_the_duckdb_shell_on_the_database_file(database, name):
    rows = json.loads(shell("-readonly", "-json", database, sql=example_queries()[name]))
    columns, expected = EXPECTED[name]
    assert [list(r) for r in rows] == [columns] * len(expected)
    assert [tuple(r.values()) for r in rows] == expected


def test_the_documented_shell_command(database):
    # docs/queries.md: duckdb runs/data/webmend.duckdb "SELECT count(*) FROM evaluations"
    assert shell("-csv", database, "SELECT count(*) FROM evaluations").split() == ["count_star()", "5"]


def test_duckdb_reads_an_s3_root_through_fsspec_and_sees_only_committed_files(tmp_path):
    with LocalS3() as s3:
        root = DataRoot(f"s3://{s3.bucket}/data", storage_options=s3.storage_options)
        write_evaluation_traces(fixture_records(), root, "run-1")
        root.write("prompts", prompt_rows(2), key="p")
        with root.fs.open(f"{root.path}/evaluations/torn.parquet", "wb") as fh:
            fh.write(b"PAR1 half a file")  # a writer that died before its commit marker
        assert run_query(root, example_queries()["pages_by_state"]) == EXPECTED["pages_by_state"]
        assert run_query(root, "SELECT id FROM prompts ORDER BY id") == (["id"], [("p0",), ("p1",)])
        path = build_database(root, tmp_path / "s3.duckdb")
        assert Path(path).is_file()
        with pytest.raises(ValueError, match="local path"):
            build_database(root)


def test_format_result():
    cols, rows = ["family", "mean"], [("games", 54.0), ("(none)", None)]
    assert format_result(cols, rows, "table") == (
        "family  mean\n------  ----\ngames   54.0\n(none)  NULL\n(2 rows)")
    assert format_result(cols, rows, "csv") == "family,mean\ngames,54.0\n(none),"
    assert format_result(cols, rows, "json").startswith('[\n  {\n    "family": "games",\n    "mean": 54.0')
    with pytest.raises(ValueError):
        format_result(cols, rows, "xml")


def test_connect_adds_columns_that_older_files_lack_as_nulls(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = tmp_path / "evaluations"
    folder.mkdir()
    # A file written before `page`, `prompt` and `page_hash` existed.
    pq.write_table(pa.table({"id": ["p"], "status": ["ok"], "run_id": ["r"], "content_hash": ["h"],
                             "config_hash": ["c"], "schema_version": ["1"]}), folder / "old.parquet")
    con = connect(str(tmp_path))
    assert con.execute("SELECT id, page, prompt, page_hash, input_hash FROM evaluations").fetchall() == [
        ("p", None, None, None, "h")]  # input_hash: schema version 1 called it content_hash


def test_a_connection_with_declared_columns_shows_only_those(tmp_path):
    root = build_trace_root(tmp_path / "root")
    with connect(root, {"evaluations": ["id", "score_total"], "checkpoints": ["id", "is_best"]}) as con:
        assert [r[0] for r in con.execute("DESCRIBE evaluations").fetchall()] == ["id", "score_total"]
        assert con.execute("SELECT count(*) FROM evaluations").fetchone()[0] == len(fixture_records())
        assert [r[0] for r in con.execute("DESCRIBE checkpoints").fetchall()] == ["id", "is_best"]
        with pytest.raises(Exception, match="page_hash"):
            con.execute("SELECT page_hash FROM evaluations")
        with pytest.raises(Exception, match="test_results"):
            con.execute("SELECT * FROM test_results")
