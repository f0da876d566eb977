"""What a candidate changed against its checkpoint, as a short summary a model can read.

The summary names how many lines were added and removed and, for up to MAX_HUNKS places, the line
number and the first line taken out and put in there; a rewrite is named as one. difflib (stdlib)
does the matching: the pages are a few hundred lines, no faster diff is needed.
"""

from __future__ import annotations

import difflib

MAX_HUNKS = 4
LINE_CHARS = 90
REWRITE_SHARE = 0.6  # more of the page than this differs: a rewrite, hunks say nothing useful


def diff_summary(before: str, after: str) -> str:
    a, b = before.splitlines(), after.splitlines()
    ops = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
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
