"""Backoff delays and Retry-After parsing."""

import email.utils

import httpx
import openai

from webmend.llm.retry import Backoff, error_kind, retry_after_s


def status_error(status: int, headers: dict | None = None, body: dict | None = None) -> openai.APIStatusError:
    response = httpx.Response(status, headers=headers or {}, request=httpx.Request("POST", "http://127.0.0.1/v1"))
    return openai.APIStatusError("scripted", response=response, body=body)


def test_backoff_grows_exponentially_with_jitter_and_a_cap():
    b = Backoff(base_s=1.0, cap_s=8.0, seed=7)
    delays = [b.delay(n) for n in range(1, 7)]
    for n, d in enumerate(delays, 1):
        step = min(8.0, 2 ** (n - 1))
        assert step / 2 <= d <= step
    again = Backoff(base_s=1.0, cap_s=8.0, seed=7)
    assert [again.delay(n) for n in range(1, 7)] == delays  # seeded: reproducible


def test_retry_after_is_honoured_and_bounded():
    b = Backoff(base_s=1.0, max_retry_after_s=30.0)
    assert 5.0 <= b.delay(1, retry_after=5.0) <= 5.1
    assert 30.0 <= b.delay(1, retry_after=3600.0) <= 30.1


def test_retry_after_header_forms():
    assert retry_after_s(status_error(429, {"Retry-After": "3"})) == 3.0
    assert retry_after_s(status_error(429, {"retry-after-ms": "1500"})) == 1.5
    date = email.utils.formatdate(1_000_010, usegmt=True)
    assert retry_after_s(status_error(503, {"Retry-After": date}), now=1_000_000) == 10.0
    assert retry_after_s(status_error(429)) is None
    assert retry_after_s(status_error(429, {"Retry-After": "soon"})) is None


def test_error_kinds():
    assert error_kind(status_error(429)) == "transient"
    assert error_kind(status_error(503)) == "transient"
    assert error_kind(status_error(401)) == "auth"
    assert error_kind(status_error(400)) == "bad_request"
    assert error_kind(status_error(400, body={"code": "content_policy_violation"})) == "refusal"
    assert error_kind(openai.APITimeoutError(httpx.Request("POST", "http://127.0.0.1/v1"))) == "transient"
    assert error_kind(RuntimeError("boom")) == "error"
