"""Reading a step's arguments as the runner and the checks it is made of read them (testcases.py,
observation_checks.py, the contract validator): regex patterns with inline flags, numbers and
points given loosely (a string number, {x, y} or [x, y])."""

from __future__ import annotations

import re


def js_regex(pattern: str) -> tuple[str, str]:
    """Split leading inline flags like (?i) off a pattern: (source, js_flags)."""
    flags = ""
    m = re.match(r"^\(\?([a-z]+)\)", pattern)
    if m:
        flags = "".join(f for f in m.group(1) if f in "ims")
        pattern = pattern[m.end():]
    return pattern, flags


def py_search(pattern: str, text: str) -> bool:
    """Case-insensitive regex search; an invalid pattern is matched literally."""
    try:
        return re.search(pattern, text, re.IGNORECASE) is not None
    except re.error:
        return pattern.lower() in text.lower()


def as_number(value, default: float) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


def as_point(value) -> tuple[float, float] | None:
    if isinstance(value, dict):
        return as_number(value.get("x"), 0), as_number(value.get("y"), 0)
    if isinstance(value, (list, tuple)) and len(value) >= 2:
        return as_number(value[0], 0), as_number(value[1], 0)
    return None
