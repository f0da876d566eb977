"""Game-state evidence: the page's own globals, the text it draws, and what they mean.

A snapshot flattens the page's top-level variables (window properties the page added and
`let`/`const` bindings of its scripts) to numbers and booleans one object level deep, so two
snapshots can be compared without keeping page objects alive. Reading page globals runs page
getters: every read goes through the session's guard, and an unreadable name is skipped.
"""

from __future__ import annotations

import json
import re

from webmend.browser.page_scripts import OBSERVE_KEY
from webmend.browser.session import PageSession

MAX_NAMES = 80
_IDENT = re.compile(r"^[A-Za-z_$][\w$]{0,60}$")
# Flatten one value: numbers, booleans, short strings; objects one level deep; array lengths.
_FLAT = """(v) => {
  const out = {};
  const keep = (k, x) => {
    if (typeof x === 'number' && Number.isFinite(x)) out[k] = Math.round(x * 1000) / 1000;
    else if (typeof x === 'boolean') out[k] = x;
    else if (typeof x === 'string' && x.length <= 40) out[k] = x;
  };
  if (v === null || v === undefined || typeof v === 'function') return out;
  if (typeof v !== 'object') { keep('', v); return out; }
  if (typeof Node !== 'undefined' && v instanceof Node) return out;
  if (Array.isArray(v)) { out['.length'] = v.length; return out; }
  let n = 0;
  for (const k of Object.keys(v)) {
    if (++n > 40) break;
    let x;
    try { x = v[k]; } catch (e) { continue; }
    if (Array.isArray(x)) out['.' + k + '.length'] = x.length;
    else keep('.' + k, x);
  }
  return out;
}"""

# Score-like counters, including the turn counters of card and board games. Not "attempts"
# (hence `pts` only as a word of its own), "tries" or "matches": apps count retries and search
# results under those names.
SCORE = re.compile(r"score|points?$|(?:^|_)pts$|hits$|coins?$|kills$|moves$|turns$|flips$|pairs$", re.I)
LIVES = re.compile(r"lives|life$|hp$|health", re.I)
LEVEL = re.compile(r"level|stage$|wave$", re.I)
OVER = re.compile(r"game_?over|isover|^over$|dead$|ended$|lost$|gameended", re.I)
CONSTANT = re.compile(r"[A-Z][A-Z0-9_]+")  # SCREAMING_CASE names, two characters or more
POSITION = re.compile(r"(^|\.)(x|y|pos|position|left|top|col|row|px|py|cx|cy)$", re.I)
OVER_TEXT = re.compile(r"game\s*over|you\s+(lose|lost|died|crashed)|try\s+again|play\s+again|final\s+score|time'?s\s+up", re.I)
START_PROMPT = re.compile(r"(press|hit|tap|click|touch)\b.{0,24}\b(start|play|begin|continue)|press any key|to start|start game|play now", re.I)
SCORE_TEXT = re.compile(r"\b(?:score|points|pts|hits|coins|kills)\b\s*[:=]?\s*(-?\d+)", re.I)


async def global_names(s: PageSession) -> list[str]:
    """Names the page declared at top level: added window properties and global lexical bindings."""
    added = await s.main_eval(f"window.{OBSERVE_KEY} ? window.{OBSERVE_KEY}.added() : []") or []
    lexical = (await s.guard(s.cdp.send("Runtime.globalLexicalScopeNames", {}), "globals")).get("names", [])
    names = [n for n in list(dict.fromkeys(list(lexical) + list(added))) if _IDENT.match(n)]
    return names[:MAX_NAMES]


async def snapshot(s: PageSession, names: list[str]) -> dict:
    """Flat {name[.prop]: value} of the given globals, read in the page's own world."""
    if not names:
        return {}
    reads = ";".join(
        f"try {{ for (const [k, x] of Object.entries(flat({n}))) o[{json.dumps(n)} + k] = x; }} catch (e) {{}}" for n in names
    )
    return await s.main_eval(f"(() => {{ const flat = {_FLAT}; const o = {{}}; {reads}; return o; }})()") or {}


async def drawn_text(s: PageSession, since_ms: int) -> list[str]:
    return await s.main_eval(f"window.{OBSERVE_KEY} ? window.{OBSERVE_KEY}.drawnSince({int(since_ms)}) : []") or []


def roles(flat: dict) -> dict[str, list[str]]:
    """Which state entries look like score, lives, level, game-over flags and positions."""
    out: dict[str, list[str]] = {"score": [], "lives": [], "level": [], "over": [], "position": []}
    for key, value in flat.items():
        leaf = key.rsplit(".", 1)[-1]
        if CONSTANT.fullmatch(leaf):
            continue  # a constant by convention (p5.js puts POINTS, LINES ... on window), not state
        if isinstance(value, bool):
            if OVER.search(leaf):
                out["over"].append(key)
            continue
        if not isinstance(value, (int, float)):
            continue
        if SCORE.search(leaf) and not re.search(r"high|best|max|top|hi_?score", leaf, re.I):
            out["score"].append(key)
        elif LIVES.search(leaf):
            out["lives"].append(key)
        elif LEVEL.search(leaf):
            out["level"].append(key)
        elif POSITION.search(key):
            out["position"].append(key)
    return out


def changed_keys(before: dict, after: dict, keys: list[str]) -> list[str]:
    return [k for k in keys if k in before and k in after and before[k] != after[k]]


def text_score(text: str) -> int | None:
    m = SCORE_TEXT.search(text or "")
    return int(m.group(1)) if m else None


def says_game_over(texts: list[str]) -> bool:
    return any(OVER_TEXT.search(t or "") for t in texts)


def steered(s0: dict, s1: dict, s2: dict) -> bool:
    """Did the window s1 -> s2 (with an input) move the state differently from s0 -> s1 (without)?"""
    for k, v2 in s2.items():
        if k not in s0 or k not in s1:
            continue
        v0, v1 = s0[k], s1[k]
        if isinstance(v2, bool) or isinstance(v2, str):
            if v2 != v1 and v1 == v0:
                return True
        elif isinstance(v2, (int, float)) and isinstance(v1, (int, float)) and isinstance(v0, (int, float)):
            if abs((v2 - v1) - (v1 - v0)) > 1e-6:
                return True
    return False
