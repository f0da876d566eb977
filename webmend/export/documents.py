"""What a training row holds: a complete HTML document, and a conversation LlamaFactory keeps.

The completeness rule is two regular expressions, one on the start and one on the end of the page,
written in the subset Python's `re` and DuckDB's RE2 read alike: selection runs them in DuckDB
over stored pages, the gate runs them again through Great Expectations on the written rows.
"""

from __future__ import annotations


HEAD_CHARS = 1024  # the start a document must open in (after whitespace and comments)
TAIL_CHARS = 64
# Optional comments and doctype, then the <html> element.
DOCUMENT_HEAD = r"(?i)^\s*(?:<!--[^>]*-->\s*)*(?:<!doctype\s+html[^>]*>\s*)?(?:<!--[^>]*-->\s*)*<html[\s>]"
DOCUMENT_TAIL = r"(?i)</html>\s*$"

# A conversation as a comma-joined role list: optional system, then user/assistant pairs ending on
# the assistant. LlamaFactory's sharegpt converter drops any other row with a warning only.
SFT_ROLES = r"^(?:system,)?(?:user,assistant,)*user,assistant$"
PROMPT_ROLES = r"^(?:system,)?(?:user,assistant,)*user$"  # preference rows: the prompt ends on the user


def messages(system: str, prompt: str, html: str | None = None) -> list[dict]:
    out = [{"role": "system", "content": system}] if system else []
    out.append({"role": "user", "content": prompt})
    if html is not None:
        out.append({"role": "assistant", "content": html})
    return out


def roles(conversation: list[dict]) -> str:
    return ",".join(m["role"] for m in conversation)
