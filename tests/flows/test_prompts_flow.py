"""build-refined-pool given prompts: intake -> generation through litellm (the scripted server) ->
evaluation on Dask, on a real Prefect server; then a rerun that makes no LLM call and writes nothing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from llm.llm_server import RoutedReplies, chat_reply

from webmend.store.duckdb_views import run_query

MODEL = "openai/scripted-model"
KEY = "sk-test-flow-Xq81"  # must stay out of tables and files


def item(pid: str, prompt: str, selector: str, text: str, *steps: dict) -> dict:
    case = {"id": "tc_01", "name": "shows the text", "weight": 2,
            "steps": [*steps, {"action": "assert_text_contains", "selector": selector, "text": text}]}
    return {"id": pid, "category": "apps_tools", "sub_type": "widget", "has_interaction": bool(steps),
            "prompt": prompt, "test_cases": [case]}


COUNTER = "Build a click counter web page in one HTML file: a button #inc adds one to the number shown in #count."
GREETING = "Create a greeting card web page in one HTML file with a large heading that says Hello friend."
ITEMS = [
    item("counter", COUNTER, "#count", "1", {"action": "click", "selector": "#inc"}),
    item("greeting", GREETING, "h1", "Hello friend"),
    item("counter_again", COUNTER, "#count", "1"),  # the same prompt again: intake rejects it (duplicate)
]
COUNTER_PAGE = ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Counter</title></head><body>"
                "<main><h1>Counter</h1><p id=\"count\">0</p><button id=\"inc\">Add one</button></main><script>"
                "let n = 0; document.getElementById('inc').addEventListener('click', () => {"
                " document.getElementById('count').textContent = ++n; });</script></body></html>")
GREETING_PAGE = ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Card</title></head>"
                 "<body><main><h1>Hello friend</h1><p>Have a lovely day.</p></main></body></html>")
ROUTES = {
    "click counter": [chat_reply(COUNTER_PAGE)],
    "greeting card": [chat_reply(f"Here is your card:\n```html\n{GREETING_PAGE}\n```\nEnjoy!")],
}


@pytest.fixture
def flow_env(prefect_api, llm_server) -> dict:
    """The flow process talks to the real Prefect server (Dask must not use the ephemeral API) and
    reaches the scripted server as provider `openai` through litellm's environment variables."""
    _, env = prefect_api
    env = {k: v for k, v in env.items() if k != "OPENAI_BASE_URL"}
    return {**env, "OPENAI_API_BASE": llm_server.base_url, "OPENAI_API_KEY": KEY}


def run_flow(items: Path, data_root: Path, env: dict, log: Path, *extra: str) -> None:
    cmd = [sys.executable, "-m", "webmend.flows.build_refined_pool", "--prompts", str(items), "--model", MODEL,
           "--data-root", str(data_root), "--batch-size", "2", "--n-workers", "1", *extra]
    with open(log, "ab") as out:
        rc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, timeout=600).returncode
    assert rc == 0, log.read_text(errors="replace")[-4000:]


def files_under(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_mtime_ns for p in root.rglob("*") if p.is_file()}


def rows(root: Path, sql: str) -> list[tuple]:
    return run_query(str(root), sql)[1]


def test_prompts_to_evaluations_and_a_free_rerun(flow_env, llm_server, tmp_path):
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(i) + "\n" for i in ITEMS))
    data_root, log = tmp_path / "data", tmp_path / "flow.log"
    llm_server.fallback = RoutedReplies(ROUTES)
    env = flow_env

    run_flow(items, data_root, env, log)
    assert len(llm_server.requests) == 2

    assert rows(data_root, "SELECT id, family, kind FROM prompts ORDER BY id") == [
        ("counter", "apps_tools", "benchmark_item"), ("greeting", "apps_tools", "benchmark_item")]
    assert rows(data_root, "SELECT id, reason, matched_id FROM prompt_rejects") == [
        ("counter_again", "duplicate", "counter")]
    assert rows(data_root, "SELECT id, status, extraction_status, cache_hit, model FROM generations ORDER BY id") == [
        ("counter", "generated", "complete", False, MODEL), ("greeting", "generated", "complete", False, MODEL)]
    # The generated pages went through the unchanged evaluation path, with the items' test cases.
    evaluated = rows(data_root, "SELECT id, status, tests_total, tests_passed, list_contains(flags, 'fenced') "
                                "FROM evaluations ORDER BY id")
    assert evaluated == [("counter", "ok", 1, 1, False), ("greeting", "ok", 1, 1, True)]
    assert rows(data_root, "SELECT count(*) FROM test_results WHERE passed") == [(2,)]
    responses = list((data_root / "responses").glob("*/responses.jsonl"))
    assert len(responses) == 1 and [json.loads(x)["id"] for x in responses[0].read_text().splitlines()] == [
        "counter", "greeting"]
    assert not any(KEY in p.read_text(errors="replace") for p in data_root.rglob("*.json*"))

    # Same inputs again: every stage finds its committed key; no call, no file written or touched.
    before = files_under(data_root)
    run_flow(items, data_root, env, log)
    assert len(llm_server.requests) == 2
    assert files_under(data_root) == before


TODO = json.loads((ROOT / "data" / "contracts" / "todo_list" / "contract.json").read_text())
CONTRACT_ROUTES = {  # the four construction stages, before the generation route (both name the task)
    "List the requirements": [chat_reply(json.dumps({"requirements": TODO["requirements"]}))],
    "Say what the page must hold": [chat_reply(json.dumps({"initial_contract": TODO["initial_contract"]}))],
    "Write the states and transitions": [chat_reply(json.dumps({"states": TODO["states"], "transitions": TODO["transitions"]}))],
    "Group the requirements into test items": [chat_reply(json.dumps({"test_items": TODO["test_items"]}))],
    "to-do list": [chat_reply((ROOT / "data" / "contracts" / "todo_list" / "refs" / "ref_b.html").read_text())],
}


def test_a_prompt_without_test_cases_gets_a_contract_that_scores_its_page(flow_env, llm_server, tmp_path):
    """--contract-model: intake -> generation -> a contract built for the prompt (no test cases)
    -> evaluation with it: functionality = budget x r_web; a rerun makes no call."""
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text(json.dumps({"id": "todo_list", "prompt": TODO["task"]["prompt"]}) + "\n")
    data_root, log = tmp_path / "data", tmp_path / "flow.log"
    llm_server.fallback = RoutedReplies(CONTRACT_ROUTES)
    run_flow(prompts, data_root, flow_env, log, "--contract-model", MODEL)
    assert len(llm_server.requests) == 5  # one page, four construction stages
    assert rows(data_root, "SELECT id, transitions FROM contracts") == [("todo_list", 5)]
    assert rows(data_root, "SELECT c.id, c.transition_validity, e.score_functionality, e.tests_total "
                           "FROM contract_results c JOIN evaluations e USING (id, input_hash)") == [("todo_list", 1.0, 55.0, 0)]
    assert not any(KEY in p.read_text(errors="replace") for p in data_root.rglob("*.json*"))
    run_flow(prompts, data_root, flow_env, log, "--contract-model", MODEL)
    assert len(llm_server.requests) == 5
