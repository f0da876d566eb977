"""LLMClient through the real litellm stack against the scripted local server."""

import pytest
from llm.llm_fixtures import MODEL, SECRET_KEY, Sleeps, make_client, server  # noqa: F401  (fixture)
from llm.llm_server import Reply, chat_reply, content_filtered, error_reply, policy_violation, rate_limited

from webmend.llm.client import LLMError
from webmend.llm.limits import SpendCap, SpendCapReached

HI = [{"role": "user", "content": "Build a page"}]
PAGE = "<!DOCTYPE html><html><body><h1>Hi</h1></body></html>"


def test_answer_usage_and_request(server):
    server.script(chat_reply(PAGE, prompt_tokens=12, completion_tokens=30))
    c = make_client().complete(HI, temperature=0.3, max_tokens=100)
    assert (c.text, c.finish_reason, c.refused, c.retries) == (PAGE, "stop", False, 0)
    assert (c.provider, c.model, c.prompt_tokens, c.completion_tokens, c.total_tokens) == ("openai", MODEL, 12, 30, 42)
    assert c.cost_usd is None  # not in litellm's cost map: unknown, not zero
    assert c.latency_s > 0 and c.finished_at >= c.started_at
    (req,) = server.requests
    assert req.path == "/v1/chat/completions"
    assert req.body["model"] == "scripted-model" and req.body["temperature"] == 0.3 and req.body["max_tokens"] == 100
    assert req.headers["authorization"] == f"Bearer {SECRET_KEY}"  # the key came from the environment


def test_known_model_price_gives_a_cost(server):
    server.script(chat_reply("x", model="gpt-4o-mini", prompt_tokens=1000, completion_tokens=2000))
    assert make_client().complete(HI).cost_usd == pytest.approx(1000 * 0.15e-6 + 2000 * 0.6e-6)


def test_429_honours_retry_after_then_succeeds(server):
    server.script(rate_limited(retry_after=7), chat_reply(PAGE))
    sleeps = Sleeps()
    c = make_client(sleeps).complete(HI)
    assert c.retries == 1 and c.text == PAGE
    assert len(sleeps) == 1 and 7.0 <= sleeps[0] <= 7.1
    assert len(server.requests) == 2


def test_5xx_are_retried_with_growing_backoff(server):
    server.script(error_reply(500), error_reply(503), error_reply(502), chat_reply(PAGE))
    sleeps = Sleeps()
    c = make_client(sleeps).complete(HI)
    assert c.retries == 3 and len(server.requests) == 4
    assert 0.25 <= sleeps[0] <= 0.5 and 0.5 <= sleeps[1] <= 1.0 and 1.0 <= sleeps[2] <= 2.0


def test_timeout_is_retried(server):
    server.script(Reply(200, chat_reply("late").body, delay_s=1.5), chat_reply(PAGE))
    c = make_client(timeout_s=0.4).complete(HI)
    assert c.retries == 1 and c.text == PAGE


def test_transient_errors_give_up_after_max_retries(server):
    server.script(*[error_reply(500)] * 3)
    with pytest.raises(LLMError) as err:
        make_client(max_retries=2).complete(HI)
    assert err.value.kind == "transient" and err.value.retries == 2 and len(server.requests) == 3


@pytest.mark.parametrize("status, kind", [(401, "auth"), (403, "auth"), (400, "bad_request"), (404, "bad_request")])
def test_auth_errors_and_bad_requests_fail_at_once(server, status, kind):
    # The scripted error echoes the key, as some proxies do: it must not survive into our error text.
    server.script(error_reply(status, f"rejected key {SECRET_KEY}", err_type="invalid_request_error"))
    sleeps = Sleeps()
    with pytest.raises(LLMError) as err:
        make_client(sleeps).complete(HI)
    assert err.value.kind == kind and err.value.retries == 0
    assert len(server.requests) == 1 and sleeps == []
    assert SECRET_KEY not in str(err.value) and f"HTTP {status}" in str(err.value)


def test_content_filter_finish_reason_is_a_refusal(server):
    server.script(content_filtered())
    c = make_client().complete(HI)
    assert c.refused and c.finish_reason == "content_filter" and c.text == ""


def test_refusal_message_is_a_refusal(server):
    server.script(chat_reply(None, refusal="I can't help with that."))
    c = make_client().complete(HI)
    assert c.refused and c.refusal == "I can't help with that."


def test_content_policy_error_is_a_refusal_not_a_failure(server):
    server.script(policy_violation())
    c = make_client().complete(HI)
    assert c.refused and c.finish_reason == "content_filter" and "safety system" in c.refusal
    assert len(server.requests) == 1


def test_spend_cap_refuses_calls_once_spent(server):
    server.script(chat_reply(PAGE, prompt_tokens=50, completion_tokens=60))
    cap = SpendCap(max_tokens=100)
    client = make_client(spend_cap=cap)
    client.complete(HI)
    assert cap.tokens == 110
    with pytest.raises(SpendCapReached):
        client.complete(HI)
    assert len(server.requests) == 1


def test_api_key_parameter_is_refused(server):
    with pytest.raises(ValueError, match="environment"):
        make_client().complete(HI, api_key="sk-inline")
    assert server.requests == []


def test_unknown_provider_is_an_error():
    from webmend.llm.client import LLMClient

    with pytest.raises(ValueError, match="provider"):
        LLMClient("no-such-provider-xyz/model")
