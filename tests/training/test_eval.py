"""`webmend train eval`: checkpoints answer benchmark items, the evaluator scores the pages with
their test cases, and one table per family compares the checkpoints."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from training_fixtures import exported_corpus, training_env  # noqa: F401  (fixtures)

from webmend.cli import main
from webmend.schemas.export import HERE as SCHEMAS

from llm.llm_fixtures import server  # noqa: F401  (fixture)
from llm.llm_server import chat_reply

ROOT = Path(__file__).resolve().parents[2]

ITEM_ID = "apps_expense_tracker"
GOOD_PAGE = (ROOT / "data" / "samples" / "pages" / f"{ITEM_ID}.html").read_text()
BROKEN_PAGE = "<!DOCTYPE html><html><body><h1>Expense tracker</h1><p>coming soon</p></body></html>"


@pytest.fixture(scope="module")
def items(tmp_path_factory) -> Path:
    rows = [json.loads(line) for line in (ROOT / "data" / "samples" / "items.jsonl").read_text().splitlines()]
    path = tmp_path_factory.mktemp("eval-items") / "items.jsonl"
    path.write_text(json.dumps(next(r for r in rows if r["id"] == ITEM_ID)) + "\n")
    return path


@pytest.fixture(scope="module")
def sft_run(training_env, exported_corpus, tmp_path_factory) -> Path:  # noqa: F811
    run = tmp_path_factory.mktemp("eval-sft") / "run"
    assert main(["train", "sft", "--manifest", str(exported_corpus), "--preset", "tiny", "--out", str(run),
                 "--set", "max_steps=2", "--threads", "1"]) == 0
    return run


def test_served_checkpoints_compare_on_one_table_with_their_training_system_turn(sft_run, items, server, tmp_path,
                                                                                 capsys):
    server.script(chat_reply(GOOD_PAGE), chat_reply(BROKEN_PAGE))  # checkpoints answer in order
    out = tmp_path / "eval"
    assert main(["train", "eval", "--checkpoint", str(sft_run), "--checkpoint", str(sft_run), "--items", str(items),
                 "--backend", "openai", "--served-model", "openai/refined-a", "--served-model", "openai/raw-b",
                 "--api-base", server.base_url, "--max-new-tokens", "8000", "--out", str(out)]) == 0
    system = json.loads((sft_run / "run.json").read_text())["manifest"]["system_prompt"]
    assert [r.body["messages"][0] for r in server.requests] == [{"role": "system", "content": system}] * 2
    assert {r.body["model"] for r in server.requests} == {"refined-a", "raw-b"}
    good, broken = (json.loads((out / sub / "report.json").read_text())["families"]["all"]
                    for sub in ("00-refined-tiny", "01-refined-tiny"))
    assert good["items"] == broken["items"] == 1 and good["scored"] == broken["scored"] == 1
    assert good["mean_score"] > broken["mean_score"] and good["pass_rate"] > broken["pass_rate"]
    assert good["weight_total"] == broken["weight_total"] > 0
    table = capsys.readouterr().out
    assert table == (out / "report.md").read_text()
    assert "| 0:refined/tiny | apps_tools | 1 |" in table and "| 1:refined/tiny | all | 1 |" in table


def test_a_local_checkpoint_generates_in_the_training_environment_and_its_misses_count(sft_run, items, tmp_path):
    """The tiny model writes no page yet: the item is still in the table, unscored, its cases failed."""
    out = tmp_path / "eval"
    assert main(["train", "eval", "--checkpoint", str(sft_run), "--items", str(items), "--max-new-tokens", "24",
                 "--out", str(out)]) == 0
    report = json.loads((out / "00-refined-tiny" / "report.json").read_text())
    jsonschema.validate(report, json.loads((SCHEMAS / "checkpoint_report.schema.json").read_text()))
    (answer,) = [json.loads(line) for line in (out / "00-refined-tiny" / "answers.jsonl").read_text().splitlines()]
    assert answer["id"] == ITEM_ID and answer["new_tokens"] > 0
    row = report["families"]["apps_tools"]
    assert (row["items"], row["scored"], row["bands"]["unscored"], row["pass_rate"]) == (1, 0, 1, 0.0)
    assert row["mean_score"] == 0.0 and report["backend"] == "transformers"


def test_bad_requests_are_refused(items, tmp_path, capsys):
    assert main(["train", "eval", "--checkpoint", str(tmp_path), "--items", str(items)]) == 2
    assert "neither a `webmend train sft` run folder" in capsys.readouterr().err
    assert main(["train", "eval", "--checkpoint", str(tmp_path), "--items", str(items), "--backend", "openai"]) == 2
    assert "one --served-model per --checkpoint" in capsys.readouterr().err
