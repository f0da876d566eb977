"""The executability filter: `webmend contract validate` on the hand-written tasks and their
reference pages, and the reasons a contract falls out."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from webmend.cli import main
from webmend.contracts.executability import FilterConfig, Reference, filter_contract, references_by_task

TASKS_DIR = Path(__file__).resolve().parents[2] / "data" / "contracts"
TASKS = sorted(p.name for p in TASKS_DIR.iterdir() if (p / "expected.json").is_file())
TODO = json.loads((TASKS_DIR / "todo_list" / "contract.json").read_text())


def _refs(task: str, *names: str) -> list[Reference]:
    pages = sorted((TASKS_DIR / task / "refs").glob("*.html"))
    return [Reference(str(p), p.read_text()) for p in pages if not names or p.name in names]


def test_the_hand_written_contracts_pass_the_filter_on_their_references(tmp_path, capsys):
    out = tmp_path / "validated"
    args = ["contract", "validate", *[str(TASKS_DIR / t / "contract.json") for t in TASKS],
            "--refs", *[str(TASKS_DIR / t / "refs") for t in TASKS], "--out", str(out)]
    assert main(args) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["kept"] == len(TASKS) and summary["dropped"] == 0 and summary["unclaimed_pages"] == []
    kept = [json.loads(line)["task"]["id"] for line in (out / "contracts.jsonl").read_text().splitlines()]
    assert sorted(kept) == TASKS
    for line in (out / "verdicts.jsonl").read_text().splitlines():
        verdict = json.loads(line)
        expected = json.loads((TASKS_DIR / verdict["task_id"] / "expected.json").read_text())["pages"]
        got = {Path(name).relative_to(TASKS_DIR / verdict["task_id"]).as_posix(): r["T"]
               for name, r in verdict["references"].items()}
        assert got == {rel: p["T"] for rel, p in expected.items() if p["kind"] == "reference"}


def test_a_contract_only_one_implementation_follows_falls_out_with_its_reasons(worker, cfg):
    narrow = copy.deepcopy(TODO)  # the text field found by the label one implementation gave it
    narrow["transitions"][0]["steps"][0]["target"] = {"label": "^New task$"}
    refs = [r for r in _refs("todo_list") if not r.name.endswith("ref_a.html")]
    verdict = filter_contract(narrow, refs, cfg, FilterConfig(min_references=2), worker=worker)
    assert not verdict.kept and verdict.reason == "too_few_executable"
    for ref in verdict.references.values():
        assert ref["T"] < 0.6 and "T1" in ref["failed"] and "blocked" not in ref["failed"]["T1"]
        assert ref["failed"]["T2"].startswith("state S1 not reached")


def test_invalid_contracts_and_missing_references_fall_out_before_any_page_runs(cfg):
    broken = copy.deepcopy(TODO)
    broken["transitions"][0]["to"] = "S9"
    verdict = filter_contract(broken, _refs("todo_list"), cfg)
    assert verdict.reason == "invalid" and "unknown_state" in verdict.detail and verdict.references == {}
    verdict = filter_contract(TODO, _refs("todo_list")[:2], cfg)
    assert verdict.reason == "too_few_references" and "2 reference page(s), 3 needed" in verdict.detail


def test_pages_belong_to_the_task_their_nearest_folder_names(tmp_path):
    (tmp_path / "todo_list" / "x").mkdir(parents=True)
    (tmp_path / "todo_list" / "x" / "a.html").write_text("<html></html>")
    (tmp_path / "stray.html").write_text("<html></html>")
    found, unclaimed = references_by_task([str(tmp_path)], {"todo_list", "other"})
    assert [Path(r.name).name for r in found["todo_list"]] == ["a.html"] and found["other"] == []
    assert unclaimed == [str(tmp_path / "stray.html")]


def test_references_out_of_time_leave_the_contract_undecided(worker, cfg):
    # A budget no walk fits in: the machine, not the contract, would decide the verdict.
    tight = cfg.model_copy(update={"limits": cfg.limits.model_copy(update={"page_wall_s": 0.2, "test_wall_s": 0.0})})
    verdict = filter_contract(TODO, _refs("todo_list"), tight, worker=worker)
    assert not verdict.kept and verdict.reason == "out_of_time" and "run it again" in verdict.detail
    assert all(r["T"] is None and r["out_of_time"] for r in verdict.references.values())
