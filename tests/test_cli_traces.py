"""`webmend evaluate --data-root`: the run's trace tables, as build-refined-pool writes them, queried
with `webmend sql` (one fast fixture page in a real browser, one refused answer)."""

from __future__ import annotations

import json

from conftest import FIXTURES

from webmend.cli import main
from webmend.config import EvalConfig
from webmend.pool import batches

PAGE = FIXTURES / "pages" / "console_errors.html"


def sql(root, query, capsys) -> list[dict]:
    capsys.readouterr()
    assert main(["sql", "--root", str(root), "--format", "json", query]) == 0
    return json.loads(capsys.readouterr().out)


def test_evaluate_writes_trace_tables_that_sql_and_the_flow_see(tmp_path, capsys):
    responses = tmp_path / "responses.jsonl"
    responses.write_text(json.dumps({"id": "refusal", "response": "I'm sorry, but I can't help with that."}) + "\n")
    out, root = tmp_path / "out", tmp_path / "data"
    args = ["evaluate", str(PAGE), "--responses", str(responses), "--out", str(out), "--data-root", str(root)]
    assert main(args) == 0
    assert "1 batches written, 0 already there" in capsys.readouterr().err

    rows = sql(root, "SELECT input_index, id, status, score_total IS NOT NULL AS scored, input_hash, config_hash, "
                     "run_id, schema_version FROM evaluations ORDER BY input_index", capsys)
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [(r["input_index"], r["id"], r["status"], r["scored"]) for r in rows] == [
        (rec["index"], rec["id"], rec["status"], rec["score"] is not None) for rec in records]
    assert [r["status"] for r in rows][0] == "ok" and rows[1]["id"] == "refusal"
    corpus = batches.read_corpus([PAGE], [responses])
    assert [r["input_hash"] for r in rows] == [batches.input_hash(raw) for raw in corpus]
    assert {r["config_hash"] for r in rows} == {EvalConfig().config_hash()}
    assert rows[0]["run_id"].startswith("evaluate-") and rows[0]["schema_version"]
    events = sql(root, "SELECT count(*) AS n FROM experience_events WHERE kind = 'console_error'", capsys)
    assert events[0]["n"] >= 1  # the fixture page logs console errors

    # The flow, given the same corpus and config, finds the batch committed: nothing to evaluate.
    plan = batches.load_plan(str(root), [str(PAGE)], [str(responses)], None, EvalConfig(), batches.DEFAULT_BATCH_SIZE)
    assert [b.key for b in plan.batches] == [p.stem for p in (root / "evaluations").glob("*.parquet")]
    assert plan.pending == ()

    assert main(args) == 0  # a rerun resumes (nothing left to evaluate) and writes nothing again
    assert "0 batches written, 1 already there" in capsys.readouterr().err
    assert sql(root, "SELECT count(*) AS n FROM evaluations", capsys) == [{"n": 2}]
