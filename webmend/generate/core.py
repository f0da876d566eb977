"""Generate one sample: the call (through the cache), the safe-demo retry, and its table rows.

Pure core: the client and cache are passed in; nothing here knows about files or Prefect.
Each provider call becomes one generations row. A safety refusal gets exactly one more call with the
harmless front-end-demo suffix (htmlcure D.6.1); its row has safe_demo_retry = true.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import asdict, dataclass, field
from datetime import datetime

from webmend.extract import extract_page
from webmend.generate.prompts import messages_for
from webmend.generate.samples import GenerationConfig, Sample, params_for
from webmend.llm.cache import ResponseCache, cache_key
from webmend.llm.client import Completion, LLMClient, LLMError
from webmend.llm.limits import SpendCapReached
from webmend.llm.redact import redact
from webmend.schemas.hashing import sha256_hex

log = logging.getLogger(__name__)


class RunStop:
    """Set once when the whole run must stop making paid calls (spend cap, rejected credentials)."""

    def __init__(self):
        self._lock = threading.Lock()
        self.reason: str | None = None
        self.by: str | None = None  # spend_cap or auth

    def set(self, by: str, reason: str) -> None:
        with self._lock:
            if self.reason is None:
                self.by, self.reason = by, reason
                log.warning("generation stops: %s", reason)


@dataclass
class SampleResult:
    sample: Sample
    rows: list[dict] = field(default_factory=list)  # generations rows, without the run's common fields
    response: str | None = None  # the final answer, when the sample was generated


def page_status(text: str) -> str:
    """complete, truncated or no_html, from the evaluator's own page extractor."""
    extraction = extract_page(text)
    if extraction.status != "ok":
        return "no_html"
    return "truncated" if "truncated" in extraction.flags else "complete"


def generate_sample(sample: Sample, cfg: GenerationConfig, client: LLMClient, cache: ResponseCache | None,
                    stop: RunStop) -> SampleResult:
    params = params_for(sample, cfg)
    result = SampleResult(sample)
    for safe_demo in (False, True):
        messages = messages_for(sample.prompt.prompt, safe_demo=safe_demo)
        outcome = _call(client, cache, messages, params, sample.index, stop)
        if isinstance(outcome, str):  # not generated: the run has stopped
            result.rows.append(_base_row(sample, client, params) | {"status": "not_generated", "error": outcome})
            return result
        if isinstance(outcome, LLMError):
            result.rows.append(_base_row(sample, client, params) | {
                "status": "failed", "error": f"{outcome.kind}: {outcome}", "retries": outcome.retries,
                "safe_demo_retry": safe_demo, "cache_hit": False})
            return result
        completion, hit = outcome
        result.rows.append(_call_row(sample, client, params, completion, safe_demo=safe_demo, cache_hit=hit))
        if not completion.refused:
            result.response = completion.text
            return result
    return result  # refused twice: no response; both rows say refused


def _call(client: LLMClient, cache: ResponseCache | None, messages: list[dict], params: dict,
          index: int, stop: RunStop) -> tuple[Completion, bool] | LLMError | str:
    key = cache_key(client.model, params, messages, index)
    cached = _completion_from(cache.get(key)) if cache is not None else None
    if cached is not None:
        return cached, True
    if stop.reason:
        return stop.reason
    try:
        completion = client.complete(messages, **params)
    except SpendCapReached as exc:
        stop.set("spend_cap", str(exc))
        return stop.reason
    except LLMError as exc:
        if exc.kind == "auth":
            stop.set("auth", f"credentials rejected: {exc}")
        return exc
    if cache is not None:
        cache.put(key, _completion_to(completion))
    return completion, False


def _completion_to(c: Completion) -> dict:
    data = asdict(c)
    data["started_at"], data["finished_at"] = c.started_at.isoformat(), c.finished_at.isoformat()
    return data


def _completion_from(data: dict | None) -> Completion | None:
    """A cached call, or None (a miss) when the entry predates the current Completion fields."""
    if data is None:
        return None
    try:
        data = dict(data, started_at=datetime.fromisoformat(data["started_at"]),
                    finished_at=datetime.fromisoformat(data["finished_at"]))
        return Completion(**data)
    except (KeyError, TypeError, ValueError) as exc:
        log.warning("ignoring an incompatible cache entry (%s)", exc)
        return None


def _base_row(sample: Sample, client: LLMClient, params: dict) -> dict:
    return {
        "id": sample.id, "prompt_id": sample.prompt.id, "sample_index": sample.index,
        "provider": client.provider, "model": client.model, "params": json.dumps(params, sort_keys=True),
        "input_hash": sample.prompt.hash,
    }


def _call_row(sample: Sample, client: LLMClient, params: dict, c: Completion, *, safe_demo: bool,
              cache_hit: bool) -> dict:
    return _base_row(sample, client, params) | {
        "started_at": c.started_at, "finished_at": c.finished_at, "latency_s": c.latency_s,
        "retries": c.retries, "safe_demo_retry": safe_demo, "cache_hit": cache_hit,
        "finish_reason": c.finish_reason, "prompt_tokens": c.prompt_tokens,
        "completion_tokens": c.completion_tokens, "total_tokens": c.total_tokens, "cost_usd": c.cost_usd,
        "response": c.text, "response_hash": sha256_hex(c.text) if c.text else None,
        "extraction_status": page_status(c.text),
        "status": "refused" if c.refused else "generated",
        "error": redact(c.refusal) if c.refused else None,
    }
