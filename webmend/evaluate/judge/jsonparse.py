"""One JSON object out of a model's answer: fenced or bare, with prose around it, or cut short.

`extract_json(text) -> (obj, repaired)` raises `JSONExtractError` when no object can be read.
Order: a ```json fenced block, else the first object that decodes from a '{' (prose after it is
ignored), else a repair of a truncated object: cut back to the last complete value and close the
open brackets. A repaired object is marked so, and still has to pass the answer's schema: a cut
that loses a required field is rejected there, not guessed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)(?:```|$)", re.DOTALL)
_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL | re.IGNORECASE)
_CLOSERS = {"{": "}", "[": "]"}
_MAX_REPAIR_TRIES = 200
_decoder = json.JSONDecoder()


class JSONExtractError(ValueError):
    pass


def extract_json(text: str) -> tuple[dict, bool]:
    """The answer's JSON object and whether it had to be repaired; see the module docstring."""
    text = _THINK.sub("", text or "")
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    truncated = []
    for chunk in candidates:
        found = _first_object(chunk)
        if isinstance(found, dict):
            return found, False
        if found is not None:
            truncated.append(chunk[found:])
    for chunk in truncated:
        obj = _repair(chunk)
        if obj is not None:
            return obj, True
    raise JSONExtractError("no JSON object in the answer")


def _first_object(text: str) -> dict | int | None:
    """The first object that decodes, or the start of one the text ends inside (cut short)."""
    for match in re.finditer(r"\{", text):
        try:
            obj, _ = _decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            if _scan(text[match.start():]).open:
                return match.start()  # its brackets never close: truncated, not prose
            continue
        if isinstance(obj, dict):
            return obj
    return None


@dataclass
class _Scan:
    stack: list[str] = field(default_factory=list)
    cuts: list[tuple[int, str]] = field(default_factory=list)  # (end of prefix, closers there)
    in_string: bool = False
    escaped: bool = False
    broken: bool = False  # brackets that do not match

    @property
    def open(self) -> bool:
        return not self.broken and bool(self.stack or self.in_string)


def _scan(text: str) -> _Scan:
    """Bracket structure of the object at the start of text, up to where it closes."""
    st = _Scan()
    for i, ch in enumerate(text):
        if st.in_string:
            if st.escaped:
                st.escaped = False
            elif ch == "\\":
                st.escaped = True
            elif ch == '"':
                st.in_string = False
                st.cuts.append((i + 1, _closing(st.stack)))
            continue
        if ch == '"':
            st.in_string = True
        elif ch in _CLOSERS:
            st.stack.append(ch)
            st.cuts.append((i + 1, _closing(st.stack)))  # an empty container
        elif ch in "}]":
            if not st.stack or _CLOSERS[st.stack.pop()] != ch:
                st.broken = True
                return st
            st.cuts.append((i + 1, _closing(st.stack)))
            if not st.stack:
                return st
        elif ch == ",":
            st.cuts.append((i, _closing(st.stack)))
        elif (ch.isdigit() or ch in "el") and i + 1 < len(text):
            # After a digit or the end of true/false/null; never at the very end of the text,
            # where a number may have been cut ("15" read as "1").
            st.cuts.append((i + 1, _closing(st.stack)))
    return st


def _repair(text: str) -> dict | None:
    """A truncated object closed at the latest point where that gives valid JSON."""
    st = _scan(text)
    tries = []
    if st.in_string:  # cut inside a string: keep the partial text
        body = text[:-1] if st.escaped else text
        tries.append(body + '"' + _closing(st.stack))
    tries += [text[:end] + closing for end, closing in reversed(st.cuts[-_MAX_REPAIR_TRIES:])]
    for candidate in tries:
        try:
            obj = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            return obj
    return None


def _closing(stack: list[str]) -> str:
    return "".join(_CLOSERS[c] for c in reversed(stack))
