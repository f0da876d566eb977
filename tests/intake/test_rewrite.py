"""Rewrite and the optional LLM classifier through the real litellm stack against a scripted local server."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from llm.llm_server import ScriptedLLMServer, chat_reply, content_filtered, error_reply

from webmend.cli import main  # noqa: E402
from webmend.intake.family import classify  # noqa: E402
from webmend.intake.rewrite import NOT_A_WEB_TASK, SYSTEM, parse_rewrite  # noqa: E402
from webmend.llm.complete import litellm_complete  # noqa: E402


@pytest.fixture()
def llm(monkeypatch):
    with ScriptedLLMServer() as server:
        monkeypatch.setenv("OPENAI_API_BASE", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key-0000")
        yield server


def test_parse_rewrite_cleans_and_refuses():
    assert parse_rewrite("```\nBuild a snake game with a score counter.\n```").prompt == "Build a snake game with a score counter."
    assert parse_rewrite('Here is the rewritten request: "Build a pong game for two players."').prompt == "Build a pong game for two players."
    assert parse_rewrite(NOT_A_WEB_TASK + ".").not_a_task
    assert parse_rewrite("I'm sorry, I can't help with that.").error == "the model refused to rewrite"
    assert "page instead" in parse_rewrite("<!DOCTYPE html><html><body>hi</body></html>").error
    assert parse_rewrite("Snake.").error.startswith("rewrite shorter")
    assert parse_rewrite("").error == "empty rewrite"


POSTS = [
    {"id": "p1", "subreddit": "webdev", "title": "Help with a budgeting thing??",
     "selftext": "Hi all! Long time lurker. My partner and I want a page where we enter monthly income and expenses by category and see what's left, ideally with a pie chart. Thanks in advance!!",
     "author": "someone_real", "created_utc": 1767225600, "score": 12},
    {"id": "p2", "subreddit": "gamedev", "title": "idea: tiny browser game",
     "selftext": "Thinking of a whack-a-mole with a 30s timer and combos. Could anyone sketch this?", "created_utc": 1767225700},
    {"id": "p3", "subreddit": "webdev", "title": "Which laptop should I buy?", "selftext": "Budget is 1000 dollars, mostly for coding."},
    {"id": "p4", "subreddit": "dataisbeautiful", "title": "Viz request", "selftext": "Would love a heatmap of my running by weekday and hour."},
    {"id": "p5", "subreddit": "webdev", "title": "Checkout demo", "selftext": "A checkout page mockup with card fields and validation."},
]


def test_prompts_cli_rewrites_posts_through_litellm(llm, tmp_path):
    dump = tmp_path / "reddit.jsonl"
    dump.write_text("".join(json.dumps(p) + "\n" for p in POSTS))
    llm.script(
        chat_reply("Build a single-file monthly budget page: enter income and expenses by category, show the remaining balance and a pie chart of spending."),
        chat_reply("Here is the rewritten request:\n```\nCreate a whack-a-mole browser game with a 30-second timer and combo scoring.\n```"),
        chat_reply(NOT_A_WEB_TASK),
        error_reply(500, "upstream hiccup"),
        chat_reply("Create a heatmap of running distance by weekday and hour of day, with tooltips."),
        content_filtered(),
    )
    out = tmp_path / "out"
    code = main(["prompts", str(dump), "--rewrite-model", "openai/scripted-rewriter", "--out", str(out)])
    assert code == 0
    assert llm.pending == 0 and len(llm.requests) == 6  # one retry after the 500, no call for the rest
    assert all(r.messages[0]["content"] == SYSTEM for r in llm.requests)
    assert "Long time lurker" in llm.requests[0].user_text  # the whole post goes to the rewriter

    prompts = {r["id"]: r for r in pq.read_table(out / "prompts.parquet").to_pylist()}
    rejects = {r["id"]: r for r in pq.read_table(out / "rejects.parquet").to_pylist()}
    assert set(prompts) == {"p1", "p2", "p4"}
    assert prompts["p1"]["prompt"].startswith("Build a single-file monthly budget page")
    assert "Long time lurker" in prompts["p1"]["original"]  # the original stays beside the rewrite
    assert prompts["p2"]["prompt"] == "Create a whack-a-mole browser game with a 30-second timer and combo scoring."
    assert prompts["p2"]["family"] == "games_simulations"
    assert prompts["p1"]["source"] == "reddit/r/webdev" and prompts["p1"]["fetched_at"].year == 2026
    assert "someone_real" not in json.dumps(prompts, default=str)  # author names are never read
    assert rejects["p3"]["reason"] == "not_a_web_task" and rejects["p3"]["rule"] == "rewriter"
    assert rejects["p5"]["reason"] == "rewrite_failed" and "Refused" in rejects["p5"]["detail"]
    report = json.loads((out / "report.json").read_text())
    assert report["rewritten"] == 3


def test_llm_classifier_is_asked_only_when_rules_are_unsure(llm):
    complete = litellm_complete("openai/scripted-classifier")
    llm.script(chat_reply('{"family": "visual_art_animation", "subtype": "Ambient Loop", "interactive": false, "confidence": 0.8}'))
    label = classify("Something calm to leave running on a second monitor.", complete=complete, llm_below=0.5)
    assert (label.family, label.subtype, label.interactive, label.method) == ("visual_art_animation", "ambient_loop", False, "llm")

    llm.script(chat_reply("I think it's probably art?"))
    label = classify("Something calm to leave running on a second monitor.", complete=complete, llm_below=0.5)
    assert label.method == "rules"  # an unusable answer keeps the rule result

    before = len(llm.requests)
    sure = classify("Make a classic Snake game on canvas with arrow keys and a score.", complete=complete, llm_below=0.5)
    assert sure.method == "rules" and sure.family == "games_simulations"
    assert len(llm.requests) == before  # confident rules never pay for a call
