"""The intake's LLM calls (rewrite, optional classifier) as plain `complete(messages) -> str` callables.

They go through the generation client (litellm: any provider string, keys only from the
environment, retries on 429/5xx), so intake and generation share one way of talking to models.
With a ResponseCache, an answered call (refusals included) is never paid for twice: a rerun of the
same intake makes no call.
"""

from __future__ import annotations

from typing import Callable

Complete = Callable[[list[dict]], str]


class RefusedError(RuntimeError):
    """The provider refused the request (content filter)."""


def litellm_complete(model: str, *, temperature: float = 0.0, max_tokens: int = 600, client=None, cache=None,
                     **client_kwargs) -> Complete:
    """client: a ready LLMClient (e.g. GenerationSettings.client(...)); else one built from client_kwargs."""
    from webmend.llm.cache import cache_key
    from webmend.llm.client import LLMClient  # litellm imports slowly: only when a model is asked for

    client = client or LLMClient(model, **client_kwargs)
    params = {"temperature": temperature, "max_tokens": max_tokens}

    def complete(messages: list[dict]) -> str:
        key = cache_key(model, params, messages)
        answer = cache.get(key) if cache is not None else None
        if answer is None:
            c = client.complete(messages, **params)
            answer = {"text": c.text, "refused": c.refused}
            if cache is not None:
                cache.put(key, answer)
        if answer["refused"]:
            raise RefusedError("the provider refused the request")
        return answer["text"]

    return complete
