"""A document cut off before its end: what a truncated answer leaves open.

An answer that stopped at the length limit ends inside a <script> (which the browser then never
runs: a script still open at the end of the file is dropped), inside a <style> or a comment, in the
middle of a tag, or just before </body></html>. The edit closes what is open and appends the
missing end tags; it never writes page content. A script cut in the middle of a statement is left
open: closing it cannot finish it, it would only turn an inert script into a syntax error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from webmend.repair.operators.base import Finding, Operator
from webmend.schemas.repair import Diagnosis

# Elements whose content the tokenizer reads as text up to their own end tag.
RAW_TEXT = ("script", "style", "textarea", "title")
_RAW_OPEN = re.compile(r"<(script|style|textarea|title)\b[^>]*>", re.I)
_PARTIAL_TAG = re.compile(r"<[A-Za-z/!][^<>]*\Z")


@dataclass
class Tail:
    open_element: str | None = None  # a raw-text element still open at the end
    open_comment: bool = False
    partial_tag_at: int | None = None  # where a tag cut in the middle starts
    opened: bool = False  # an <html> or <body> start tag: a document, not a fragment
    body_closed: bool = False
    html_closed: bool = False


def scan(html: str) -> Tail:
    """Walk the document as the HTML tokenizer would for what matters here: comments and
    raw-text elements (whose content may hold "<" and "</html>" as text), and the end tags."""
    tail = Tail()
    pos, n = 0, len(html)
    while pos < n:
        i = html.find("<", pos)
        if i < 0:
            break
        if html.startswith("<!--", i):
            end = html.find("-->", i + 4)
            if end < 0:
                tail.open_comment = True
                return tail
            pos = end + 3
            continue
        raw = _RAW_OPEN.match(html, i)
        if raw:
            name = raw.group(1).lower()
            close = re.compile(rf"</{name}[\s/>]", re.I).search(html, raw.end())
            if close is None:
                tail.open_element = name
                return tail
            gt = html.find(">", close.start())
            pos = gt + 1 if gt >= 0 else n
            continue
        if _PARTIAL_TAG.match(html, i):
            tail.partial_tag_at = i
            return tail
        head = html[i:i + 7].lower()
        if re.match(r"</body[\s>]", head):
            tail.body_closed = True
        elif re.match(r"</html[\s>]", head):
            tail.html_closed = True
        elif re.match(r"<(html|body)[\s>]", head):
            tail.opened = True
        pos = i + 1
    return tail


def _detect(d: Diagnosis, html: str) -> Finding | None:
    t = scan(html)
    unclosed = t.opened and not t.html_closed  # a page may leave out </body> before </html>: valid HTML
    if t.open_element is None and not t.open_comment and t.partial_tag_at is None and not unclosed:
        return None  # complete; a fragment without <html>/<body> has no end tags to miss
    if t.open_element == "script" and _closing_breaks_a_script(html):
        # Cut mid-statement: closed, the script would run into a syntax error instead of staying
        # inert. Finishing the code is a model's job (feature completion), not this operator's.
        return None
    return {"open_element": t.open_element, "open_comment": t.open_comment,
            "partial_tag": t.partial_tag_at is not None, "close_body": not t.body_closed,
            "close_html": not t.html_closed, "flagged_truncated": "truncated" in d.flags}


def _closing_breaks_a_script(html: str) -> bool:
    from webmend.repair.precheck import script_parse_failures

    return len(script_parse_failures(_close(html, {}))) > len(script_parse_failures(html))


def _close(html: str, f: Finding) -> str:
    t = scan(html)  # the page as it is now (another edit may have run first)
    if t.partial_tag_at is not None:
        html = html[: t.partial_tag_at].rstrip() + "\n"
    elif not html.endswith("\n"):
        html += "\n"
    if t.open_comment:
        html += "-->\n"
    if t.open_element:
        html += f"</{t.open_element}>\n"
    t = scan(html)
    if t.opened and not t.body_closed and not t.html_closed:
        html += "</body>\n"
    if t.opened and not t.html_closed:
        html += "</html>\n"
    return html


TAIL = Operator("close_document_tail", "the page was cut off before its end (an element left open, no </html>)",
                _detect, _close)
