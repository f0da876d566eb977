"""A strong model's real answers to the four build requests (recorded through the bridge in
../shared/tools, issue 36), replayed by the scripted server: what the model actually writes keeps
working. Its tic-tac-toe contract puts shared functions in `helpers`, one of them named like a
reference page's own global (`squares`), and reads the board through them."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ROOT
from contracts.test_contract_build import model
from llm.llm_fixtures import server  # noqa: F401 (the server fixture)
from llm.llm_server import chat_reply

from webmend.contracts.build import build_contract
from webmend.evaluate.contract_run import execute_contract

ANSWERS = Path(__file__).parent / "fixtures" / "real_model" / "tic_tac_toe"
TASK_DIR = ROOT / "data" / "contracts" / "tic_tac_toe"


def test_the_real_answers_build_a_kept_contract_that_the_references_pass(server, tmp_path, worker, cfg):  # noqa: F811
    task = json.loads((TASK_DIR / "contract.json").read_text())["task"]
    server.script(*(chat_reply((ANSWERS / f"stage-{i}.txt").read_text()) for i in range(1, 5)))
    result = build_contract(task, model(tmp_path))
    assert result.kept and not result.sent_back, result.problems
    assert "function squares()" in result.contract["helpers"]
    for ref in ("ref_a.html", "ref_b.html"):  # ref_a declares `const squares` itself
        run = execute_contract((TASK_DIR / "refs" / ref).read_text(), result.contract, cfg, worker=worker)
        assert run.score.transition_validity == 1.0, (ref, {t: o.reason for t, o in run.transitions.items() if o.reason})
