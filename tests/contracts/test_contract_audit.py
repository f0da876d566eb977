"""The audit sheet: requirements, graph, transitions and per-page verdicts, escaped and stable."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path

from webmend.cli import main
from webmend.contracts.audit import audit_sheet

TODO_DIR = Path(__file__).resolve().parents[2] / "data" / "contracts" / "todo_list"
TODO = json.loads((TODO_DIR / "contract.json").read_text())


def result(page: str, **status) -> dict:
    transitions = {t["id"]: {"status": status.get(t["id"], "passed"), "failed_step": 1,
                             "reason": "<script>alert(1)</script> no button named add"} for t in TODO["transitions"]}
    return {"task_id": "todo_list", "page": page, "transition_validity": 0.2, "req_explicit": 0.5, "req_implicit": 1.0,
            "reward": 0.475, "transitions": transitions, "labels": {r["id"]: 1 for r in TODO["requirements"]} | {"R1": 0}}


def test_the_sheet_shows_the_contract_and_each_failing_step_escaped():
    html = audit_sheet(TODO, [result("b.html", T1="failed", T2="blocked"), result("a.html")])
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt; no button named add" in html
    for r in TODO["requirements"]:
        assert escape(r["text"]) in html
    assert html.count("<svg") == 1 and all(f">{t['id']}</text>" in html for t in TODO["transitions"])
    assert html.index("a.html") < html.index("b.html")  # pages in a stable order
    assert 'class="failed">failed<div class="small">step 1:' in html and 'class="blocked">blocked' in html
    assert audit_sheet(TODO, [result("a.html"), result("b.html", T1="failed", T2="blocked")]) == \
        audit_sheet(TODO, [result("b.html", T1="failed", T2="blocked"), result("a.html")])


def test_the_audit_command_reads_execute_results(tmp_path):
    lines = tmp_path / "results.jsonl"
    lines.write_text("".join(json.dumps(r) + "\n" for r in [result("a.html"), {**result("x.html"), "task_id": "other"}]))
    out = tmp_path / "sheets" / "todo_list.html"
    assert main(["contract", "audit", str(TODO_DIR / "contract.json"), str(lines), "--out", str(out)]) == 0
    html = out.read_text()
    assert "a.html" in html and "x.html" not in html and html.startswith("<!DOCTYPE html>")
