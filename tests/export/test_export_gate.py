"""The Great Expectations gate: a planted bad row of each kind fails its named expectation, and a
failed gate blocks the export (nothing published, the data docs written)."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from export_fixtures import traced_root
from fsspec.implementations.local import LocalFileSystem

from webmend.cli import main
from webmend.export.config import ExportConfig, Shares
from webmend.export.gate import DatasetCheck, run_gate
from webmend.export.run import ExportBlocked, export_corpus
from webmend.schemas.corpus import FILE_SCHEMAS


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    root, bench = traced_root(tmp_path_factory)
    out = tmp_path_factory.mktemp("gate-corpus")
    outcome = export_corpus(str(root), str(out), ExportConfig(formats=("sharegpt", "preference")), [str(bench)])
    folder = out / outcome.version
    return pq.read_table(folder / "refined/sharegpt/part-00000.parquet").to_pylist(), bench


def _with(row: dict, **changes) -> dict:
    new = json.loads(json.dumps(row))
    new.update(changes)
    return new


def _messages(row, user=None, html=None, order=("system", "user", "assistant")):
    content = {"system": row["messages"][0]["content"], "user": row["messages"][1]["content"] if user is None else user,
               "assistant": row["messages"][2]["content"] if html is None else html}
    return [{"role": r, "content": content[r]} for r in order]


def _benchmark_prompt(bench) -> str:
    return json.loads(bench.read_text().splitlines()[0])["prompt"]


PLANTED = {
    "ids_unique": lambda r, b: _with(r),
    "prompt_present": lambda r, b: _with(r, id="x", messages=_messages(r, order=("system", "assistant"))),
    "prompt_not_empty": lambda r, b: _with(r, id="x", messages=_messages(r, user="")),
    "document_ends_html": lambda r, b: _with(r, id="x", messages=_messages(r, html=r["messages"][2]["content"][:-40])),
    "document_starts_html": lambda r, b: _with(r, id="x", messages=_messages(r, html="Sure! " + r["messages"][2]["content"])),
    "score_within_gate": lambda r, b: _with(r, id="x", score=41.0),
    "family_known": lambda r, b: _with(r, id="x", family="spreadsheets"),
    "no_benchmark_prompt": lambda r, b: _with(r, id="x", messages=_messages(r, user=_benchmark_prompt(b))),
    "turns_alternate": lambda r, b: _with(r, id="x", messages=_messages(r, order=("system", "user", "user", "assistant"))),
}


@pytest.mark.parametrize("expectation", sorted(PLANTED))
def test_a_planted_bad_row_fails_its_expectation(good, tmp_path, expectation):
    rows, bench = good
    from webmend.export.select import Hygiene

    planted = rows + [PLANTED[expectation](rows[0], bench)]
    (tmp_path / "refined/sharegpt").mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(planted, schema=FILE_SCHEMAS["sharegpt"]), tmp_path / "refined/sharegpt/part-00000.parquet")
    check = DatasetCheck("webmend_refined_sharegpt", "sharegpt", ["refined/sharegpt/part-00000.parquet"],
                         expected_rows=len(planted), min_score=80.0, share_bounds=(0.0, 1.0))
    hygiene = Hygiene(ExportConfig(), [str(bench)])
    result = run_gate(LocalFileSystem(), str(tmp_path), [check], hygiene.contamination, None)
    failed = {e["expectation"] for e in result.datasets[check.name] if not e["success"]}
    assert not result.success and expectation in failed, failed
    named = next(e for e in result.datasets[check.name] if e["expectation"] == expectation)
    assert named["unexpected_count"] >= 1 and named["examples"]


def test_a_row_count_that_does_not_match_the_funnel_fails(good, tmp_path):
    rows, bench = good
    (tmp_path / "p").mkdir()
    pq.write_table(pa.Table.from_pylist(rows, schema=FILE_SCHEMAS["sharegpt"]), tmp_path / "p/part-00000.parquet")
    check = DatasetCheck("d", "sharegpt", ["p/part-00000.parquet"], len(rows) + 1, 80.0, (0.0, 1.0))
    result = run_gate(LocalFileSystem(), str(tmp_path), [check], lambda prompt: None, None)
    assert [e["expectation"] for e in result.datasets["d"] if not e["success"]] == ["rows_match_funnel"]


def test_a_failed_gate_blocks_the_export_and_keeps_its_data_docs(tmp_path_factory, tmp_path, capsys):
    root, bench = traced_root(tmp_path_factory)
    cfg = ExportConfig(family_shares=Shares(max=0.3))  # three families in refined: each a third
    with pytest.raises(ExportBlocked) as blocked:
        export_corpus(str(root), str(tmp_path), cfg, [str(bench)])
    version = blocked.value.version
    assert "family_share" in str(blocked.value)
    folder = tmp_path / version
    assert not (folder / "manifest.json").exists() and not (tmp_path / "LATEST.json").exists()
    assert not list(folder.rglob("*.parquet")) and not [p for p in tmp_path.iterdir() if p.name.startswith(".staging")]
    assert (folder / "gate" / "index.html").is_file()
    gate = json.loads((folder / "gate.json").read_text())
    assert not gate["success"] and any(e["expectation"] == "family_share" and not e["success"]
                                       for e in gate["datasets"]["webmend_refined_sharegpt"])
    config = tmp_path / "export.json"
    config.write_text(json.dumps({"family_shares": {"max": 0.3}}))
    argv = ["export", "--data-root", str(root), "--out", str(tmp_path / "cli"), "--config", str(config), "--benchmark", str(bench)]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "blocked by the gate" in err and "family_share" in err and "gate data docs" in err
