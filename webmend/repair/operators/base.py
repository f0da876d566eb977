"""What a deterministic repair operator is: a named defect, a detector over D(h) and the page, an edit.

An operator fixes what a user would call a defect (a page that cannot be zoomed on a phone, a game
whose canvas never takes the keyboard), never a scoring rule. `detect` returns what it found (a
small dict the edit and the record use) or None; `apply` returns the edited page. Both are pure
and deterministic: same page, same finding, same edit. After the candidate is evaluated again,
`detect` on the new diagnosis must come back None: that is how the loop verifies the fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from webmend.schemas.repair import Diagnosis

Finding = dict


@dataclass(frozen=True)
class Operator:
    name: str
    defect: str  # one line, in a user's words
    detect: Callable[[Diagnosis, str], Finding | None]
    apply: Callable[[str, Finding], str]


_HEAD_OPEN = re.compile(r"<head\b[^>]*>", re.I)
_HTML_OPEN = re.compile(r"<html\b[^>]*>", re.I)
_DOCTYPE = re.compile(r"<!doctype[^>]*>", re.I)


def insert_in_head(html: str, tag: str, first: bool = False) -> str:
    """Put `tag` inside <head> (right after its opening tag when `first`, else before </head>);
    a page without a head gets one after <html> (or at the very top)."""
    head = _HEAD_OPEN.search(html)
    if head and (first or not re.search(r"</head\s*>", html, re.I)):
        return html[: head.end()] + "\n" + tag + html[head.end():]
    if head:
        close = re.search(r"</head\s*>", html, re.I)
        return html[: close.start()] + tag + "\n" + html[close.start():]
    anchor = _HTML_OPEN.search(html) or _DOCTYPE.search(html)
    at = anchor.end() if anchor else 0
    return html[:at] + f"\n<head>\n{tag}\n</head>" + html[at:]


def insert_before_body_end(html: str, snippet: str) -> str:
    """Before the last </body> (or </html>, or at the end): scripts that must see the whole DOM."""
    for pattern in (r"</body\s*>", r"</html\s*>"):
        matches = list(re.finditer(pattern, html, re.I))
        if matches:
            at = matches[-1].start()
            return html[:at] + snippet + "\n" + html[at:]
    return html + "\n" + snippet


_RAW_BLOCK = re.compile(r"(<(script|style)\b[^>]*>)(.*?)(</\2\s*>)|<!--.*?-->", re.S | re.I)


def markup_only(html: str) -> str:
    """The page with script and style contents and comments blanked out (same length, so offsets
    still point into the page): tag searches then see the markup, never a string in a script."""
    def blank(m: re.Match) -> str:
        if m.group(1) is None:
            return " " * len(m.group(0))
        return m.group(1) + " " * len(m.group(3)) + m.group(4)

    return _RAW_BLOCK.sub(blank, html)


def script_text(html: str) -> str:
    """The inline scripts' source, joined (what a detector reads to see what the page does)."""
    return "\n".join(m.group(3) for m in _RAW_BLOCK.finditer(html)
                     if m.group(2) and m.group(2).lower() == "script")


def attribute(tag: str, name: str) -> str | None:
    """The value of attribute `name` in one start tag (None when absent, "" when bare)."""
    m = re.search(rf"\s{name}\s*(=\s*(\"[^\"]*\"|'[^']*'|[^\s>]+))?(?=[\s/>])", tag, re.I)
    if m is None:
        return None
    value = m.group(2) or ""
    return value[1:-1] if value[:1] in "\"'" and value else value
