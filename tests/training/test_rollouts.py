"""Rollouts from an OpenAI-compatible server through the real litellm client (the scripted server on
127.0.0.1), and the weight sync's protocol. The policy here only records what it is asked: the
whole path with a real model and server is tests/training/test_rl_server.py."""

from __future__ import annotations

import pytest

from llm.llm_server import Reply, chat_reply, error_reply

from webmend.llm.retry import Backoff
from webmend.training.rollouts import RolloutError, ServerRollouts, request_seed

DIGEST = {"digest": "ab" * 32, "norm": 1.0}


class RecordingPolicy:
    def __init__(self):
        self.saved, self.tokenized = [], []

    def tokenize(self, rows):
        self.tokenized.extend(rows)
        return [{"prompt_ids": [1, 2], "completion_ids": [3] * len(r["text"]) + ([0] if r["stopped"] else [])}
                for r in rows]

    def save(self, path):
        self.saved.append(path)

    def digest(self):
        return DIGEST


def rollouts(server, policy, **kw) -> ServerRollouts:
    return ServerRollouts(policy, "openai/policy", api_base=server.base_url, concurrency=2,
                          backoff=Backoff(max_retries=2, base_s=0.01, cap_s=0.02), **kw)


@pytest.fixture
def server(llm_server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-rollouts")
    return llm_server


def test_each_answer_is_one_seeded_request_and_comes_back_as_token_ids(server):
    server.script(chat_reply("<p>a</p>"), chat_reply("<p>bb</p>", finish_reason="length"), chat_reply("<p>c</p>"))
    policy = RecordingPolicy()
    msgs = [{"role": "user", "content": "a page"}]
    got = rollouts(server, policy).sample([{"key": "t#u1", "messages": msgs, "n": 2, "max_new_tokens": 64,
                                            "temperature": 1.0},
                                           {"key": "s#u1", "messages": msgs, "n": 1, "max_new_tokens": 64,
                                            "temperature": 1.0}], seed=7)
    assert [(c["key"], c["index"]) for c in got] == [("t#u1", 0), ("t#u1", 1), ("s#u1", 0)]
    bodies = [r.body for r in server.requests]
    assert {b["model"] for b in bodies} == {"policy"} and {b["max_tokens"] for b in bodies} == {64}
    seeds = sorted(b["seed"] for b in bodies)
    assert seeds == sorted([request_seed(7, "t#u1", 0), request_seed(7, "t#u1", 1), request_seed(7, "s#u1", 0)])
    assert len(set(seeds)) == 3
    by_text = {c["text"]: c for c in got}
    assert set(by_text) == {"<p>a</p>", "<p>bb</p>", "<p>c</p>"}
    # an answer that stopped on its own ends with EOS; one cut at max_tokens does not
    assert by_text["<p>a</p>"]["completion_ids"][-1] == 0 and by_text["<p>bb</p>"]["completion_ids"][-1] == 3
    assert all(c["prompt_ids"] == [1, 2] for c in got) and len(policy.tokenized) == 3


def test_a_server_that_keeps_failing_stops_the_update_instead_of_scoring_a_missing_sample(server):
    server.script(*[error_reply(503, "overloaded")] * 8)
    with pytest.raises(RolloutError, match="rollout t#u1#0"):
        sampler = rollouts(server, RecordingPolicy())
        sampler.client.backoff = Backoff(max_retries=1, base_s=0.01, cap_s=0.02)
        sampler.client.sleep = lambda s: None
        sampler.sample([{"key": "t#u1", "messages": [{"role": "user", "content": "x"}], "n": 1,
                         "max_new_tokens": 8, "temperature": 1.0}], seed=0)


def test_reload_saves_the_policy_posts_its_folder_and_retries_a_5xx(server, tmp_path):
    server.script(error_reply(503, "loading"), Reply(200, {"success": True, "digest": DIGEST}))
    policy = RecordingPolicy()
    (tmp_path / "serve" / "policy-0000").mkdir(parents=True)  # the previous sync's weights
    synced = rollouts(server, policy).sync(tmp_path, 1)
    assert synced["mode"] == "reload" and synced["served"] == "serve/policy-0001"
    assert policy.saved == [str((tmp_path / "serve" / "policy-0001").resolve())]
    assert [r.path for r in server.requests] == ["/update_weights_from_disk"] * 2
    assert server.requests[-1].body == {"model_path": policy.saved[0]}
    assert not (tmp_path / "serve" / "policy-0000").exists()


def test_a_server_serving_other_weights_stops_the_run(server, tmp_path):
    server.script(Reply(200, {"success": True, "digest": {"digest": "cd" * 32, "norm": 1.0}}))
    with pytest.raises(RolloutError, match="the server serves weights cdcdcdcdcdcd"):
        rollouts(server, RecordingPolicy()).sync(tmp_path, 1)


def test_a_refused_reload_is_an_error_at_once(server, tmp_path):
    server.script(Reply(400, {"success": False, "error": {"message": "no such folder"}}))
    with pytest.raises(RolloutError, match="HTTP 400"):
        rollouts(server, RecordingPolicy()).sync(tmp_path, 1)
    assert len(server.requests) == 1


def test_sync_none_keeps_the_server_weights_and_settings_that_cannot_work_are_refused(server, tmp_path):
    policy = RecordingPolicy()
    assert rollouts(server, policy, sync_mode="none").sync(tmp_path, 0) == {"mode": "none"}
    assert policy.saved == [] and server.requests == []
    with pytest.raises(ValueError, match="needs a sync command"):
        rollouts(server, policy, sync_mode="command")
    with pytest.raises(ValueError, match="one of reload, command, none"):
        rollouts(server, policy, sync_mode="push")


def test_the_flow_rollout_options_are_read_strictly():
    from webmend.training.jobs import RolloutOptions

    opts = RolloutOptions.from_mapping({"backend": "openai", "model": "openai/policy", "api_base": "http://h:1/v1",
                                        "concurrency": "3"})
    assert (opts.backend, opts.concurrency, opts.sync) == ("openai", 3, "reload")
    assert opts.identity() == {"rollouts": "openai", "rollout_model": "openai/policy"}  # never the URL
    assert RolloutOptions.from_mapping(None).identity() == {}
    with pytest.raises(ValueError, match="unknown api_key"):
        RolloutOptions.from_mapping({"api_key": "sk-nope"})
