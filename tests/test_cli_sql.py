"""`webmend sql`: queries, shipped examples, output formats and the database file (no browser)."""

from __future__ import annotations

import json

from store.store_fixtures import build_trace_root

from webmend.cli import main  # noqa: E402


def test_query_as_json(tmp_path, capsys):
    build_trace_root(tmp_path)
    rc = main(["sql", "--root", str(tmp_path), "--format", "json",
               "SELECT status, count(*) AS pages FROM evaluations GROUP BY status ORDER BY status"])
    assert rc == 0
    assert json.loads(capsys.readouterr().out) == [
        {"status": "hang", "pages": 1}, {"status": "no_html", "pages": 1},
        {"status": "ok", "pages": 2}, {"status": "timeout", "pages": 1}]


def test_example_as_csv_and_database_file(tmp_path, capsys):
    build_trace_root(tmp_path)
    assert main(["sql", "--root", str(tmp_path), "--example", "pages_by_state", "--format", "csv", "--save-db"]) == 0
    out = capsys.readouterr()
    assert out.out.splitlines() == ["band,pages,percent", "High,1,20.0", "Mid,1,20.0", "Low,1,20.0", "unscored,2,40.0"]
    assert f"database: {tmp_path / 'webmend.duckdb'}" in out.err
    assert (tmp_path / "webmend.duckdb").is_file()


def test_table_output_on_an_empty_root(tmp_path, capsys):
    assert main(["sql", "--root", str(tmp_path / "none"), "SELECT count(*) AS n FROM prompts"]) == 0
    assert capsys.readouterr().out.splitlines() == ["n", "-", "0", "(1 row)"]


def test_errors(tmp_path, capsys):
    assert main(["sql", "--root", str(tmp_path), "SELECT nope FROM evaluations"]) == 1
    assert "nope" in capsys.readouterr().err
    assert main(["sql", "--root", str(tmp_path), "--example", "missing"]) == 2
    assert "score_by_family" in capsys.readouterr().err
    assert main(["sql", "--root", str(tmp_path)]) == 2
