"""`webmend repair` end to end on a real page: outputs valid against their schemas, a rerun that
resumes (after a SIGKILL too), trace tables, and bad arguments refused before any work."""

from __future__ import annotations

import json
import time

import jsonschema
import pytest
from conftest import FIXTURES, ROOT, sigkill_when

from webmend.cli import main
from webmend.store import DataRoot

PAGE = FIXTURES / "repair" / "bare_document.html"  # no viewport, charset, lang or title
ITEMS = FIXTURES / "repair" / "items.jsonl"
SCHEMA = json.loads((ROOT / "webmend" / "schemas" / "repair.schema.json").read_text())


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out, root = tmp_path_factory.mktemp("repair"), tmp_path_factory.mktemp("root")
    argv = ["repair", str(PAGE), "--tests", str(ITEMS), "--out", str(out), "--data-root", str(root), "--rounds", "2"]
    assert main(argv) == 0
    return out, root, argv


def test_outputs_validate_and_the_page_is_fixed(run):
    out, _, _ = run
    (record,) = [json.loads(line) for line in (out / "repairs.jsonl").read_text().splitlines()]
    jsonschema.validate(record, SCHEMA)
    assert record["id"] == "bare_document" and record["page"] == "pages/bare_document.html"
    (attempt,) = [a for a in record["attempts"] if a["accepted"]]
    assert set(attempt["name"].split("+")) >= {"add_viewport_meta", "add_charset", "add_lang", "add_title"}
    page = (out / record["page"]).read_text()
    assert 'name="viewport"' in page and '<html lang="en"' in page and "<title>" in page
    assert record["final_score"] >= record["original_score"] and record["llm_calls"] == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["operators"]["add_viewport_meta"] == {"proposed": 1, "accepted": 1}
    assert "bare_document" in (out / "report.html").read_text()


def test_trace_tables_hold_the_attempts_and_checkpoints(run):
    _, root, _ = run
    data = DataRoot(root)
    attempts = data.read("repair_attempts").to_pylist()
    checkpoints = data.read("checkpoints").to_pylist()
    assert [a["strategy"] for a in attempts] == ["operator"] * len(attempts) and any(a["accepted"] for a in attempts)
    assert sorted(c["round"] for c in checkpoints) == [0, 1] and sum(c["is_best"] for c in checkpoints) == 1
    best = next(c for c in checkpoints if c["is_best"])
    assert 'name="viewport"' in best["html"]


def test_a_rerun_resumes_without_repairing_again(run):
    out, _, argv = run
    before = (out / "repairs.jsonl").read_bytes()
    started = time.perf_counter()
    assert main(argv) == 0
    assert (out / "repairs.jsonl").read_bytes() == before
    assert time.perf_counter() - started < 60  # no page evaluated again (a browser start at most)


@pytest.mark.parametrize("extra,message", [
    (["--from", "/nonexistent/run"], "no results.jsonl"),
    (["--tests", str(FIXTURES / "traces" / "results.jsonl")], "no item matches"),
    (["--model", "nosuchprovider/x"], "litellm cannot tell its provider"),
    (["--model", "openai/x", "--no-llm"], "contradict"),
])
def test_bad_arguments_fail_before_any_work(tmp_path, capsys, extra, message):
    out = tmp_path / "out"
    assert main(["repair", str(PAGE), "--out", str(out), *extra]) == 2
    assert message in capsys.readouterr().err and not out.exists()


def test_a_run_killed_with_sigkill_repairs_only_the_rest_when_run_again(tmp_path):
    pages = tmp_path / "pages"
    pages.mkdir()
    for n in range(4):  # four distinct copies of a page the operators fix
        (pages / f"bare_{n}.html").write_text(PAGE.read_text().replace("</body>", f"<!-- {n} --></body>", 1))
    out, root = tmp_path / "out", tmp_path / "root"
    args = ["repair", str(pages), "--out", str(out), "--data-root", str(root), "--rounds", "2"]
    repairs = out / "repairs.jsonl"
    sigkill_when(["-m", "webmend.cli", *args], lambda: repairs.exists() and repairs.read_text().count("\n") >= 1)
    done_before = [json.loads(line)["id"] for line in repairs.read_text().splitlines() if line.endswith("}")]
    assert 1 <= len(done_before) < 4
    assert main(args) == 0
    ids = [json.loads(line)["id"] for line in repairs.read_text().splitlines()]
    assert ids == [f"bare_{n}" for n in range(4)]  # each page once, in order
    best = DataRoot(root).read("checkpoints").to_pylist()
    assert sorted(c["id"] for c in best if c["is_best"]) == ids  # one best checkpoint per page
