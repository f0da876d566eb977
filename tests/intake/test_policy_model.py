"""The policy question to the classifier model, through the real litellm stack against a scripted local server."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from llm.llm_server import RoutedReplies, ScriptedLLMServer, chat_reply, content_filtered

from webmend.cli import main
from webmend.intake.policy import check_policy
from webmend.intake.policy_model import SYSTEM, parse_policy_answer

# The rules miss this paraphrase (no credential word next to the checking verb), the model does not.
PARAPHRASE = "Build a gate page where people type what they use to get into Chase online, and only let them in if Chase says yes."
RULE_HIT = "Make a page that checks the user's real username and password against their bank's API."
MALFORMED = "A habit tracker with streaks, a weekly grid and reminders stored in localStorage."
REFUSED = "Pixel art editor with a 32x32 grid, a palette and PNG export."
ALLOWED = "A mock checkout with a cart, a shipping step and a fake card form."

EXCLUDE = '{"exclude": true, "rule": "login_required", "reason": "checks real bank credentials against Chase"}'
ALLOW = '{"exclude": false, "rule": null, "reason": "a demo"}'


@pytest.fixture()
def llm(monkeypatch):
    routes = {PARAPHRASE: [chat_reply(EXCLUDE)], RULE_HIT: [chat_reply(ALLOW)],
              MALFORMED: [chat_reply("Probably fine, it is a habit tracker.")], REFUSED: [content_filtered()],
              ALLOWED: [chat_reply("```json\n" + ALLOW + "\n```")]}
    with ScriptedLLMServer(RoutedReplies(routes)) as server:
        monkeypatch.setenv("OPENAI_API_BASE", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key-0000")
        yield server


def _run(tmp_path, out: str) -> tuple[dict, dict, dict]:
    lines = [{"id": f"p{i}", "prompt": t} for i, t in enumerate([PARAPHRASE, RULE_HIT, MALFORMED, REFUSED, ALLOWED])]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(l) + "\n" for l in lines))
    cfg = tmp_path / "intake.toml"
    cfg.write_text("[family]\nllm_below_confidence = 0.0\n")  # the classifier is asked the policy question only
    code = main(["prompts", str(src), "--classify-model", "openai/scripted-policy", "--config", str(cfg),
                 "--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / out)])
    assert code == 0
    kept = {r["id"]: r for r in pq.read_table(tmp_path / out / "prompts.parquet").to_pylist()}
    rejects = {r["id"]: r for r in pq.read_table(tmp_path / out / "rejects.parquet").to_pylist()}
    return kept, rejects, json.loads((tmp_path / out / "report.json").read_text())


def test_model_adds_exclusions_rules_stay_the_floor_and_reruns_are_cached(llm, tmp_path):
    assert check_policy(PARAPHRASE) is None and check_policy(RULE_HIT) is not None
    kept, rejects, report = _run(tmp_path, "a")

    # The model excludes the paraphrase the rules let through; the detail names the source.
    assert rejects["p0"]["reason"] == "policy" and rejects["p0"]["rule"] == "login_required"
    assert rejects["p0"]["detail"] == "model: checks real bank credentials against Chase"
    # A rule hit wins: it is excluded by the rule and the model, scripted to allow it, is never asked.
    assert rejects["p1"]["rule"] == "login_required" and rejects["p1"]["detail"].startswith("rule: ")
    asked = [r.user_text for r in llm.requests]
    assert RULE_HIT not in asked and sorted(asked) == sorted([PARAPHRASE, MALFORMED, REFUSED, ALLOWED])
    assert all(r.messages[0]["content"] == SYSTEM and r.body["temperature"] == 0 for r in llm.requests)
    # A malformed answer and a refusal keep the rules' verdict (kept) and are listed, not passed silently.
    assert set(kept) == {"p2", "p3", "p4"}
    assert report["policy_model"] == {"asked": 4, "excluded": 1, "unusable": [
        {"id": "p2", "problem": "the model's answer is not a JSON object"},
        {"id": "p3", "problem": "the model refused to answer"}]}
    assert report["policy_by_source"] == {"rule": 1, "model": 1, "source": 0}
    assert report["policy_by_rule"]["login_required"] == 2

    # A rerun over the same cache makes no new call and gives the same rows.
    calls = len(llm.requests)
    kept2, rejects2, report2 = _run(tmp_path, "b")
    assert len(llm.requests) == calls
    assert (set(kept2), rejects2["p0"]["detail"], report2["policy_model"]) == (set(kept), rejects["p0"]["detail"], report["policy_model"])


@pytest.mark.parametrize("answer,verdict,problem", [
    ('{"exclude": false, "rule": null, "reason": "demo"}', None, None),
    ('```json\n{"exclude": true, "rule": "payment", "reason": "moves real money"}\n```', ("payment", "moves real money"), None),
    ('{"exclude": true, "rule": "fraud", "reason": "x"}', None, "the model excluded under an unknown rule 'fraud'"),
    ('{"exclude": true, "rule": "source_disallowed", "reason": "x"}', None, "the model excluded under an unknown rule 'source_disallowed'"),
    ('{"exclude": "yes", "rule": "payment"}', None, 'the model\'s answer has no boolean "exclude"'),
    ('Exclude: yes (payment)', None, "the model's answer is not a JSON object"),
    ('', None, "the model's answer is not a JSON object"),
])
def test_parse_policy_answer_is_strict(answer, verdict, problem):
    parsed = parse_policy_answer(answer)
    assert parsed.problem == problem
    assert (parsed.verdict and (parsed.verdict.rule, parsed.verdict.detail)) == verdict or (parsed.verdict is None and verdict is None)
    if parsed.verdict:
        assert parsed.verdict.source == "model"


def test_a_stored_model_reason_is_redacted():
    parsed = parse_policy_answer('{"exclude": true, "rule": "personal_data", "reason": "names bob@corp-mail.com"}')
    assert parsed.verdict.detail == "names [redacted]"
