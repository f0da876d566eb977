"""Hand-written contracts executed on their reference and defect pages (data/contracts/TASK/):
T, Re, Ri, the labels z and each transition's status exactly as each task's expected.json says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webmend.evaluate.contract_run import execute_contract
from webmend.contracts.validate import validate_contract

TASKS_DIR = Path(__file__).resolve().parents[2] / "data" / "contracts"
TASKS = sorted(p.name for p in TASKS_DIR.iterdir() if (p / "expected.json").is_file())


def load(task: str) -> tuple[dict, dict]:
    folder = TASKS_DIR / task
    return json.loads((folder / "contract.json").read_text()), json.loads((folder / "expected.json").read_text())


def run_page(task: str, rel: str, worker, cfg, **kw):
    contract, _ = load(task)
    return execute_contract((TASKS_DIR / task / rel).read_text(), contract, cfg, worker=worker, **kw)


def test_there_are_four_tasks_of_different_families():
    families = {load(t)[0]["task"]["family"] for t in TASKS}
    assert len(TASKS) >= 4 and len(families) >= 4, (TASKS, families)


@pytest.mark.parametrize("task", TASKS)
def test_each_task_has_references_and_a_defect_per_requirement_kind(task):
    contract, expected = load(task)
    assert validate_contract(contract) == []
    pages = expected["pages"]
    assert sum(p["kind"] == "reference" for p in pages.values()) >= 3
    assert {p.get("requirement_kind") for p in pages.values() if p["kind"] == "defect"} >= {"explicit", "implicit"}
    assert all((TASKS_DIR / task / rel).is_file() for rel in pages)


@pytest.mark.parametrize("task", TASKS)
def test_scores_and_labels_are_exact_on_every_page(task, worker, cfg):
    _, expected = load(task)
    # The other references' T is checked by the executability filter's test, which runs them.
    pages = {rel: want for rel, want in expected["pages"].items() if want["kind"] == "defect" or rel == "refs/ref_a.html"}
    for rel, want in pages.items():
        run = run_page(task, rel, worker, cfg)
        got = {"T": run.score.transition_validity, "Re": run.score.req_explicit, "Ri": run.score.req_implicit,
               "z": run.score.labels, "transitions": {t: o.status for t, o in run.transitions.items()}}
        assert got == {k: want[k] for k in got}, (rel, {t: o.reason for t, o in run.transitions.items()})
        if want["kind"] == "defect":  # a planted defect shows in a label of its kind
            contract, _ = load(task)
            kinds = {r["id"]: r["kind"] for r in contract["requirements"]}
            assert any(z == 0 and kinds[r] == want["requirement_kind"] for r, z in run.score.labels.items()), rel


def test_a_blocked_chain_is_among_the_pages():
    statuses = [s for t in TASKS for p in load(t)[1]["pages"].values() for s in p["transitions"].values()]
    assert "blocked" in statuses


def test_a_change_assertion_true_only_mid_way_passes(worker, cfg):
    """contact_landing: 'Sending' is visible right after the click and gone when the transition
    ends; the change assertion passes and an after assertion says it is gone."""
    contract, expected = load("contact_landing")
    ref = next(rel for rel, p in expected["pages"].items() if p["kind"] == "reference")
    run = run_page("contact_landing", ref, worker, cfg)
    mid = [tr for tr in contract["transitions"] if any(a["when"] == "change" for a in tr["assertions"])]
    assert mid
    for tr in mid:
        verdicts = run.transitions[tr["id"]].assertions
        assert all(verdicts[a["id"]] is True for a in tr["assertions"] if a["when"] == "change")
        gone = [a["id"] for a in tr["assertions"] if a["when"] == "after"
                and a["check"]["action"] in ("assert_not_visible", "assert_text_not_contains")]
        assert gone and all(verdicts[a] is True for a in gone)  # and no longer true when it ends


def test_three_runs_and_both_replay_modes_give_identical_results(worker, cfg):
    task = "todo_list"
    runs = [run_page(task, rel, worker, cfg).to_dict() for rel in ("refs/ref_a.html", "defects/explicit_no_persist.html")
            for _ in range(3)]
    assert runs[0] == runs[1] == runs[2] and runs[3] == runs[4] == runs[5]
    unshared = run_page(task, "refs/ref_a.html", worker, cfg, share_prefixes=False).to_dict()
    shared = runs[0]
    assert unshared["documents"] > shared["documents"] and unshared["transitions_run"] > shared["transitions_run"]
    for key in ("documents", "transitions_run"):
        unshared.pop(key), shared.pop(key)
    assert unshared == shared


def test_evaluate_with_contracts_records_scores_and_traces(tmp_path):
    """`webmend evaluate --contracts`: a page of a task with a contract and no test cases gets the
    contract's result in its record, functionality = budget x r_web, and a contract_results row."""
    from webmend.cli import main
    from webmend.config import EvalConfig
    from webmend.store.duckdb_views import connect

    pages = tmp_path / "pages"
    for name, rel in (("good", "refs/ref_a.html"), ("broken", "defects/explicit_add_broken.html")):
        (pages / name).mkdir(parents=True)
        (pages / name / "todo_list.html").write_text((TASKS_DIR / "todo_list" / rel).read_text())
    out, root = tmp_path / "eval", tmp_path / "root"
    argv = ["evaluate", str(pages), "--contracts", str(TASKS_DIR / "todo_list" / "contract.json"),
            "--out", str(out), "--data-root", str(root)]
    assert main(argv) == 0
    records = {r["id"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    _, expected = load("todo_list")
    budget = EvalConfig().budgets.functionality
    for page, rel in (("good/todo_list", "refs/ref_a.html"), ("broken/todo_list", "defects/explicit_add_broken.html")):
        c = records[page]["contract"]
        assert c["task_id"] == "todo_list" and c["transition_validity"] == expected["pages"][rel]["T"]
        assert c["labels"] == expected["pages"][rel]["z"] and records[page]["tests"] == []
        assert records[page]["score"]["functionality"] == round(budget * c["reward"], 3)
    with connect(root) as con:
        rows = con.execute("SELECT id, transition_validity, blocked, len(transitions) FROM contract_results ORDER BY id").fetchall()
    good, broken = expected["pages"]["refs/ref_a.html"], expected["pages"]["defects/explicit_add_broken.html"]
    assert rows == [("broken/todo_list", broken["T"], list(broken["transitions"].values()).count("blocked"), 5),
                    ("good/todo_list", good["T"], 0, 5)]


def test_an_invalid_contract_is_refused_with_its_problems(tmp_path, capsys):
    from webmend.cli import main

    contract = json.loads((TASKS_DIR / "todo_list" / "contract.json").read_text())
    contract["transitions"][0]["to"] = "S9"
    (tmp_path / "c.json").write_text(json.dumps(contract))
    (tmp_path / "todo_list.html").write_text("<html><body>x</body></html>")
    assert main(["evaluate", str(tmp_path / "todo_list.html"), "--contracts", str(tmp_path / "c.json"),
                 "--out", str(tmp_path / "out")]) == 2
    assert "unknown_state" in capsys.readouterr().err


def test_a_page_that_hangs_while_loading_costs_one_load(worker, cfg):
    """Hostile page: every transition fails or is blocked with the reason, the walk ends, and each
    walk (the first, and the retry with a doubled step cap) pays for one load only (loading is
    deterministic, as evaluate_page assumes)."""
    contract, _ = load("todo_list")
    html = (TASKS_DIR.parent / "fixtures" / "hostile" / "infinite_loop.html").read_text()
    run = execute_contract(html, contract, cfg, worker=worker)
    assert run.documents == 1 and run.score.transition_validity == 0.0 and run.page_faults == ["load"]
    assert {t: o.status for t, o in run.transitions.items()} == {
        "T1": "failed", "T2": "blocked", "T3": "blocked", "T4": "failed", "T5": "blocked"}
    assert run.transitions["T4"].reason == run.transitions["T1"].reason == "page hung during load"


def test_an_error_thrown_while_the_page_loads_fails_assert_console_clean_in_the_initial_checks(worker, cfg):
    contract, _ = load("todo_list")
    contract = json.loads(json.dumps(contract))
    contract["initial_contract"]["checks"].append(
        {"id": "IC_clean", "when": "after", "check": {"action": "assert_console_clean"}})
    assert validate_contract(contract) == []
    good = (TASKS_DIR / "todo_list" / "refs" / "ref_a.html").read_text()
    broken = good.replace("</body>", "<script>const = 1;</script></body>", 1)  # a SyntaxError at load
    assert "</body>" in good
    assert execute_contract(good, contract, cfg, worker=worker).initial["IC_clean"] is True
    run = execute_contract(broken, contract, cfg, worker=worker)
    assert run.initial["IC_clean"] is False and "console error" in run.initial_reasons["IC_clean"]


def test_every_failed_assertion_of_a_transition_keeps_its_reason_in_full(worker, cfg):
    contract, _ = load("todo_list")
    contract = json.loads(json.dumps(contract))
    t1 = contract["transitions"][0]
    long_text = "x" * 400
    t1["assertions"] += [
        {"id": "X1", "when": "after", "check": {"action": "assert_text_contains", "selector": "body", "text": long_text}},
        {"id": "X2", "when": "after", "check": {"action": "assert_count", "selector": "li", "eq": 999}}]
    assert validate_contract(contract) == []
    good = (TASKS_DIR / "todo_list" / "refs" / "ref_a.html").read_text()
    out = execute_contract(good, contract, cfg, worker=worker).to_dict()["transitions"][t1["id"]]
    assert out["status"] == "failed" and out["reason"].startswith("X1: ")
    assert set(out["reasons"]) == {"X1", "X2"} and long_text in out["reasons"]["X1"]
    assert out["reasons"]["X2"].startswith("count of 'li' is ")
