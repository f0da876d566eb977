"""The exclusion policy as a question the configured classifier model also answers.

Rules keyed to wording miss paraphrases, so with a classifier model the intake also asks it, once
per prompt, whether the request needs the real thing (a real login, real money, a private system,
secrets, real people's data) rather than a demo of it. The rules stay the floor: a rule hit
excludes without asking (the text never leaves, and no answer could undo it); the model can only
add exclusions.

An answer that cannot be used (not the strict JSON object, an unknown rule, a refusal, a call that
failed after the client's own retries) never crashes the run and never counts as "allow": the
prompt keeps the rules' verdict and the problem is recorded (the run report lists such prompts).
Nothing is retried here: the same messages get the same answer, and the cache keeps it.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from typing import Callable

from webmend.intake.policy import POLICY_RULES, PolicyVerdict, check_policy, redact

log = logging.getLogger(__name__)

Complete = Callable[[list[dict]], str]

# The model judges the request's text; whether the source allows collection is not in the text.
MODEL_RULES = {rule: what for rule, what in POLICY_RULES.items() if rule != "source_disallowed"}

SYSTEM = (
    "You screen requests for single self-contained HTML pages before they enter a training corpus. "
    "Exclude a request only when the page would need the real thing: real credentials checked against a "
    "real service or a real account login, real money moved or real cards charged, a private or internal "
    "host, database or network, secrets (keys, tokens, passwords) or collecting other people's "
    "credentials, or real people's personal data. A demo, mockup, simulation, sample data or an "
    "explanation of any of these is allowed. Rules: "
    + "; ".join(f"{rule}: {what}" for rule, what in MODEL_RULES.items())
    + '. Answer with one JSON object and nothing else: {"exclude": true|false, "rule": one of the rule '
    'names or null, "reason": a few words}. rule is null exactly when exclude is false.'
)
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)


@dataclass(frozen=True)
class ModelAnswer:
    verdict: PolicyVerdict | None  # the model's exclusion; None when it allows or could not be used
    problem: str | None = None  # why the answer was unusable; None for a usable answer


@dataclass(frozen=True)
class PolicyDecision:
    verdict: PolicyVerdict | None
    asked: bool = False  # the model was asked (no rule hit and a model given)
    problem: str | None = None  # the model's answer was unusable: the rules' verdict stands


def parse_policy_answer(answer: str | None) -> ModelAnswer:
    text = (answer or "").strip()
    fenced = _FENCE.match(text)
    try:
        obj = json.loads(fenced.group(1) if fenced else text)
    except json.JSONDecodeError:
        return ModelAnswer(None, "the model's answer is not a JSON object")
    if not isinstance(obj, dict) or not isinstance(obj.get("exclude"), bool):
        return ModelAnswer(None, 'the model\'s answer has no boolean "exclude"')
    if not obj["exclude"]:
        return ModelAnswer(None)
    rule = obj.get("rule")
    if rule not in MODEL_RULES:
        return ModelAnswer(None, f"the model excluded under an unknown rule {str(rule)[:40]!r}")
    # The reason is stored in the reject detail: redact it like any stored text.
    reason = redact(str(obj.get("reason") or MODEL_RULES[rule]))[:200]
    return ModelAnswer(PolicyVerdict(rule, reason, source="model"))


def ask_policy_model(text: str, complete: Complete) -> ModelAnswer:
    from webmend.llm.complete import RefusedError

    try:
        answer = complete([{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}])
    except RefusedError:
        return _unusable("the model refused to answer")
    except Exception as exc:  # the client already retried transient failures; this one is final
        return _unusable(f"the policy call failed: {type(exc).__name__}")
    parsed = parse_policy_answer(answer)
    if parsed.problem:
        log.warning("policy model: %s; the rules' verdict stands", parsed.problem)
    return parsed


def _unusable(problem: str) -> ModelAnswer:
    log.warning("policy model: %s; the rules' verdict stands", problem)
    return ModelAnswer(None, problem)


def decide(text: str, complete: Complete | None = None) -> PolicyDecision:
    """Rules first and as the floor; the model, when given, only for what the rules let through."""
    verdict = check_policy(text)
    if verdict is not None or complete is None:
        return PolicyDecision(verdict)
    answer = ask_policy_model(text, complete)
    return PolicyDecision(answer.verdict, asked=True, problem=answer.problem)
