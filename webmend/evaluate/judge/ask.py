"""One role's question to the model: cached call, JSON extraction, schema check, one re-ask.

Retries on 429/5xx/timeouts happen inside LLMClient.complete (Retry-After honoured); here an
unusable answer gets one re-ask. The re-ask repeats the original messages plus a fixed note naming
what was wrong (field paths and messages only, never the answer's text), so nothing the page wrote
is ever replayed outside the Analyst's <page_data> block. Anything that still fails raises
JudgeFailure, which the judge turns into the fast-mode fallback.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable, TypeVar

from pydantic import ValidationError

from webmend.evaluate.judge.jsonparse import JSONExtractError, extract_json
from webmend.llm.cache import ResponseCache, cache_key
from webmend.schemas.judge import JUDGE_VERSION

log = logging.getLogger(__name__)
T = TypeVar("T")

REASK = ("Your previous answer could not be used: {error}. Reply again with only the JSON object "
         "described above, complete and valid, with no text before or after it.")


class JudgeFailure(Exception):
    """The judge cannot produce an answer for this page; the message is the recorded reason."""


@dataclass
class CallStats:
    calls: int = 0
    cache_hits: int = 0
    retries: int = 0
    reasks: int = 0
    repaired_json: int = 0


class Asker:
    def __init__(self, client, cache: ResponseCache | None, reasks: int, stats: CallStats):
        self.client, self.cache, self.reasks, self.stats = client, cache, reasks, stats

    def ask(self, role: str, messages: list[dict], params: dict, validate: Callable[[dict], T]) -> T:
        """validate(obj) returns the parsed answer or raises ValueError / ValidationError."""
        asked = messages
        for attempt in range(1 + self.reasks):
            entry = self._complete(role, asked, params)
            if entry["refused"]:
                raise JudgeFailure(f"{role}: the provider refused to answer")
            try:
                obj, repaired = extract_json(entry["text"])
                answer = validate(obj)
            except (JSONExtractError, ValidationError, ValueError) as exc:
                error = _short_error(exc)
                log.info("%s answer unusable (attempt %d): %s", role, attempt + 1, error)
            else:
                self.stats.repaired_json += int(repaired)
                return answer
            if attempt < self.reasks:
                self.stats.reasks += 1
                asked = messages + [{"role": "user", "content": REASK.format(error=error)}]
        raise JudgeFailure(f"{role}: unusable answer ({error})")

    def _complete(self, role: str, messages: list[dict], params: dict) -> dict:
        # The key covers everything that goes into the call, images included (they are in messages).
        key = cache_key(self.client.model, {**params, "judge_version": JUDGE_VERSION}, messages)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self.stats.cache_hits += 1
                return hit
        try:
            completion = self.client.complete(messages, **params)
        except Exception as exc:  # LLMError (retries used up, auth, bad request), spend cap, ...
            raise JudgeFailure(f"{role}: {getattr(exc, 'kind', type(exc).__name__)}: {str(exc)[:300]}") from None
        self.stats.calls += 1
        self.stats.retries += completion.retries
        entry = {"text": completion.text, "finish_reason": completion.finish_reason, "refused": completion.refused}
        if self.cache is not None:
            self.cache.put(key, entry)
        return entry


def _short_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        parts = [f"{'.'.join(str(p) for p in e['loc']) or 'answer'}: {e['msg']}" for e in exc.errors()[:5]]
        return "; ".join(parts)
    return str(exc)[:200]
