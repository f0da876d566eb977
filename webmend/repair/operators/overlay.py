"""A start button that does nothing: its handler is bound to an element id that does not exist.

The page error says a listener was attached to null ("Cannot read properties of null (reading
'addEventListener')"); the script binds `getElementById('startBtn')` while the button is
`id="start-button"`. The edit rewrites that reference to the one existing clickable id it
plainly meant, and only when exactly one such id is a close match: the same words once case,
separators and "btn" are set aside, else one single fuzzy match (rapidfuzz) above CLOSE.
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz

from webmend.repair.operators.base import Finding, Operator, attribute, markup_only, script_text
from webmend.schemas.repair import Diagnosis

CLOSE = 85.0  # rapidfuzz score (0-100) from which two ids count as a close match
# Chromium's wording, and the older "Cannot read property 'addEventListener' of null".
_NULL_BINDING = re.compile(r"Cannot (?:read|set) propert(?:y|ies) "
                           r"(?:of null \((?:reading|setting) '(?:addEventListener|on\w+)'\)|'(?:addEventListener|on\w+)' of null)")
_REF = re.compile(r"""getElementById\(\s*(['"])([^'"\s]+)\1\s*\)|querySelector(?:All)?\(\s*(['"])#([\w-]+)\3\s*\)""")
_TAG = re.compile(r"<([a-zA-Z][\w-]*)\b[^>]*>")
_ABBREV = {"btn": "button", "bttn": "button", "img": "image", "msg": "message", "pwd": "password"}


def words(ident: str) -> list[str]:
    """startGameBtn, start-game-button, start_game_btn -> ['start', 'game', 'button']."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", ident)
    return [_ABBREV.get(w, w) for w in re.split(r"[\s_\-.:]+", spaced.lower()) if w]


def similarity(a: str, b: str) -> float:
    wa, wb = " ".join(words(a)), " ".join(words(b))
    return max(fuzz.ratio(wa, wb), fuzz.token_set_ratio(wa, wb))


def _clickable_ids(html: str) -> list[str]:
    out = []
    for m in _TAG.finditer(markup_only(html)):
        tag, name = m.group(0), m.group(1).lower()
        ident = attribute(tag, "id")
        if not ident:
            continue
        kind = (attribute(tag, "type") or "").lower()
        if (name in ("button", "a", "summary") or (name == "input" and kind in ("button", "submit", "reset", "image"))
                or (attribute(tag, "role") or "").lower() == "button" or attribute(tag, "onclick") is not None):
            out.append(ident)
    return out


def _all_ids(html: str) -> set[str]:
    return {i for m in _TAG.finditer(markup_only(html)) if (i := attribute(m.group(0), "id"))}


def _binds(scripts: str, m: re.Match) -> bool:
    """Whether this reference gets a handler: `ref.addEventListener(`, `ref.onclick =`, or a
    variable holding it that does."""
    listener = r"\s*\??\.\s*(?:addEventListener\s*\(|on\w+\s*=)"
    if re.match(listener, scripts[m.end():]):
        return True
    before = scripts[max(0, m.start() - 120):m.start()]
    held = re.search(r"(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:document\s*\.\s*)?$", before)
    return bool(held and re.search(rf"(?<![\w$.]){re.escape(held.group(1))}{listener}", scripts))


def match(missing: str, candidates: list[str]) -> str | None:
    """The one candidate id `missing` plainly meant, or None."""
    same = [c for c in candidates if words(c) == words(missing)]
    if len(same) == 1:
        return same[0]
    if same:
        return None
    close = [c for c in candidates if similarity(missing, c) >= CLOSE]
    return close[0] if len(close) == 1 else None


def _detect(d: Diagnosis, html: str) -> Finding | None:
    if not any(_NULL_BINDING.search(e) for e in d.page_errors):
        return None
    scripts = script_text(html)
    refs = list(_REF.finditer(scripts))
    ids = _all_ids(html)
    referenced = {m.group(2) or m.group(4) for m in refs}
    candidates = [c for c in _clickable_ids(html) if c not in referenced]
    rebind = {}
    for m in refs:
        ident = m.group(2) or m.group(4)
        if ident in ids or ident in rebind or not _binds(scripts, m):
            continue
        # As a string or a selector (a variable named like the id does not count).
        uses = len(re.findall(rf"(?<=['\"`#]){re.escape(ident)}(?![\w-])", html))
        if uses != sum(1 for r in refs if (r.group(2) or r.group(4)) == ident):
            continue  # the id is written somewhere else too (set by script, styled): not plainly missing
        if (target := match(ident, candidates)) is not None:
            rebind[ident] = target
    if len(set(rebind.values())) != len(rebind):
        return None  # two missing ids pointing at one element: no plain reading
    return {"rebind": rebind} if rebind else None


def _rebind(html: str, f: Finding) -> str:
    for old, new in f["rebind"].items():
        o = re.escape(old)
        html = re.sub(rf"""(getElementById\(\s*(['"])){o}(\2\s*\))""", rf"\g<1>{new}\g<3>", html)
        html = re.sub(rf"""(querySelector(?:All)?\(\s*(['"])#){o}(\2\s*\))""", rf"\g<1>{new}\g<3>", html)
    return html


REBIND_START = Operator(
    "rebind_start_handler", "a button (the start button) does nothing: its handler was bound to an id no element has",
    _detect, _rebind)
