"""Rewrite raw posts into direct, self-contained single-file HTML requests (WebCatalyst 4.1).

The LLM is a dependency handed in as `complete(messages) -> str`. The rewrite keeps the user's
intent and concrete details and drops the chatter; the caller keeps the original beside it. A post
that is no request for a page comes back as the sentinel and is rejected as `not_a_web_task`.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Callable

log = logging.getLogger(__name__)

Complete = Callable[[list[dict]], str]
NOT_A_WEB_TASK = "NOT_A_WEB_TASK"

SYSTEM = (
    "You turn forum posts and short notes into one direct request for a single self-contained HTML file "
    "(HTML, CSS and JavaScript in one document; CDN libraries allowed; no server, no build step). "
    "Keep every concrete detail the author gives (features, controls, data, style, libraries, numbers) and "
    "the author's intent; drop greetings, backstory, thanks and questions to other readers. Never add "
    "real names, contact details, credentials or private URLs. Write it as an instruction addressed to a "
    "developer, in English, in at most 150 words. If the text asks for nothing that a single web page "
    f"could be, answer exactly {NOT_A_WEB_TASK}. Answer with the request only."
)

_PREAMBLE = re.compile(r"^(?:here(?:'s| is) (?:the |a )?(?:rewritten |direct )?(?:request|prompt|version)[^:\n]*:|rewritten (?:request|prompt):|request:)\s*", re.I)
_REFUSAL = re.compile(r"^(?:i'?m sorry|i can(?:no|')t|i cannot|i am unable|as an ai)\b", re.I)


@dataclass(frozen=True)
class Rewrite:
    prompt: str | None  # the direct request, None when there is none
    not_a_task: bool = False
    error: str | None = None


def rewrite_post(text: str, complete: Complete, *, min_chars: int = 20) -> Rewrite:
    try:
        answer = complete([{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}])
    except Exception as exc:  # the client already retried transient failures; this one is final
        log.warning("rewrite failed: %s", type(exc).__name__)
        return Rewrite(None, error=f"LLM call failed: {type(exc).__name__}: {exc}"[:300])
    return parse_rewrite(answer, min_chars)


def parse_rewrite(answer: str | None, min_chars: int = 20) -> Rewrite:
    text = _clean(answer or "")
    if text.strip(" .").upper() == NOT_A_WEB_TASK:
        return Rewrite(None, not_a_task=True)
    if not text:
        return Rewrite(None, error="empty rewrite")
    if _REFUSAL.match(text):
        return Rewrite(None, error="the model refused to rewrite")
    if re.search(r"<(?:!doctype|html|body|script)\b", text, re.I):
        return Rewrite(None, error="the model answered with a page instead of a request")
    if len(text) < min_chars:
        return Rewrite(None, error=f"rewrite shorter than {min_chars} characters")
    return Rewrite(text)


def _clean(answer: str) -> str:
    text = _PREAMBLE.sub("", answer.strip()).strip()
    fenced = re.fullmatch(r"```[\w-]*\n?(.*?)\n?```", text, re.S)
    if fenced:
        text = _PREAMBLE.sub("", fenced.group(1).strip()).strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1].strip()
    return text
