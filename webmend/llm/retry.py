"""Which provider errors are worth another try, and how long to wait before it.

Only transient failures are retried: 429, 408, 5xx, timeouts and dropped connections. Auth errors
and bad requests fail at once: repeating them cannot succeed and may cost money or a ban.
"""

from __future__ import annotations

import email.utils
import random
import time
from dataclasses import dataclass, field

import openai

RETRYABLE_STATUS = frozenset({408, 409, 429})  # plus every 5xx
AUTH_STATUS = frozenset({401, 403})

# Error codes/messages providers use for safety refusals returned as errors (HTTP 400).
REFUSAL_CODES = frozenset({"content_filter", "content_policy_violation", "content_filtered", "safety"})


def error_kind(exc: BaseException) -> str:
    """One of: refusal, auth, bad_request, transient, error."""
    if _is_refusal(exc):
        return "refusal"
    if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError)):
        return "transient"
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        if status in RETRYABLE_STATUS or status >= 500:
            return "transient"
        if status in AUTH_STATUS:
            return "auth"
        if 400 <= status < 500:
            return "bad_request"
    return "error"


def _is_refusal(exc: BaseException) -> bool:
    if type(exc).__name__ == "ContentPolicyViolationError":
        return True
    code = getattr(exc, "code", None)
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        code = code or body.get("code")
    return isinstance(code, str) and code.lower() in REFUSAL_CODES


def retry_after_s(exc: BaseException, now: float | None = None) -> float | None:
    """Seconds the provider asked us to wait (retry-after-ms, Retry-After seconds or HTTP date)."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


@dataclass
class Backoff:
    """Exponential backoff with jitter (half to all of the step), capped; Retry-After wins.

    The random source is seeded so a test (or a rerun) sees the same delays.
    """

    max_retries: int = 5
    base_s: float = 1.0
    cap_s: float = 60.0
    max_retry_after_s: float = 300.0  # longer asks are treated as this long, not obeyed blindly
    seed: int = 0
    rng: random.Random = field(init=False, repr=False)

    def __post_init__(self):
        self.rng = random.Random(self.seed)

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        """Seconds to sleep before retry number `retry` (1-based)."""
        if retry_after is not None:
            # Honour the provider's wait; a little jitter keeps parallel callers from returning together.
            return min(retry_after, self.max_retry_after_s) + self.rng.uniform(0, self.base_s / 10)
        step = min(self.cap_s, self.base_s * (2 ** (retry - 1)))
        return self.rng.uniform(step / 2, step)
