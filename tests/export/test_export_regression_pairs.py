"""Preference pairs whose rejected side is a candidate the repair loop rejected for a regression:
a real evaluation, a model repair through litellm against the scripted server, then the export."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
from conftest import FIXTURES
from llm.llm_fixtures import server  # noqa: F401 (the server fixture)
from llm.llm_server import chat_reply

from webmend.cli import main
from webmend.export.config import ExportConfig
from webmend.export.run import export_corpus
from webmend.store import DataRoot

HERE = FIXTURES / "repair_llm"
# Fixes Reset but caps the count at 1: the passing test case `inc` breaks (tests/repair/test_repair_llm.py).
BREAK = {"patches": [{"old_str": "() => { show(); }", "new_str": "() => { n = 0; show(); }"},
                     {"old_str": "n += 1;", "new_str": "n = Math.min(n + 1, 1);"}]}


def test_a_regressing_candidate_becomes_the_rejected_side_of_a_pair(server, tmp_path):  # noqa: F811
    page, items, root = HERE / "counter.html", tmp_path / "items.jsonl", tmp_path / "root"
    lines = [json.loads(line) for line in (HERE / "items.jsonl").read_text().splitlines() if line.strip()]
    items.write_text("".join(json.dumps({**i, "category": "apps_tools"}) + "\n" for i in lines))  # export needs a family
    assert main(["evaluate", str(page), "--tests", str(items), "--out", str(tmp_path / "eval"), "--data-root", str(root)]) == 0
    server.script(chat_reply(json.dumps(BREAK)))
    config = tmp_path / "repair.json"
    config.write_text(json.dumps({"operators": False, "candidates_per_round": 1, "early_reject": False}))
    assert main(["repair", str(page), "--tests", str(items), "--from", str(tmp_path / "eval"), "--out",
                 str(tmp_path / "repair"), "--data-root", str(root), "--model", "openai/scripted-repair",
                 "--rounds", "1", "--config", str(config)]) == 0
    (attempt,) = DataRoot(root).read("repair_attempts").to_pylist()
    assert attempt["regression"] and attempt["tests_broken"] == ["inc"] and "Math.min(n + 1, 1)" in attempt["html"]

    # The counter stays Mid, so the gate is lowered to let its (unrepaired) original into refined.
    cfg = ExportConfig(routes=("refined",), formats=("preference",))
    cfg = cfg.model_copy(update={"gate": cfg.gate.model_copy(update={"min_score": 40.0})})
    outcome = export_corpus(str(root), str(tmp_path / "out"), cfg)
    (pair,) = pq.read_table(tmp_path / "out" / outcome.version / "refined/preference/part-00000.parquet").to_pylist()
    assert pair["rejected_kind"] == "regression" and pair["id"] == "counter"
    assert pair["chosen"]["content"].strip() == page.read_text().strip() and "Math.min(n + 1, 1)" in pair["rejected"]["content"]
    assert pair["rejected_hash"] == attempt["page_hash"] and pair["rejected_score"] == attempt["score_after"]
