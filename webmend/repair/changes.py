"""What a candidate changed against its checkpoint, as a short summary a model can read.

The summary names how many lines were added and removed and, for up to MAX_HUNKS places, the line
number and the first line taken out and put in there; a rewrite is named as one. difflib (stdlib)
does the matching, in bounded time for a hostile candidate (autojunk, and counts alone past
MAX_LINES).
"""

from __future__ import annotations

import difflib
from collections import Counter

MAX_HUNKS = 4
LINE_CHARS = 90
REWRITE_SHARE = 0.6  # more of the page than this differs: a rewrite, hunks say nothing useful
MAX_LINES = 20_000  # a longer page (hostile, or minified into lines) is summarised by counts alone


def diff_summary(before: str, after: str) -> str:
    a, b = before.splitlines(), after.splitlines()
    if max(len(a), len(b)) > MAX_LINES:
        return _counts_only(a, b)
    # autojunk: lines that fill more than 1% of a long page (blank lines, "}") do not anchor matches;
    # without it a candidate of many repeated lines takes quadratic time (2,000 lines: 9 s).
    ops = [op for op in difflib.SequenceMatcher(None, a, b).get_opcodes() if op[0] != "equal"]
    if not ops:
        return "no line changed (whitespace or line endings only)" if before != after else "nothing changed"
    added = sum(j2 - j1 for _, _, _, j1, j2 in ops)
    removed = sum(i2 - i1 for _, i1, i2, _, _ in ops)
    head = f"+{added}/-{removed} lines in {len(ops)} place{'s' if len(ops) > 1 else ''}"
    if max(added, removed) > REWRITE_SHARE * max(len(a), 1):
        return f"a rewrite: {head} (the page had {len(a)} lines, now {len(b)})"
    places = [_hunk(a, b, op) for op in ops[:MAX_HUNKS]]
    more = f"; {len(ops) - MAX_HUNKS} more places" if len(ops) > MAX_HUNKS else ""
    return f"{head}: " + "; ".join(places) + more


def _counts_only(a: list[str], b: list[str]) -> str:
    """Lines added and removed as multisets: bounded time whatever the pages hold."""
    old, new = Counter(a), Counter(b)
    return (f"+{sum((new - old).values())}/-{sum((old - new).values())} lines (not placed: the pages have "
            f"{len(a)} and {len(b)} lines)")


def _hunk(a: list[str], b: list[str], op: tuple) -> str:
    tag, i1, i2, j1, j2 = op
    if tag == "insert":  # nothing taken out: say where it went in
        where = f"after line {i1} {_line(a[i1 - 1])}" if i1 > 0 else "at the top"
        return f"{where}: + {_line(b[j1])}{_more(j2 - j1)}"
    bits = [f"line {i1 + 1}: - {_line(a[i1])}{_more(i2 - i1)}"]
    if tag == "replace":
        bits.append(f"+ {_line(b[j1])}{_more(j2 - j1)}")
    return " ".join(bits)


def _more(n: int) -> str:
    return f" (+{n - 1} more lines)" if n > 1 else ""


def _line(text: str) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= LINE_CHARS else text[:LINE_CHARS] + "…")
