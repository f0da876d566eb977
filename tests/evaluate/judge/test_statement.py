"""Judged contract assertions decided by the statement judge on a screenshot, through litellm at
the scripted server: true, false (the transition fails with the evidence), and an unusable answer
(not run, as without a judge)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from llm.llm_fixtures import make_client, server  # noqa: F401 (the server fixture)
from llm.llm_server import chat_reply

from webmend.evaluate.contract_run import execute_contract
from webmend.evaluate.judge.judge import VisualJudge
from webmend.evaluate.judge.statement import StatementJudge

TODO = Path(__file__).resolve().parents[3] / "data" / "contracts" / "todo_list"
JUDGED = {"id": "J1", "when": "after", "judged": True, "text": "the list shows the task Buy milk", "requirement": "R1"}


def contract() -> dict:
    c = copy.deepcopy(json.loads((TODO / "contract.json").read_text()))
    c["transitions"][0]["assertions"].append(JUDGED)
    return c


def run(worker, cfg, judge=None):
    return execute_contract((TODO / "refs" / "ref_a.html").read_text(), contract(), cfg, worker=worker, judge=judge)


def test_judged_assertions_are_decided_on_a_screenshot_or_not_run(server, worker, cfg):  # noqa: F811
    judge = StatementJudge(VisualJudge("openai/scripted-model", client=make_client()))
    server.script(chat_reply('{"holds": true, "evidence": "Buy milk is the only item"}'))
    passed = run(worker, cfg, judge)
    assert passed.transitions["T1"].assertions["J1"] is True and passed.transitions["T1"].status == "passed"
    (request,) = server.requests
    assert "the list shows the task Buy milk" in request.user_text and "data:image/png;base64," in json.dumps(request.body)

    server.script(chat_reply('{"holds": false, "evidence": "the list is empty"}'))
    judge = StatementJudge(VisualJudge("openai/scripted-model", client=make_client()))
    failed = run(worker, cfg, judge)
    t1 = failed.transitions["T1"]
    assert t1.status == "failed" and t1.assertions["J1"] is False and "judged false: the list is empty" in t1.reason
    assert failed.transitions["T2"].status == "blocked"

    server.script(chat_reply("no idea"), chat_reply("still no JSON"))
    judge = StatementJudge(VisualJudge("openai/scripted-model", client=make_client()))
    unusable = run(worker, cfg, judge)
    assert unusable.transitions["T1"].assertions["J1"] is None and unusable.transitions["T1"].status == "passed"
    assert run(worker, cfg).transitions["T1"].assertions["J1"] is None  # no judge: not run
