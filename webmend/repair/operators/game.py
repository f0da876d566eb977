"""Keyboard games: the keys must reach the game, and playing must not scroll the page away."""

from __future__ import annotations

import re

from webmend.repair.operators.base import (Finding, Operator, attribute, insert_before_body_end, markup_only,
                                           script_text)
from webmend.schemas.repair import Diagnosis

_CANVAS_TAG = re.compile(r"<canvas\b[^>]*>", re.I)
_PAGE_TARGETS = {"window", "document", "body"}

# -- focusable_game_canvas ---------------------------------------------------------------


def _canvas_tags(html: str) -> list[re.Match]:
    return list(_CANVAS_TAG.finditer(markup_only(html)))


def _detect_canvas(d: Diagnosis, html: str) -> Finding | None:
    where = d.game.keyboard_listeners
    listed = sorted(int(w.split()[1]) for w in where if re.fullmatch(r"canvas \d+", w))
    if not listed or _PAGE_TARGETS & set(where):
        return None  # keys heard by the page itself reach the game wherever focus is
    scripts = script_text(html)
    if re.search(r"createElement\(\s*['\"`]canvas|<canvas", scripts, re.I):
        return None  # canvases made by script: the n-th canvas of the page is not the n-th in the source
    tags = _canvas_tags(html)
    if len(tags) <= listed[-1]:
        return None
    blind = [i for i in listed if attribute(tags[i].group(0), "tabindex") is None
             and not re.search(r"\.tabIndex\s*=|setAttribute\(\s*['\"]tabindex", scripts, re.I)]
    return {"canvases": blind} if blind else None


FOCUS_SCRIPT = """<script>
/* webmend: the game canvas takes the keyboard (a click on it focuses it; so does loading the page) */
(function () {
  var all = document.querySelectorAll('canvas');
  var games = [%s].map(function (i) { return all[i]; }).filter(Boolean);
  if (!games.length) return;
  function focus(c) { if (document.activeElement !== c) c.focus({ preventScroll: true, focusVisible: false }); }
  games.forEach(function (c) {
    c.addEventListener('pointerdown', function () { focus(c); });
    c.addEventListener('click', function () { focus(c); });
  });
  function first() {
    var a = document.activeElement;
    if (!a || a === document.body || a === document.documentElement) focus(games[0]);
  }
  if (document.readyState === 'complete') first(); else window.addEventListener('load', first, { once: true });
})();
</script>"""


def _focusable(html: str, f: Finding) -> str:
    wanted = set(f["canvases"])
    out, at = [], 0
    for i, m in enumerate(_canvas_tags(html)):
        if i in wanted and attribute(html[m.start():m.end()], "tabindex") is None:
            out.append(html[at:m.start() + len("<canvas")] + ' tabindex="0"')
            at = m.start() + len("<canvas")
    html = "".join(out) + html[at:]
    return insert_before_body_end(html, FOCUS_SCRIPT % ", ".join(str(i) for i in sorted(wanted)))


FOCUSABLE_CANVAS = Operator(
    "focusable_game_canvas", "the game ignores the keyboard: its keys are heard on a canvas that can never take focus",
    _detect_canvas, _focusable)

# -- keys_dont_scroll_game ---------------------------------------------------------------

ARROWS = ("ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight")
_USES_ARROWS = re.compile(r"Arrow(Up|Down|Left|Right)|\b(keyCode|which)\b\s*(===?|==)\s*(37|38|39|40)\b"
                          r"|case\s+(37|38|39|40)\s*:|['\"](Up|Down|Left|Right)['\"]")
_USES_SPACE = re.compile(r"['\"`]Space(bar)?['\"`]|(key|case)\s*(===?|==|\()?\s*['\"] ['\"]"
                         r"|\b(keyCode|which)\b\s*(===?|==)\s*32\b|case\s+32\s*:")
_KEYISH = re.compile(r"key", re.I)
_NO_SCROLL_CSS = re.compile(r"(^|[\s,}])(html|body)\b[^{}]*\{[^}]*overflow(-y)?\s*:\s*(hidden|clip)", re.I)
_NO_SCROLL_TAG = re.compile(r"<(html|body)\b[^>]*\sstyle\s*=\s*[\"'][^\"']*overflow(-y)?\s*:\s*(hidden|clip)", re.I)


def _key_prevent_default(scripts: str) -> bool:
    """Whether some preventDefault in the scripts sits in key handling (the word "key" shortly
    before it: e.key, keyCode, 'keydown'); then the page already keeps its keys."""
    return any(_KEYISH.search(scripts, max(0, m.start() - 600), m.start())
               for m in re.finditer(r"preventDefault", scripts))


def _detect_scroll(d: Diagnosis, html: str) -> Finding | None:
    g = d.game
    if not g.keyboard_listeners or not g.detected or not (d.static.get("uses_canvas") or d.static.get("uses_raf")):
        return None  # a game: keys on a document (a slideshow, a form) should still scroll it
    desktop = d.layout.get("desktop") or {}
    height, view = desktop.get("page_height"), desktop.get("viewport_height")
    if not height or not view or height <= view + 8:
        return None  # nothing to scroll
    if _NO_SCROLL_TAG.search(markup_only(html)) or _NO_SCROLL_CSS.search(_style_text(html)):
        return None  # the page does not scroll for a user (the scroll height alone does not tell)
    scripts = script_text(html)
    if _key_prevent_default(scripts):
        return None
    keys = list(ARROWS) if _USES_ARROWS.search(scripts) else []
    # Preventing keydown also cancels keypress: a game that reads Space from keypress keeps it.
    if _USES_SPACE.search(scripts) and not re.search(r"keypress", scripts, re.I):
        keys.append(" ")
    return {"keys": keys, "page_height": height, "viewport_height": view} if keys else None


def _style_text(html: str) -> str:
    return "\n".join(m.group(1) for m in re.finditer(r"<style\b[^>]*>(.*?)</style\s*>", html, re.S | re.I))


NO_SCROLL_SCRIPT = """<script>
/* webmend: keys the game plays with do not scroll the page (typing in a field is left alone) */
window.addEventListener('keydown', function (e) {
  var keys = %s;
  if (keys.indexOf(e.key) < 0 || e.altKey || e.ctrlKey || e.metaKey) return;
  var t = e.target;
  if (t && t.nodeType === 1 && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
  if (e.key === ' ' && t && t.closest && t.closest('button, a[href], summary, [role="button"]')) return;
  e.preventDefault();
}, true);
</script>"""


def _no_scroll(html: str, f: Finding) -> str:
    keys = "[" + ", ".join(f"'{k}'" for k in f["keys"]) + "]"
    return insert_before_body_end(html, NO_SCROLL_SCRIPT % keys)


KEYS_DONT_SCROLL = Operator(
    "keys_dont_scroll_game", "playing with the arrow keys or Space scrolls the page away from the game",
    _detect_scroll, _no_scroll)
