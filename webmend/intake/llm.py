"""The intake's LLM calls (rewrite, optional classifier) as plain `complete(messages) -> str` callables.

They go through the generation client (litellm: any provider string, keys only from the
environment, retries on 429/5xx), so intake and generation share one way of talking to models.
"""

from __future__ import annotations

from typing import Callable

Complete = Callable[[list[dict]], str]


class RefusedError(RuntimeError):
    """The provider refused the request (content filter)."""


def litellm_complete(model: str, *, temperature: float = 0.0, max_tokens: int = 600, **client_kwargs) -> Complete:
    from webmend.generate.client import LLMClient  # litellm imports slowly: only when a model is asked for

    client = LLMClient(model, **client_kwargs)

    def complete(messages: list[dict]) -> str:
        c = client.complete(messages, temperature=temperature, max_tokens=max_tokens)
        if c.refused:
            raise RefusedError("the provider refused the request")
        return c.text

    return complete
