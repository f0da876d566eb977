"""Building contracts through litellm against the scripted server on 127.0.0.1: the four stages,
validation, one send-back with the problems, malformed answers, a 429, the cache, and the CLI."""

from __future__ import annotations

import copy
import json

from conftest import ROOT, sigkill_when
from llm.llm_fixtures import Sleeps, make_client, server  # noqa: F401 (the server fixture)
from llm.llm_server import chat_reply, rate_limited

from webmend.cli import main
from webmend.contracts.build import ContractModel, build_contract
from webmend.llm.cache import ResponseCache

TODO = json.loads((ROOT / "data" / "contracts" / "todo_list" / "contract.json").read_text())
TASK = dict(TODO["task"])


def stage_parts(contract: dict) -> list[dict]:
    return [{"requirements": contract["requirements"]}, {"initial_contract": contract["initial_contract"]},
            {"states": contract["states"], "transitions": contract["transitions"]}, {"test_items": contract["test_items"]}]


def stage_replies(contract: dict, prose: bool = False) -> list:
    wrap = (lambda s: f"Here it is:\n```json\n{s}\n```\nHope it helps.") if prose else (lambda s: s)
    return [chat_reply(wrap(json.dumps(p))) for p in stage_parts(contract)]


def with_unreachable_state(contract: dict) -> dict:
    bad = copy.deepcopy(contract)
    bad["states"].append({"id": "S3", "description": "an archive view nothing leads to"})
    reload = bad["transitions"][4]
    bad["transitions"].append({**reload, "id": "T6", "from": "S3", "to": "S3",
                               "assertions": [{**a, "id": a["id"] + "x"} for a in reload["assertions"]]})
    return bad


def model(tmp_path, sleeps=None):
    return ContractModel(make_client(sleeps), ResponseCache(tmp_path / "cache"))


def test_a_valid_contract_is_kept_from_four_stage_answers(server, tmp_path):  # noqa: F811
    server.script(*stage_replies(TODO, prose=True))
    result = build_contract(TASK, model(tmp_path))
    assert result.kept and not result.sent_back and result.problems == []
    assert result.contract["transitions"] == TODO["transitions"] and result.contract["task"] == TASK
    assert len(server.requests) == 4
    assert "The contract so far" in server.requests[3].user_text and '"R6"' in server.requests[3].user_text


def test_an_invalid_contract_is_sent_back_once_and_kept_when_fixed(server, tmp_path):  # noqa: F811
    server.script(*stage_replies(with_unreachable_state(TODO)), chat_reply(json.dumps({"contract": TODO})))
    result = build_contract(TASK, model(tmp_path))
    assert result.kept and result.sent_back
    fix_prompt = server.requests[4].user_text
    assert "unreachable_state at states[S3]" in fix_prompt and "orphan" not in fix_prompt


def test_a_contract_still_invalid_after_the_send_back_is_rejected_with_its_reasons(server, tmp_path):  # noqa: F811
    bad = with_unreachable_state(TODO)
    bad["transitions"][0]["steps"][0] = {"action": "click", "selector": "#add-button"}
    server.script(*stage_replies(bad), chat_reply(json.dumps(bad)))
    result = build_contract(TASK, model(tmp_path))
    assert not result.kept and result.sent_back and len(server.requests) == 5
    assert {p.split(" at ")[0] for p in result.problems} == {"unreachable_state", "implementation_selector"}


def test_a_malformed_answer_is_asked_again_once_then_rejected(server, tmp_path):  # noqa: F811
    replies = stage_replies(TODO)
    server.script(chat_reply("I think the requirements are: adding, deleting"), *replies)
    assert build_contract(TASK, model(tmp_path / "a")).kept and len(server.requests) == 5
    server.script(chat_reply("no JSON here"), chat_reply("still none"))
    result = build_contract(TASK, model(tmp_path / "b"))
    assert not result.kept and result.problems == ["requirements: the answer is not JSON, twice (no JSON object in the answer)"]


def test_a_429_is_retried_in_the_client_and_a_rerun_makes_no_call(server, tmp_path):  # noqa: F811
    sleeps = Sleeps()
    server.script(rate_limited(retry_after=1), *stage_replies(TODO))
    assert build_contract(TASK, model(tmp_path, sleeps)).kept
    assert len(server.requests) == 5 and sleeps  # the 429, then four stages; the back-off slept (injected)
    again = model(tmp_path)
    assert build_contract(TASK, again).kept and again.calls == 0 and len(server.requests) == 5


