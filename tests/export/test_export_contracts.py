"""Export carries the task contract's reward and labels of pages evaluated with one."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq

from webmend.cli import main
from webmend.export.config import ExportConfig
from webmend.export.run import export_corpus
from webmend.store import DataRoot

TODO = Path(__file__).resolve().parents[2] / "data" / "contracts" / "todo_list"


def test_rows_of_pages_evaluated_with_a_contract_carry_its_reward_and_labels(tmp_path):
    pages, root = tmp_path / "pages", tmp_path / "root"
    (pages / "a").mkdir(parents=True)
    (pages / "a" / "todo_list.html").write_text((TODO / "refs" / "ref_a.html").read_text())
    assert main(["evaluate", str(pages), "--contracts", str(TODO / "contract.json"),
                 "--out", str(tmp_path / "eval"), "--data-root", str(root)]) == 0
    record = json.loads((tmp_path / "eval" / "results.jsonl").read_text().splitlines()[0])
    outcome = export_corpus(str(root), str(tmp_path / "out"), ExportConfig(routes=("raw",), formats=("sharegpt",)))
    (row,) = pq.read_table(tmp_path / "out" / outcome.version / "raw/sharegpt/part-00000.parquet").to_pylist()
    assert row["id"] == "a/todo_list" and row["contract_reward"] == record["contract"]["reward"]
    assert json.loads(row["contract_labels"]) == record["contract"]["labels"]


def test_a_repaired_checkpoint_carries_the_contract_result_verified_with_it(tmp_path):
    pages, root = tmp_path / "pages", tmp_path / "root"
    (pages / "a").mkdir(parents=True)
    (pages / "a" / "todo_list.html").write_text((TODO / "refs" / "ref_a.html").read_text())
    contracts = ["--contracts", str(TODO / "contract.json")]
    assert main(["evaluate", str(pages), *contracts, "--out", str(tmp_path / "eval"), "--data-root", str(root)]) == 0
    assert main(["repair", str(pages), *contracts, "--from", str(tmp_path / "eval"), "--no-llm", "--rounds", "2",
                 "--out", str(tmp_path / "repair"), "--data-root", str(root)]) == 0
    checkpoints = DataRoot(str(root)).read("checkpoints").to_pylist()
    assert checkpoints and all(c["contract_reward"] == 1.0 for c in checkpoints)
    best = next(c for c in checkpoints if c["is_best"])
    outcome = export_corpus(str(root), str(tmp_path / "out"), ExportConfig(routes=("refined",), formats=("sharegpt",)))
    (row,) = pq.read_table(tmp_path / "out" / outcome.version / "refined/sharegpt/part-00000.parquet").to_pylist()
    assert row["page_hash"] == best["page_hash"] and row["contract_reward"] == 1.0
    assert json.loads(row["contract_labels"]) == json.loads(best["contract_labels"])
