"""WebLoop's Critic and Refiner prompts, and the parser of a critique's verdicts (webloop.txt 3.1).

The Critic sees the task, its requirements and one imperfect page, never execution results, and
answers per requirement; the Refiner sees the task, the page and one critique and rewrites the page."""

from __future__ import annotations

import json

CRITIC_INSTRUCTIONS = (
    "Review the HTML page below against each requirement of the task. Do not run it; read the code. "
    'Answer with one JSON object: {"verdicts": {"REQUIREMENT_ID": "satisfied" or "violated", ...}, '
    '"fixes": ["what to change, one item per violated requirement"]}. Give a verdict for every requirement.'
)
REFINER_INSTRUCTIONS = (
    "Rewrite the page so that it meets every requirement, acting on the review below. Answer with the "
    "complete revised HTML document only."
)
_SATISFIED = {"satisfied", "pass", "passed", "yes", "true", "met", "1"}
_VIOLATED = {"violated", "fail", "failed", "no", "false", "unmet", "0"}


def critic_messages(system: str, task_prompt: str, requirements: list[dict], page: str) -> list[dict]:
    reqs = "\n".join(f"- {r['id']} ({r['kind']}): {r['text']}" for r in requirements)
    user = f"{CRITIC_INSTRUCTIONS}\n\nTask:\n{task_prompt}\n\nRequirements:\n{reqs}\n\nPage:\n{page}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def refiner_messages(system: str, task_prompt: str, page: str, critique: str) -> list[dict]:
    user = f"{REFINER_INSTRUCTIONS}\n\nTask:\n{task_prompt}\n\nPage:\n{page}\n\nReview:\n{critique}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def parse_verdicts(text: str, requirement_ids: list[str]) -> dict[str, int] | None:
    """{requirement id: 1 satisfied / 0 violated} from the first JSON object with verdicts, or None
    when the critique has no usable verdict (WebLoop gives such a critique the minimum reward).
    Verdicts for ids the task does not have are ignored."""
    decoder = json.JSONDecoder()
    known = set(requirement_ids)
    for start in (i for i, ch in enumerate(text) if ch == "{"):
        try:
            obj, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            continue
        verdicts = obj.get("verdicts") if isinstance(obj, dict) else None
        if not isinstance(verdicts, dict):
            continue
        out = {}
        for rid, value in verdicts.items():
            word = str(value).strip().lower()
            if rid in known and (word in _SATISFIED or word in _VIOLATED):
                out[rid] = 1 if word in _SATISFIED else 0
        return out or None
    return None
