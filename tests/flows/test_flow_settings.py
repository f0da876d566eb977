"""build-refined-pool's model and limit parameters reach their stages: a real flow run on a real Prefect
server, every LLM call through litellm to the scripted server. No page is generated (each generation
call times out), so no browser starts: the test is about what the stages are told.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from llm.llm_server import Reply, Request, chat_reply, error_reply

from webmend.intake.policy_model import SYSTEM as POLICY_SYSTEM
from webmend.store.duckdb_views import run_query

KEY = "sk-test-flow-settings-7Zq"
POST = {"id": "wx", "title": "little weather page?",
        "selftext": "hey all, I would love a small page with a five day weather forecast, an icon, the high and "
                    "the low for each day, and a toggle between Celsius and Fahrenheit. thanks in advance!"}
REWRITTEN = ("Build a single HTML page showing a five-day weather forecast: an icon, the high and the low for "
             "each day, and a toggle between Celsius and Fahrenheit.")
LABEL = '{"family": "data_visualization", "subtype": "forecast", "interactive": true, "confidence": 0.9}'
ALLOW = '{"exclude": false, "rule": null, "reason": "a forecast page with no real service"}'


def by_model(request: Request) -> Reply:
    """The rewriter, the classifier and the generator are told apart by the model each call names."""
    model = request.body.get("model")
    if model == "scripted-rewriter":
        return chat_reply(REWRITTEN)
    if model == "scripted-classifier":  # asked the policy question, then the family
        return chat_reply(ALLOW if request.messages[0]["content"] == POLICY_SYSTEM else LABEL)
    if model == "scripted-generator":
        return chat_reply("<!DOCTYPE html><html><body>late</body></html>", delay_s=2.5)  # past the 1 s timeout
    return error_reply(500, f"unexpected model {model}")


def run_flow(posts: Path, intake_cfg: Path, data_root: Path, env: dict, log: Path) -> None:
    cmd = [sys.executable, "-m", "webmend.flows.build_refined_pool", "--prompts", str(posts),
           "--model", "openai/scripted-generator", "--rewrite-model", "openai/scripted-rewriter",
           "--classify-model", "openai/scripted-classifier", "--intake-config", str(intake_cfg),
           "--max-tokens", "321", "--seed", "11", "--timeout", "1", "--max-retries", "1", "--workers", "1",
           "--data-root", str(data_root), "--n-workers", "1"]
    with open(log, "ab") as out:
        rc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, timeout=600).returncode
    assert rc == 0, log.read_text(errors="replace")[-4000:]


def calls(server, model: str) -> list[dict]:
    return [r.body for r in server.requests if r.body.get("model") == model]


@pytest.fixture
def flow_env(prefect_api, llm_server) -> dict:
    _, env = prefect_api
    env = {k: v for k, v in env.items() if k != "OPENAI_BASE_URL"}
    return {**env, "OPENAI_API_BASE": llm_server.base_url, "OPENAI_API_KEY": KEY}


def test_models_limits_and_intake_config_reach_their_stages(flow_env, llm_server, tmp_path):
    posts = tmp_path / "posts.jsonl"
    posts.write_text(json.dumps(POST) + "\n")
    intake_cfg = tmp_path / "intake.toml"
    intake_cfg.write_text("[family]\nllm_below_confidence = 1.0\n")  # every rule label goes to the classifier
    data_root, log = tmp_path / "data", tmp_path / "flow.log"
    llm_server.fallback = by_model

    run_flow(posts, intake_cfg, data_root, flow_env, log)

    # rewrite_model: the post was rewritten by that model; classify_model: asked the policy question about
    # the rewrite, and (intake_config) labelled it.
    assert len(calls(llm_server, "scripted-rewriter")) == 1 and len(calls(llm_server, "scripted-classifier")) == 2
    policy_call = calls(llm_server, "scripted-classifier")[0]["messages"]
    assert policy_call[0]["content"] == POLICY_SYSTEM and policy_call[1]["content"] == REWRITTEN
    prompts = run_query(str(data_root), "SELECT id, prompt, original IS NOT NULL, family, family_method, subtype "
                                        "FROM prompts")[1]
    assert prompts == [("wx", REWRITTEN, True, "data_visualization", "llm", "forecast")]
    # generation: max_tokens and seed are sent; timeout 1 s and max_retries 1 give two attempts, then failure.
    sent = calls(llm_server, "scripted-generator")
    assert len(sent) == 2 and all((b["max_tokens"], b["seed"]) == (321, 11) for b in sent)
    rows = run_query(str(data_root), "SELECT id, status, retries, split_part(error, ':', 1), params FROM generations")[1]
    assert [r[:4] for r in rows] == [("wx", "failed", 1, "transient")]
    assert json.loads(rows[0][4]) == {"max_tokens": 321, "seed": 11}
    assert "imeout" in run_query(str(data_root), "SELECT error FROM generations")[1][0][0]
    assert not (data_root / "evaluations").exists()  # nothing generated, nothing evaluated

    # A rerun: intake's model answers come from its cache, the failed generation is committed: no call.
    before = len(llm_server.requests)
    run_flow(posts, intake_cfg, data_root, flow_env, log)
    assert len(llm_server.requests) == before
