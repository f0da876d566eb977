"""Fixtures for generation tests: the scripted server wired in through litellm's env variables."""

from __future__ import annotations

import pytest

from webmend.llm.client import Limiters, LLMClient
from webmend.llm.limits import Limits, SpendCap
from webmend.llm.retry import Backoff

SECRET_KEY = "sk-test-Zq8vN3pL0wXc7Yt2"  # must never show up in outputs or logs
MODEL = "openai/scripted-model"


@pytest.fixture
def server(llm_server, monkeypatch):
    """The scripted server, reachable as provider `openai` through OPENAI_API_BASE/OPENAI_API_KEY."""
    monkeypatch.setenv("OPENAI_API_BASE", llm_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET_KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return llm_server


class Sleeps(list):
    """An injected sleep: records the delays instead of waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def make_client(sleeps: Sleeps | None = None, *, max_retries: int = 3, timeout_s: float = 5.0,
                spend_cap: SpendCap | None = None, concurrency: int = 4) -> LLMClient:
    sleeps = Sleeps() if sleeps is None else sleeps
    return LLMClient(MODEL, limiters=Limiters(Limits(concurrency=concurrency), sleep=sleeps),
                     backoff=Backoff(max_retries=max_retries, base_s=0.5, seed=1), timeout_s=timeout_s,
                     spend_cap=spend_cap, sleep=sleeps)
