"""A strong model's real answers to the four build requests (recorded through the bridge in
../shared/tools, issue 36), replayed by the scripted server: what the model actually writes keeps
working. Its tic-tac-toe contract puts shared functions in `helpers`, one of them named like a
reference page's own global (`squares`), and reads the board through them; its solar-system
contract finds planets among `observed.circles` (one reference fills them with gradients set after
arc()) and clicks them with `click_at`."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ROOT
from contracts.test_contract_build import model
from llm.llm_fixtures import server  # noqa: F401 (the server fixture)
from llm.llm_server import chat_reply

from webmend.contracts.build import build_contract
from webmend.evaluate.contract_run import execute_contract

ANSWERS = Path(__file__).parent / "fixtures" / "real_model"
TASK_DIR = ROOT / "data" / "contracts" / "tic_tac_toe"
CANVAS_DIR = ROOT / "data" / "canvas_tasks" / "solar_system"


def replayed_build(server, tmp_path, task: dict, name: str) -> dict:  # noqa: F811
    server.script(*(chat_reply((ANSWERS / name / f"stage-{i}.txt").read_text()) for i in range(1, 5)))
    result = build_contract(task, model(tmp_path))
    assert result.kept and not result.sent_back, result.problems
    return result.contract


def test_the_real_answers_build_a_kept_contract_that_the_references_pass(server, tmp_path, worker, cfg):  # noqa: F811
    task = json.loads((TASK_DIR / "contract.json").read_text())["task"]
    contract = replayed_build(server, tmp_path, task, "tic_tac_toe")
    assert "function squares()" in contract["helpers"]
    for ref in ("ref_a.html", "ref_b.html"):  # ref_a declares `const squares` itself
        run = execute_contract((TASK_DIR / "refs" / ref).read_text(), contract, cfg, worker=worker)
        assert run.score.transition_validity == 1.0, (ref, {t: o.reason for t, o in run.transitions.items() if o.reason})


def test_the_real_canvas_contract_finds_planets_by_shape(server, tmp_path, worker, cfg):  # noqa: F811
    task = json.loads((CANVAS_DIR / "task.json").read_text())
    contract = replayed_build(server, tmp_path, task, "solar_system")
    assert "observed.circles" in contract["helpers"] and '"click_at"' in json.dumps(contract)
    ref_c = execute_contract((CANVAS_DIR / "refs" / "ref_c.html").read_text(), contract, cfg, worker=worker)
    assert ref_c.score.transition_validity == 1.0, {t: o.reason for t, o in ref_c.transitions.items() if o.reason}
    broken = execute_contract((CANVAS_DIR / "graded" / "g2.html").read_text(), contract, cfg, worker=worker)
    assert broken.score.transition_validity == 0.0  # throws at load: blank canvas
