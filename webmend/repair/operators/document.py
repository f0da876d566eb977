"""Document-level defects: what every page needs before its content can be shown right."""

from __future__ import annotations

import html as html_lib
import re

from webmend.repair.operators.base import Finding, Operator, insert_in_head
from webmend.schemas.repair import Diagnosis

VIEWPORT_META = '<meta name="viewport" content="width=device-width, initial-scale=1">'
CHARSET_META = '<meta charset="utf-8">'


def _detect_viewport(d: Diagnosis, html: str) -> Finding | None:
    return None if d.static.get("has_viewport_meta") in (True, None) else {"missing": "viewport meta"}


def _detect_charset(d: Diagnosis, html: str) -> Finding | None:
    return None if d.static.get("charset_declared") in (True, None) else {"missing": "charset"}


def _detect_lang(d: Diagnosis, html: str) -> Finding | None:
    if d.static.get("lang"):
        return None
    text = re.sub(r"<(script|style)\b.*?</\1\s*>|<[^>]+>", " ", html, flags=re.S | re.I)
    letters = [c for c in text if c.isalpha()]
    # Only claim English when the visible text is: a wrong lang would misguide screen readers.
    if len(letters) < 20 or sum(c.isascii() for c in letters) / len(letters) < 0.97:
        return None
    return {"lang": "en"}


def _detect_title(d: Diagnosis, html: str) -> Finding | None:
    if d.static.get("title"):
        return None
    h1 = re.search(r"<h1\b[^>]*>(.*?)</h1\s*>", html, re.S | re.I)
    text = " ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", h1.group(1))).split()) if h1 else ""
    return {"title": text[:80]} if text else None  # no heading: nothing to name it by, leave it


def _set_lang(html: str, f: Finding) -> str:
    tag = re.search(r"<html\b[^>]*>", html, re.I)
    if tag is None:
        return re.sub(r"^(\s*<!doctype[^>]*>)?", lambda m: (m.group(0) or "") + f'\n<html lang="{f["lang"]}">', html,
                      count=1, flags=re.I)
    opened = tag.group(0)
    new = re.sub(r"\slang\s*=\s*(\"\"|''|(?=[\s>]))", "", opened, flags=re.I)  # an empty lang="" goes
    new = new[:5] + f' lang="{f["lang"]}"' + new[5:]
    return html[: tag.start()] + new + html[tag.end():]


def _set_title(html: str, f: Finding) -> str:
    empty = re.search(r"<title\b[^>]*>\s*</title\s*>", html, re.I)
    tag = f"<title>{html_lib.escape(f['title'])}</title>"
    if empty:
        return html[: empty.start()] + tag + html[empty.end():]
    return insert_in_head(html, tag)


VIEWPORT = Operator("add_viewport_meta", "the page is shown zoomed out on a phone (no viewport meta)",
                    _detect_viewport, lambda html, f: insert_in_head(html, VIEWPORT_META))
CHARSET = Operator("add_charset", "text may show as mojibake (no charset declared)",
                   _detect_charset, lambda html, f: insert_in_head(html, CHARSET_META, first=True))
LANG = Operator("add_lang", "screen readers cannot tell the page's language (no lang)", _detect_lang, _set_lang)
TITLE = Operator("add_title", "the tab has no title", _detect_title, _set_title)
