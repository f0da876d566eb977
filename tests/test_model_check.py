"""`webmend model check` against the scripted server on 127.0.0.1 through litellm: each stage's own
prompt, each answer read by that stage's own parser; a failure is named and exits 1."""

from __future__ import annotations

import json

from contracts.test_contract_build import TODO, stage_replies
from evaluate.judge.judge_fixtures import analyst_answer, answer, scorer_answer
from llm.llm_fixtures import server  # noqa: F401 (the server fixture)
from llm.llm_server import chat_reply

from webmend.cli import main
from webmend.model_check import COUNTER

PAGE = "Here is the page:\n```html\n" + COUNTER.replace("{ show(); }", "{ n = 0; show(); }") + "\n```"
FIX = {"patches": [{"old_str": "() => { show(); }", "new_str": "() => { n = 0; show(); }"}]}


def test_every_format_a_stage_needs_is_checked_and_passes(server, capsys):  # noqa: F811
    n = len(server.requests)
    server.script(chat_reply(PAGE), chat_reply("```json\n" + json.dumps(FIX) + "\n```"), chat_reply(PAGE),
                  *stage_replies(TODO), answer(analyst_answer()), answer(scorer_answer(14)))
    code = main(["model", "check", "--model", "openai/m", "--judge-model", "openai/v", "--timeout", "5"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0, out
    assert [line.split()[1] for line in out] == ["generate", "repair", "repair", "contract", "visual"]
    assert "1 patch(es) applied (1 exact" in out[1] and "visual design 14" in out[4]
    patch_prompt = server.requests[n + 1].user_text
    # the repair check sends repair's real prompt: the failed step with its definition
    assert '"selector": "#count", "text": "^0$"}   <- FAILED here' in patch_prompt


def test_an_answer_a_stage_cannot_read_fails_its_check_by_name(server, capsys):  # noqa: F811
    bad = {"patches": [{"old_str": "not in the page", "new_str": "x"}]}
    server.script(chat_reply("Sorry, I cannot write pages."), chat_reply(json.dumps(bad)), chat_reply(PAGE),
                  *stage_replies(TODO))
    assert main(["model", "check", "--model", "openai/m", "--timeout", "5", "--max-retries", "0"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("FAIL generate") and "no page in the answer" in out[0]
    assert out[1].startswith("FAIL repair patch") and "patches do not apply" in out[1]
    assert out[2].startswith("ok   repair rewrite") and out[3].startswith("ok   contract build")


def test_no_model_is_a_usage_error(capsys):
    assert main(["model", "check"]) == 2 and "give --model" in capsys.readouterr().err
