"""An LLM client over litellm: any provider string, keys only from the environment.

    client = LLMClient("openai/gpt-4o-mini")            # or hosted_vllm/..., ollama/..., ...
    c = client.complete([{"role": "user", "content": "..."}], temperature=0.2, max_tokens=4096)
    c.text, c.finish_reason, c.refused, c.total_tokens, c.cost_usd, c.retries

Provider settings (API base, key) come from litellm's usual environment variables, e.g.
OPENAI_API_BASE / OPENAI_API_KEY, HOSTED_VLLM_API_BASE, OLLAMA_API_BASE; `api_key` is refused as a
parameter so a key never travels through our code, configs or tables. `complete` retries transient
failures (429, 5xx, timeouts) with backoff, honours Retry-After, fails at once on auth errors and bad
requests (`LLMError.kind`), respects the provider's concurrency and rate limits, and charges the
optional spend cap (raising `SpendCapReached` before a call once it is used up). A safety refusal is
an answer, not an error: `Completion.refused` is true (finish reason `content_filter`), whether the
provider said so in a 200 answer or as a content-policy error.
"""

from __future__ import annotations

import logging
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable

# Before the import: otherwise litellm fetches its model cost map from the internet at import time.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
_LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")
if "LITELLM_LOG" not in os.environ:
    # litellm writes its debug records to stdout, which carries our commands' JSON: `webmend -v`
    # must not switch them on (from the import on). LITELLM_LOG=DEBUG, litellm's own switch, still does.
    for _name in _LITELLM_LOGGERS:
        logging.getLogger(_name).setLevel(logging.WARNING)
import litellm  # noqa: E402

from webmend.llm.limits import Limits, RateLimiter, SpendCap  # noqa: E402
from webmend.llm.redact import install_log_filter, redact  # noqa: E402
from webmend.llm.retry import Backoff, error_kind, retry_after_s  # noqa: E402

litellm.suppress_debug_info = True
log = logging.getLogger(__name__)
install_log_filter(__name__, *_LITELLM_LOGGERS)

CONTENT_FILTER = "content_filter"
_CHARS_PER_TOKEN = 4  # rough estimate, only used to reserve rate-limit budget before a call


@dataclass(frozen=True)
class Completion:
    text: str  # the answer's content ("" when the provider sent none)
    finish_reason: str | None
    refused: bool  # a provider safety refusal (finish reason content_filter or a refusal error)
    provider: str
    model: str  # the model string we asked for
    response_model: str | None  # the model the provider says answered
    prompt_tokens: int | None
    completion_tokens: int | None
    total_tokens: int | None
    cost_usd: float | None  # litellm's price for the call; None when the model is not in its cost map
    started_at: datetime  # first attempt (UTC)
    finished_at: datetime
    latency_s: float  # of the attempt that answered
    retries: int  # transient failures retried before the answer
    refusal: str | None = None  # the provider's refusal message, when it gave one


class LLMError(Exception):
    """A call that cannot succeed: kind is auth, bad_request, transient (retries used up) or error."""

    def __init__(self, kind: str, message: str, retries: int = 0):
        super().__init__(message)
        self.kind = kind
        self.retries = retries


class Limiters:
    """One RateLimiter per provider, shared by every client built with this object."""

    def __init__(self, default: Limits | None = None, per_provider: dict[str, Limits] | None = None, *,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep):
        self.default = default or Limits()
        self.per_provider = dict(per_provider or {})
        self._clock, self._sleep = clock, sleep
        self._limiters: dict[str, RateLimiter] = {}

    def for_provider(self, provider: str) -> RateLimiter:
        if provider not in self._limiters:
            limits = self.per_provider.get(provider, self.default)
            self._limiters[provider] = RateLimiter(limits, clock=self._clock, sleep=self._sleep)
        return self._limiters[provider]


def provider_of(model: str) -> str:
    """litellm's provider for a model string; ValueError when litellm does not know it."""
    try:
        return litellm.get_llm_provider(model)[1]
    except Exception as exc:  # litellm raises its BadRequestError subclasses here
        raise ValueError(f"model {model!r}: litellm cannot tell its provider ({type(exc).__name__})") from None


