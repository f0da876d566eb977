"""LLM candidates: ask the model (through the shared litellm stack) and turn its answer into a page.

Patch mode answers are JSON patches applied to the checkpoint (patches.py); rewrite mode answers
are whole documents read with the evaluator's extractor. Answers are cached by input hash, so a
rerun makes no call; retries of 429/5xx/timeouts happen in the client, never here. A malformed
answer becomes a rejected attempt with its reason, not an error of the run.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from webmend.config import RepairConfig
from webmend.extract import extract_page
from webmend.llm.cache import ResponseCache, cache_key
from webmend.llm.client import LLMClient, LLMError
from webmend.repair.candidates import Candidate
from webmend.repair.changes import diff_summary
from webmend.repair.patches import PatchError, apply_patches, parse_patches
from webmend.repair.prompts import build_messages
from webmend.repair.router import mode_of

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Answer:
    text: str
    usage: dict  # prompt_tokens, completion_tokens, cost_usd, cache_hit


class RepairModel:
    """A model that answers repair prompts: one client (limits, retries, spend cap) and a cache."""

    def __init__(self, client: LLMClient, rcfg: RepairConfig, cache: ResponseCache | None = None):
        self.client, self.rcfg, self.cache = client, rcfg, cache
        self.params = {"temperature": rcfg.temperature, "max_tokens": rcfg.max_tokens, "seed": rcfg.seed}

    @property
    def name(self) -> str:
        return self.client.model

    def ask(self, messages: list[dict]) -> Answer:
        key = cache_key(self.client.model, self.params, messages)
        hit = self.cache.get(key) if self.cache is not None else None
        if hit is not None:
            return Answer(hit["text"], {**hit["usage"], "cost_usd": 0.0, "cache_hit": True})
        c = self.client.complete(messages, **self.params)  # SpendCapReached propagates: the loop stops
        usage = {"prompt_tokens": c.prompt_tokens, "completion_tokens": c.completion_tokens, "cost_usd": c.cost_usd}
        if c.refused:
            raise LLMError("refusal", "the provider refused the repair request")
        if self.cache is not None:
            self.cache.put(key, {"text": c.text, "usage": usage})
        return Answer(c.text, {**usage, "cache_hit": False})


def llm_proposer(model: RepairModel, rcfg: RepairConfig, task: str = ""):
    """propose(decision, checkpoint, diagnosis, attempts) -> one Candidate per admitted strategy.

    The strategies of a round are asked in order, each told what the earlier ones changed, so the
    second is not a copy of the first. A request identical to an earlier one is answered from the
    cache (no call; the loop drops the repeated page unevaluated)."""

    def propose(decision, checkpoint, d, attempts) -> list[Candidate]:
        out: list[Candidate] = []
        for strategy in decision.strategies:
            siblings = [f"{c.strategy}: {diff_summary(checkpoint.html, c.html)}" for c in out if c.html is not None]
            out.append(_one(model, rcfg, strategy, decision, checkpoint, d, task, attempts, siblings))
        return out

    return propose


def _one(model: RepairModel, rcfg: RepairConfig, strategy: str, decision, checkpoint, d, task: str,
         attempts, siblings: list[str]) -> Candidate:
    mode = mode_of(strategy, decision.state)
    messages = build_messages(strategy, mode, d, checkpoint.html, task, attempts, decision.game_layer,
                              rcfg.max_prompt_html_chars, siblings)

    def made(html: str | None, error: str = "", usage: dict | None = None, called: bool = True) -> Candidate:
        return Candidate(html=html, strategy=strategy, mode=mode, name=model.name, rule=decision.rule, error=error,
                         usage=usage or {}, llm_call=called)

    try:
        answer = model.ask(messages)
    except LLMError as exc:
        return made(None, f"model call failed ({exc.kind}): {str(exc)[:200]}")
    called = not answer.usage.get("cache_hit")
    html, error = _page_from(answer.text, mode, checkpoint.html, rcfg)
    return made(html, error, answer.usage, called)


def _page_from(text: str, mode: str, current: str, rcfg: RepairConfig) -> tuple[str | None, str]:
    if mode == "patch":
        try:
            patches = parse_patches(text)
            if not patches:  # the model's answer that nothing needs changing: no candidate, not a bad patch
                return None, "no change proposed (an empty patch list)"
            return apply_patches(current, patches, rcfg.fuzzy_min_ratio).html, ""
        except PatchError as exc:
            return None, f"patch rejected: {exc}"
    extraction = extract_page(text, min_chars=rcfg.evaluation.min_page_chars)
    if extraction.status != "ok":
        return None, f"rewrite rejected: {extraction.status}: {extraction.reason}"
    return extraction.html, ""