def test_the_cli_writes_kept_contracts_and_rejects(server, tmp_path, capsys):  # noqa: F811
    prompts = tmp_path / "items.jsonl"
    prompts.write_text(json.dumps({"id": "todo_list", "category": "apps_tools", "prompt": TASK["prompt"]}) + "\n"
                       + json.dumps({"id": "other", "category": "apps_tools", "prompt": "Build a timer page."}) + "\n")
    server.script(*stage_replies(TODO), chat_reply("nothing useful"), chat_reply("nothing again"))
    out = tmp_path / "out"
    # one task at a time: the scripted server answers in arrival order
    assert main(["contract", "build", str(prompts), "--model", "openai/scripted", "--out", str(out), "--workers", "1"]) == 0
    (kept,) = [json.loads(line) for line in (out / "contracts.jsonl").read_text().splitlines()]
    assert kept["task"] == TASK
    (reject,) = [json.loads(line) for line in (out / "rejects.jsonl").read_text().splitlines()]
    assert reject["task_id"] == "other" and "not JSON" in reject["problems"][0]
    assert json.loads((out / "summary.json").read_text()) == {"tasks": 2, "kept": 1, "rejected": 1, "sent_back": 0,
                                                               "llm_calls": 6}
    assert main(["contract", "build", str(tmp_path / "missing.jsonl"), "--model", "openai/x"]) == 2


def test_the_pipeline_stage_commits_a_build_and_a_rerun_makes_no_call(server, tmp_path):  # noqa: F811
    """contract_stage: ROOT/_contracts/KEY/ and the contracts table; the same tasks and model again
    find the committed build."""
    from webmend.contracts.building import contract_stage
    from webmend.store import DataRoot

    server.script(*stage_replies(TODO))
    first = contract_stage(str(tmp_path), [TASK], "openai/scripted", make_client())
    assert first.built and first.summary["kept"] == 1 and len(server.requests) == 4
    (row,) = DataRoot(str(tmp_path)).read("contracts").to_pylist()
    assert row["id"] == "todo_list" and row["transitions"] == 5 and row["requirements_implicit"] == 2
    assert json.loads(row["contract"])["transitions"] == TODO["transitions"]
    again = contract_stage(str(tmp_path), [TASK], "openai/scripted", make_client())
    assert not again.built and again.key == first.key and again.summary == first.summary and len(server.requests) == 4


def test_the_family_flag_and_the_settings_flags_reach_the_build(server, tmp_path):  # noqa: F811
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text(json.dumps({"id": "todo_list", "prompt": TASK["prompt"]}) + "\n")
    n = len(server.requests)
    server.script(*stage_replies(TODO))
    out = tmp_path / "out"
    assert main(["contract", "build", str(prompts), "--model", "openai/scripted", "--out", str(out), "--family",
                 "apps_tools", "--timeout", "30", "--max-tokens", "12000", "--workers", "1"]) == 0
    (kept,) = [json.loads(line) for line in (out / "contracts.jsonl").read_text().splitlines()]
    assert kept["task"]["family"] == "apps_tools"
    assert "family apps_tools" in server.requests[n].user_text
    assert server.requests[n].body["max_tokens"] == 12000


def test_a_spend_cap_rejects_the_task_with_the_reason_instead_of_failing_the_run(server, tmp_path):  # noqa: F811
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text(json.dumps({"id": "todo_list", "prompt": TASK["prompt"]}) + "\n")
    server.script(*stage_replies(TODO))
    out = tmp_path / "out"
    assert main(["contract", "build", str(prompts), "--model", "openai/scripted", "--out", str(out),
                 "--max-total-tokens", "1", "--workers", "1"]) == 0
    (reject,) = [json.loads(line) for line in (out / "rejects.jsonl").read_text().splitlines()]
    assert reject["problems"] == ["not built: the run's spend cap was reached"]


def test_execute_takes_a_folder_of_pages_and_a_missing_path_is_a_clear_error(tmp_path, capsys):
    refs = ROOT / "data" / "contracts" / "todo_list" / "refs"
    contract = str(ROOT / "data" / "contracts" / "todo_list" / "contract.json")
    out = tmp_path / "r.jsonl"
    assert main(["contract", "execute", contract, str(refs), "--out", str(out)]) == 0
    pages = [json.loads(line)["page"] for line in out.read_text().splitlines()]
    assert pages == sorted(str(p) for p in refs.rglob("*.html")) and pages
    assert main(["contract", "execute", contract, str(tmp_path / "nope")]) == 2
    assert "no such file or folder" in capsys.readouterr().err


ASKS = {"List the requirements": 0, "Say what the page must hold": 1, "Write the states and transitions": 2,
        "Group the requirements into test items": 3}


def by_stage(request):
    """Each build stage's answer, told apart by what the request asks (the order of calls may vary)."""
    stage = next(n for ask, n in ASKS.items() if ask in request.user_text)
    return chat_reply(json.dumps(stage_parts(TODO)[stage]), delay_s=0.2)


def test_a_build_killed_with_sigkill_asks_only_what_it_had_not_cached(server, tmp_path):  # noqa: F811
    server.fallback = by_stage
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text("".join(json.dumps({"id": f"todo_{n}", "prompt": TASK["prompt"]}) + "\n" for n in range(3)))
    out = tmp_path / "out"
    args = ["contract", "build", str(prompts), "--model", "openai/scripted", "--out", str(out), "--workers", "1"]
    sigkill_when(["-m", "webmend.cli", *args], lambda: len(server.requests) >= 6)
    cached = len(list((out / "cache").rglob("*.json")))
    assert 4 <= cached < 12
    before = len(server.requests)
    assert main(args) == 0
    assert len(server.requests) - before == 12 - cached  # every cached answer is read, not asked again
    assert json.loads((out / "summary.json").read_text())["kept"] == 3
