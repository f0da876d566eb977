"""End to end: a real Prefect server, deployments from prefect.yaml, a process worker, a run of
build-refined-pool/default through `prefect deployment run`, then the trace tables in DuckDB.

A subset of the bundled samples keeps it to a couple of minutes: one page with its 10 test cases,
a trivial page, an empty answer, a refusal and a line that is not JSON. The deployment is also run
from prompts: the worker reaches a scripted OpenAI-compatible server through litellm's environment
variables, as a real worker reaches its provider.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig

import pytest
from conftest import ROOT
from flow_fixtures import SAMPLES, log_tail, query, sample_subset
from llm.llm_server import RoutedReplies, ScriptedLLMServer, chat_reply

from webmend.flows.local import stop



def prefect_executable() -> str:
    """The `prefect` console script of the environment running these tests: the scripts folder
    of this interpreter's installation (sysconfig), else next to sys.executable (not resolved: a
    venv's python is often a symlink out of it), else on PATH."""
    for folder in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        found = shutil.which("prefect", path=folder)
        if found:
            return found
    found = shutil.which("prefect")
    assert found, "no prefect executable for this interpreter"
    return found


PREFECT = prefect_executable()
IDS = ["content_coffee_story", "content_coffee_story#1", "game_snake#1", "dataviz_weather_d3#1"]
LLM_KEY = "sk-test-deploy-Wm42"  # the worker's environment only: never in parameters, tables or files
# Two prompts with one test case each and pages that load in a blink.
PROMPT_ITEMS = [
    {"id": "hello", "category": "content_marketing", "sub_type": "card", "has_interaction": False,
     "prompt": "Create a greeting card web page in one HTML file whose large heading says Hello deploy.",
     "test_cases": [{"id": "tc_01", "name": "heading", "weight": 2, "steps": [
         {"action": "assert_text_contains", "selector": "h1", "text": "Hello deploy"}]}]},
    {"id": "toggle", "category": "apps_tools", "sub_type": "widget", "has_interaction": True,
     "prompt": "Build a web page in one HTML file with a button #flip that switches the text of #state to on.",
     "test_cases": [{"id": "tc_01", "name": "flips", "weight": 2, "steps": [
         {"action": "click", "selector": "#flip"},
         {"action": "assert_text_contains", "selector": "#state", "text": "on"}]}]},
]
PROMPT_PAGES = {
    "greeting card": "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Card</title></head>"
                     "<body><h1>Hello deploy</h1></body></html>",
    "#flip": "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Flip</title></head><body>"
             "<p id=\"state\">off</p><button id=\"flip\">Flip</button><script>document.getElementById('flip')"
             ".onclick = () => { document.getElementById('state').textContent = 'on'; };</script></body></html>",
}


