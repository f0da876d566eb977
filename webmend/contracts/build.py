"""Building a contract with a model: task -> requirements -> initial contract -> states and
transitions -> test items, then structural validation; an invalid contract is sent back once with
its problems, then kept or rejected with its reasons (docs/icg-format.md "Building").

The model is a dependency: `ask(messages) -> text` (ContractModel wraps an LLMClient with a cache
keyed by the input, so a rerun makes no call). Retries of 429/5xx happen in the client; an answer
that is not JSON is asked again once, then the task is rejected.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Callable

from webmend.contracts.prompts import STAGES, fix_messages, stage_messages
from webmend.contracts.validate import validate_contract
from webmend.evaluate.judge.jsonparse import JSONExtractError, extract_json
from webmend.llm.cache import ResponseCache, cache_key
from webmend.llm.client import LLMClient, LLMError
from webmend.llm.limits import SpendCapReached
from webmend.schemas.contract import CONTRACT_VERSION

log = logging.getLogger(__name__)

# 16,000 answer tokens: a real task's transitions with their checks did not fit in 8,000 (issue 36).
BUILD_PARAMS = {"temperature": 0.0, "seed": 0, "max_tokens": 16000}
_STAGE_KEYS = {"requirements": ("requirements",), "initial_contract": ("initial_contract",),
               "graph": ("states", "transitions"), "test_items": ("test_items",)}
# Contract-level JavaScript any stage may give: added after what earlier stages gave (see _joined).
_SHARED_KEYS = ("helpers", "init_script")


class ContractModel:
    """ask(messages) -> text through one client, cached by (model, params, messages)."""

    def __init__(self, client: LLMClient, cache: ResponseCache | None = None, params: dict | None = None):
        self.client, self.cache, self.calls = client, cache, 0
        self.params = params or BUILD_PARAMS
        self._lock = threading.Lock()  # tasks may be built on several threads (--workers)

    def __call__(self, messages: list[dict]) -> str:
        key = cache_key(self.client.model, self.params, messages)
        hit = self.cache.get(key) if self.cache is not None else None
        if hit is not None:
            return hit["text"]
        completion = self.client.complete(messages, **self.params)
        with self._lock:
            self.calls += 1
        if completion.refused:
            raise LLMError("refusal", "the provider refused to write a contract")
        if self.cache is not None:
            self.cache.put(key, {"text": completion.text})
        return completion.text


@dataclass
class BuildResult:
    task_id: str
    contract: dict | None  # the kept contract, or None
    problems: list[str] = field(default_factory=list)  # why it was rejected (or what was fixed)
    sent_back: bool = False

    @property
    def kept(self) -> bool:
        return self.contract is not None


def build_contract(task: dict, ask: Callable[[list[dict]], str]) -> BuildResult:
    """task: {id, prompt, family?}. Never raises for a bad answer: it becomes the reject's reason."""
    so_far: dict = {}
    try:
        for stage in STAGES:
            so_far.update(_stage(stage, task, so_far, ask))
    except _BadAnswer as exc:
        return BuildResult(task["id"], None, [str(exc)])
    except LLMError as exc:
        return BuildResult(task["id"], None, [f"model call failed ({exc.kind}): {str(exc)[:200]}"])
    except SpendCapReached:
        return BuildResult(task["id"], None, ["not built: the run's spend cap was reached"])
    contract = _assemble(task, so_far)
    problems = [str(p) for p in validate_contract(contract)]
    if not problems:
        return BuildResult(task["id"], contract)
    log.info("contract %s: %d problems, sent back once", task["id"], len(problems))
    try:
        answer = _answer(ask(fix_messages(task, contract, problems)), "fix", ask=None)
        fixed = _assemble(task, answer.get("contract", answer) if isinstance(answer.get("contract"), dict) else answer)
    except (_BadAnswer, LLMError) as exc:
        return BuildResult(task["id"], None, [*problems, f"fix: {exc}"], sent_back=True)
    except SpendCapReached:
        return BuildResult(task["id"], None, [*problems, "fix: not asked, the run's spend cap was reached"], sent_back=True)
    remaining = [str(p) for p in validate_contract(fixed)]
    return BuildResult(task["id"], None if remaining else fixed, remaining or problems, sent_back=True)


class _BadAnswer(ValueError):
    pass


def _stage(stage: str, task: dict, so_far: dict, ask) -> dict:
    messages = stage_messages(stage, task, so_far)
    obj = _answer(ask(messages), stage, ask, messages)
    missing = [k for k in _STAGE_KEYS[stage] if k not in obj]
    if missing:
        raise _BadAnswer(f"{stage}: the answer has no {', '.join(missing)}")
    shared = {k: _joined(so_far.get(k), obj[k]) for k in _SHARED_KEYS if isinstance(obj.get(k), str) and obj[k].strip()}
    return {**{k: obj[k] for k in _STAGE_KEYS[stage]}, **shared}


def _joined(earlier: str | None, given: str) -> str:
    """A stage's helpers (or init script) after the earlier stages' ones. Models asked to repeat
    what they keep copied several KB of escaped JavaScript by hand, so a stage gives only what it
    adds; an answer that repeats the earlier text anyway is taken whole (a function defined again
    replaces the earlier one, as in any script)."""
    if not earlier or earlier.strip() in given:
        return given
    return earlier.rstrip() + "\n" + given


def _answer(text: str, stage: str, ask, messages: list[dict] | None = None) -> dict:
    """The answer's JSON object; an unreadable one is asked again once (when `ask` is given)."""
    try:
        return extract_json(text)[0]
    except JSONExtractError as exc:
        if ask is None or messages is None:
            raise _BadAnswer(f"{stage}: the answer is not JSON ({exc})") from None
        retry = [*messages, {"role": "assistant", "content": text[:2000]},
                 {"role": "user", "content": "That was not a JSON object. Answer with the JSON object only."}]
        try:
            return extract_json(ask(retry))[0]
        except JSONExtractError as again:
            raise _BadAnswer(f"{stage}: the answer is not JSON, twice ({again})") from None


def _assemble(task: dict, parts: dict) -> dict:
    return {"contract_version": CONTRACT_VERSION,
            "task": {"id": task["id"], "prompt": task["prompt"], "family": task.get("family")},
            **{k: parts[k] for k in _SHARED_KEYS if parts.get(k)},
            **{k: parts.get(k, []) for k in ("requirements", "states", "transitions", "test_items")},
            "initial_contract": parts.get("initial_contract") or {"text": "", "checks": []}}