@dataclass
class LLMClient:
    model: str
    limiters: Limiters = field(default_factory=Limiters)
    backoff: Backoff = field(default_factory=Backoff)
    timeout_s: float = 600.0
    spend_cap: SpendCap | None = None
    sleep: Callable[[float], None] = time.sleep

    def __post_init__(self):
        self.provider = provider_of(self.model)
        self.limiter = self.limiters.for_provider(self.provider)

    def complete(self, messages: list[dict], **params) -> Completion:
        """One chat completion; see the module docstring for errors, retries and refusals."""
        if "api_key" in params:
            raise ValueError("api_key is not accepted: keys come from the environment")
        started = _utcnow()
        retries = 0
        while True:
            if self.spend_cap is not None:
                self.spend_cap.check()
            outcome = self._attempt(messages, params, started, retries)
            if isinstance(outcome, Completion):
                break
            kind = error_kind(outcome)
            if kind == "transient" and retries < self.backoff.max_retries:
                retries += 1
                delay = self.backoff.delay(retries, retry_after_s(outcome))
                log.warning("%s: %s; retry %d in %.1f s", self.model, _describe(outcome), retries, delay)
                self.sleep(delay)
                continue
            raise LLMError(kind, f"{self.model}: {_describe(outcome)}", retries) from None
        if self.spend_cap is not None:
            self.spend_cap.charge(outcome.total_tokens, outcome.cost_usd)
        return outcome

    def _attempt(self, messages: list[dict], params: dict, started: datetime,
                 retries: int) -> Completion | Exception:
        with self._slot(messages, params) as settle:
            t0 = time.perf_counter()
            try:
                response = litellm.completion(model=self.model, messages=messages, timeout=self.timeout_s,
                                              max_retries=0, drop_params=True, **params)
            except Exception as exc:  # litellm maps every provider failure onto its exception types
                settle(0)
                if error_kind(exc) == "refusal":
                    return self._refusal_error(exc, started, time.perf_counter() - t0, retries)
                return exc
            completion = self._from_response(response, started, time.perf_counter() - t0, retries)
            settle(completion.total_tokens)
            return completion

    @contextmanager
    def _slot(self, messages: list[dict], params: dict):
        estimate = sum(len(str(m.get("content") or "")) for m in messages) // _CHARS_PER_TOKEN
        estimate += int(params.get("max_tokens") or 0)
        with self.limiter.slot(estimate) as admission:
            yield lambda tokens: self.limiter.settle(admission, tokens)

    def _from_response(self, response, started: datetime, latency: float, retries: int) -> Completion:
        choice = response.choices[0]
        message = choice.message
        refusal = getattr(message, "refusal", None)
        usage = getattr(response, "usage", None)
        return Completion(
            text=message.content or "", finish_reason=choice.finish_reason,
            refused=choice.finish_reason == CONTENT_FILTER or bool(refusal),
            provider=self.provider, model=self.model, response_model=getattr(response, "model", None),
            prompt_tokens=getattr(usage, "prompt_tokens", None),
            completion_tokens=getattr(usage, "completion_tokens", None),
            total_tokens=getattr(usage, "total_tokens", None),
            cost_usd=_cost(response), started_at=started, finished_at=_utcnow(), latency_s=latency,
            retries=retries, refusal=redact(refusal) if refusal else None,
        )

    def _refusal_error(self, exc: Exception, started: datetime, latency: float, retries: int) -> Completion:
        return Completion(
            text="", finish_reason=CONTENT_FILTER, refused=True, provider=self.provider, model=self.model,
            response_model=None, prompt_tokens=None, completion_tokens=None, total_tokens=None, cost_usd=None,
            started_at=started, finished_at=_utcnow(), latency_s=latency, retries=retries,
            refusal=_describe(exc),
        )


def _cost(response) -> float | None:
    hidden = getattr(response, "_hidden_params", None) or {}
    cost = hidden.get("response_cost")
    if cost is None:
        try:
            cost = litellm.completion_cost(completion_response=response)
        except Exception:  # the model is not in litellm's cost map: cost unknown, not zero
            return None
    return float(cost)


def _describe(exc: BaseException) -> str:
    status = getattr(exc, "status_code", None)
    prefix = f"HTTP {status} " if isinstance(status, int) else ""
    return redact(f"{prefix}{type(exc).__name__}: {exc}")[:2000]


def _utcnow() -> datetime:
    return datetime.now(timezone.utc)
