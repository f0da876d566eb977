"""Per-provider concurrency and rate limits, and the per-run spend cap.

Time comes from an injectable clock and sleep so tests run without waiting.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterator

WINDOW_S = 60.0  # rates are per minute


@dataclass(frozen=True)
class Limits:
    """How hard one provider may be driven. None means unlimited."""

    concurrency: int = 4
    rpm: int | None = None  # requests per minute
    tpm: int | None = None  # tokens per minute (prompt + completion)

    def __post_init__(self):
        if self.concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        for name in ("rpm", "tpm"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{name} must be at least 1 (or unset)")


class _Admission:
    """One admitted request in the sliding window; its token count is settled after the call."""

    __slots__ = ("at", "tokens")

    def __init__(self, at: float, tokens: int):
        self.at = at
        self.tokens = tokens


class RateLimiter:
    """A concurrency semaphore plus sliding one-minute windows for requests and tokens.

    Tokens are reserved from an estimate before the call and corrected with the real usage after
    it, so a burst of long prompts waits before it is sent rather than after the 429.
    """

    def __init__(self, limits: Limits, *, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        self.limits = limits
        self._clock = clock
        self._sleep = sleep
        self._slots = threading.BoundedSemaphore(limits.concurrency)
        self._window: deque[_Admission] = deque()
        self._lock = threading.Lock()
        self.waited_s = 0.0  # total time spent waiting for the rate windows

    @contextmanager
    def slot(self, estimated_tokens: int) -> Iterator[_Admission]:
        """Hold one concurrency slot and one admission for the duration of a request."""
        with self._slots:
            yield self._admit(max(0, estimated_tokens))

    def settle(self, admission: _Admission, actual_tokens: int | None) -> None:
        if actual_tokens is not None:
            with self._lock:
                admission.tokens = actual_tokens

    def _admit(self, tokens: int) -> _Admission:
        while True:
            with self._lock:
                now = self._clock()
                while self._window and self._window[0].at <= now - WINDOW_S:
                    self._window.popleft()
                wait = self._wait_needed(now, tokens)
                if wait <= 0:
                    admission = _Admission(now, tokens)
                    self._window.append(admission)
                    return admission
            self.waited_s += wait
            self._sleep(wait)

    def _wait_needed(self, now: float, tokens: int) -> float:
        wait = 0.0
        rpm, tpm = self.limits.rpm, self.limits.tpm
        if rpm is not None and len(self._window) >= rpm:
            wait = self._window[len(self._window) - rpm].at + WINDOW_S - now
        if tpm is not None and self._window:
            excess = sum(a.tokens for a in self._window) + tokens - tpm
            # Wait until enough of the oldest admissions leave the window (a request larger than
            # the whole budget goes alone into an empty window).
            for admission in self._window:
                if excess <= 0:
                    break
                excess -= admission.tokens
                wait = max(wait, admission.at + WINDOW_S - now)
        return wait


class SpendCapReached(Exception):
    """The run's token or cost cap is used up: no new paid calls."""


@dataclass
class SpendCap:
    """Tokens and cost one run may spend. Checked before each paid call, charged after it.

    Calls already in flight when the cap is reached still finish (and are charged), so a run can
    overshoot by at most `concurrency` calls. Calls with an unknown cost count towards the token
    cap only.
    """

    max_tokens: int | None = None
    max_cost_usd: float | None = None
    tokens: int = 0
    cost_usd: float = 0.0

    def __post_init__(self):
        self._lock = threading.Lock()

    def check(self) -> None:
        with self._lock:
            reason = self._exhausted()
        if reason:
            raise SpendCapReached(reason)

    def charge(self, tokens: int | None, cost_usd: float | None) -> None:
        with self._lock:
            self.tokens += tokens or 0
            self.cost_usd += cost_usd or 0.0

    def _exhausted(self) -> str | None:
        if self.max_tokens is not None and self.tokens >= self.max_tokens:
            return f"token cap reached: {self.tokens} of {self.max_tokens} tokens spent"
        if self.max_cost_usd is not None and self.cost_usd >= self.max_cost_usd:
            return f"cost cap reached: ${self.cost_usd:.4f} of ${self.max_cost_usd:.4f} spent"
        return None