def prefect(env: dict, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    # Prefect's CLI prints through Rich, which wraps at COLUMNS (80 without a terminal): wide
    # enough that a heading the test looks for is never split over two lines.
    done = subprocess.run([PREFECT, *args], cwd=ROOT, env={**env, "COLUMNS": "500"}, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"prefect {' '.join(args)}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def scripted_llm():
    """The provider the worker's flow runs call (provider `openai` through litellm's env variables)."""
    routes = {marker: [chat_reply(page)] for marker, page in PROMPT_PAGES.items()}
    with ScriptedLLMServer(RoutedReplies(routes)) as server:
        yield server


@pytest.fixture(scope="module")
def deployed(prefect_api, scripted_llm, tmp_path_factory):
    """prefect.yaml deployed and a process worker polling the pool; yields the env."""
    api_url, env = prefect_api
    env = {k: v for k, v in env.items() if k != "OPENAI_BASE_URL"}
    env.update(PREFECT_WORKER_QUERY_SECONDS="2", OPENAI_API_BASE=scripted_llm.base_url, OPENAI_API_KEY=LLM_KEY)
    prefect(env, "work-pool", "create", "webmend-local", "--type", "process", "--overwrite")
    deploy = prefect(env, "--no-prompt", "deploy", "--all")
    assert "temporary server" not in deploy.stdout + deploy.stderr  # it went to our server
    log = tmp_path_factory.mktemp("worker") / "worker.log"
    worker = subprocess.Popen([PREFECT, "worker", "start", "--pool", "webmend-local", "--type", "process"],
                              cwd=ROOT, env=env, stdout=open(log, "ab"), stderr=subprocess.STDOUT,
                              start_new_session=True)
    try:
        yield env, log
    finally:
        stop(worker)


def run_deployment(env: dict, data_root, responses, items=SAMPLES / "items.jsonl", **more) -> subprocess.CompletedProcess:
    """A run of the default deployment; each given group replaces the deployment's (repair and
    export stay on)."""
    corpus = {"pages": [], "responses": [str(responses)] if responses else [], "items": str(items)}
    params = {"data_root": str(data_root), "corpus": corpus, "evaluation": {"batch_size": 2},
              "cluster": {"n_workers": 1}, **more}
    return prefect(env, "deployment", "run", "build-refined-pool/default", "--params", json.dumps(params),
                   "--watch", "--watch-interval", "2", "--watch-timeout", "600", timeout=700)


def test_both_deployments_are_declared(deployed):
    env, _ = deployed
    nightly = prefect(env, "deployment", "inspect", "build-refined-pool/nightly").stdout
    assert "0 3 * * *" in nightly and "webmend-local" in nightly
    default = prefect(env, "deployment", "inspect", "build-refined-pool/default").stdout
    assert "data/samples/responses.jsonl" in default and str(ROOT) in default  # runs from this checkout
    tiny = prefect(env, "deployment", "inspect", "train/tiny").stdout
    assert "webmend/flows/train.py:train" in tiny and "runs/data/corpus" in tiny


def test_deployment_run_writes_one_record_per_input(deployed, tmp_path):
    env, worker_log = deployed
    responses = sample_subset(tmp_path / "corpus", IDS)
    data_root = tmp_path / "data"
    done = run_deployment(env, data_root, responses)
    assert "Completed" in done.stdout, done.stdout[-2000:] + log_tail(worker_log)

    rows = query(data_root, "SELECT input_index, id, status, state, tests_total, run_id FROM evaluations ORDER BY input_index")
    assert [(r[0], r[1], r[2]) for r in rows] == [
        (0, "content_coffee_story", "ok"), (1, "content_coffee_story#1", "trivial"),
        (2, "dataviz_weather_d3#1", "no_html"), (3, "game_snake#1", "empty"), (4, "line-5", "malformed_input")]
    assert rows[0][3] in ("Low", "Mid", "High") and rows[0][4] == 10
    assert all(r[3] is None for r in rows[1:])
    assert len({r[5] for r in rows}) == 1 and rows[0][5].startswith("pool-")
    assert query(data_root, "SELECT count(*), count(DISTINCT test_id) FROM test_results WHERE id = 'content_coffee_story'") == [(10, 10)]
    assert query(data_root, "SELECT count(*) FROM test_results WHERE id <> 'content_coffee_story'") == [(0,)]
    assert len(os.listdir(data_root / "evaluations")) == 3  # batches of 2: 2 + 2 + 1
    # The experience trace is queryable, and its keyframes live under the data root.
    frames = query(data_root, "SELECT json_extract_string(payload, '$.file') FROM experience_events "
                              "WHERE id = 'content_coffee_story' AND kind = 'keyframe'")
    assert frames and all((data_root / f).read_bytes()[:4] == b"\x89PNG" for (f,) in frames)
    assert query(data_root, "SELECT count(*) > 3 FROM experience_events WHERE layer IN ('L1', 'L2')") == [(True,)]
    assert query(data_root, "SELECT layers FROM evaluations WHERE id = 'content_coffee_story'")[0][0][:2] == [1, 2]

    artifact = prefect(env, "artifact", "inspect", "build-refined-pool-summary").stdout
    assert "Pages by status" in artifact and "malformed_input" in artifact

    # A second run of the same corpus and config finds every batch committed and writes nothing.
    before = {p.name: p.stat().st_mtime_ns for p in (data_root / "evaluations").iterdir()}
    assert "Completed" in run_deployment(env, data_root, responses).stdout
    assert {p.name: p.stat().st_mtime_ns for p in (data_root / "evaluations").iterdir()} == before


def test_deployment_run_from_prompts(deployed, scripted_llm, tmp_path):
    """prompt settings (+ generation settings as JSON) through `prefect deployment run`: intake,
    generation through litellm, evaluation; a rerun makes no LLM call and writes nothing."""
    env, worker_log = deployed
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text("".join(json.dumps(item) + "\n" for item in PROMPT_ITEMS))
    data_root = tmp_path / "data"
    calls_before = len(scripted_llm.requests)
    params = {"prompts": {"files": [str(prompts)], "model": "openai/scripted-deploy"}, "items": prompts,
              "generation": {"max_tokens": 777, "seed": 5, "workers": 2}}

    done = run_deployment(env, data_root, None, **params)
    assert "Completed" in done.stdout, done.stdout[-2000:] + log_tail(worker_log)
    sent = scripted_llm.requests[calls_before:]
    assert len(sent) == 2 and {(r.body["model"], r.body["max_tokens"], r.body["seed"]) for r in sent} == {
        ("scripted-deploy", 777, 5)}

    assert query(data_root, "SELECT id, family, kind FROM prompts ORDER BY id") == [
        ("hello", "content_marketing", "benchmark_item"), ("toggle", "apps_tools", "benchmark_item")]
    assert query(data_root, "SELECT count(*) FROM prompt_rejects") == [(0,)]
    assert query(data_root, "SELECT id, status, extraction_status, model FROM generations ORDER BY id") == [
        ("hello", "generated", "complete", "openai/scripted-deploy"),
        ("toggle", "generated", "complete", "openai/scripted-deploy")]
    assert query(data_root, "SELECT id, status, tests_total, tests_passed FROM evaluations ORDER BY id") == [
        ("hello", "ok", 1, 1), ("toggle", "ok", 1, 1)]
    assert not any(LLM_KEY in p.read_text(errors="replace") for p in data_root.rglob("*") if p.is_file())

    # The same deployment run again: every stage finds its committed key; no call, no file touched.
    before = {str(p): p.stat().st_mtime_ns for p in data_root.rglob("*") if p.is_file()}
    assert "Completed" in run_deployment(env, data_root, None, **params).stdout
    assert len(scripted_llm.requests) == calls_before + 2
    assert {str(p): p.stat().st_mtime_ns for p in data_root.rglob("*") if p.is_file()} == before
