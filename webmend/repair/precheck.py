"""Cheap checks of a candidate page before it costs a browser evaluation.

A repair candidate that came back empty, lost the document around its content, or broke the syntax
of a script that used to parse is worse than the page it replaces, and a browser would take seconds
to say so. These checks take milliseconds: Python's html.parser for the outline, and one Node
process per page to compile (never run) its inline scripts.

The script rule compares counts, not positions, since a candidate may add, drop or reorder scripts:
a candidate is rejected when more of its scripts fail to parse than the original's did. A page that
was already broken is not punished for staying broken, but a candidate must not add failures.
Whatever cannot be checked (no Node, a timeout) passes with a warning: the browser still judges it.
"""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

log = logging.getLogger(__name__)

NODE_TIMEOUT_S = 10
CHECKER = Path(__file__).with_name("js_syntax.js")
# Types a browser runs as a classic script (the HTML standard's JavaScript MIME type essences);
# an absent or empty type is classic too. Anything else (application/json, importmap,
# text/template, x-shader/...) is data the browser never executes, so it is not checked.
CLASSIC_TYPES = frozenset({
    "", "text/javascript", "application/javascript", "application/ecmascript", "application/x-ecmascript",
    "application/x-javascript", "text/ecmascript", "text/javascript1.0", "text/javascript1.1",
    "text/javascript1.2", "text/javascript1.3", "text/javascript1.4", "text/javascript1.5", "text/jscript",
    "text/livescript", "text/x-ecmascript", "text/x-javascript",
})
# Elements that may stand before the body without starting it (the body then starts implicitly at
# the first other element or visible text).
HEAD_ELEMENTS = frozenset({"html", "head", "title", "meta", "link", "style", "script", "base", "noscript", "template"})
INVISIBLE_TEXT = frozenset({"script", "style", "title", "template"})


@dataclass
class _Script:
    number: int  # 1-based among all <script> elements of the page, as a reader would count them
    module: bool
    checked: bool  # inline JavaScript: what the browser would compile from this element
    first_line: int  # page line where the script's code starts
    code: str = ""


@dataclass
class _Outline:
    has_html: bool = False
    has_body_tag: bool = False
    body_elements: int = 0
    body_text: bool = False
    scripts: list[_Script] = field(default_factory=list)

    @property
    def has_body_content(self) -> bool:
        return self.body_elements > 0 or self.body_text


class _OutlineParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.outline = _Outline()
        self._in_head = False
        self._in_body = False
        self._open_invisible: list[str] = []
        self._script: _Script | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        o = self.outline
        if tag == "html":
            o.has_html = True
        elif tag == "head":
            self._in_head = True
        elif tag == "body":
            o.has_body_tag, self._in_body, self._in_head = True, True, False
        else:
            if not self._in_head and tag not in HEAD_ELEMENTS:
                self._in_body = True
            if self._in_body:
                o.body_elements += 1
        if tag in INVISIBLE_TEXT:
            self._open_invisible.append(tag)
        if tag == "script":
            self._start_script(dict(attrs))

    def _start_script(self, attrs: dict[str, str | None]) -> None:
        kind = (attrs.get("type") or "").split(";")[0].strip().lower()
        module = kind == "module"
        line, _ = self.getpos()
        self._script = _Script(number=len(self.outline.scripts) + 1, module=module,
                               checked="src" not in attrs and (module or kind in CLASSIC_TYPES),
                               first_line=line + (self.get_starttag_text() or "").count("\n"))

    def handle_endtag(self, tag: str) -> None:
        if tag == "head":
            self._in_head = False
        if tag in INVISIBLE_TEXT and tag in self._open_invisible:
            while self._open_invisible.pop() != tag:
                pass
        if tag == "script":
            self._end_script()

    def _end_script(self) -> None:
        if self._script is not None:
            self.outline.scripts.append(self._script)
            self._script = None

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._script.code += data
        elif data.strip() and not self._open_invisible and not self._in_head:
            self._in_body = True
            self.outline.body_text = True

    def close(self) -> None:
        super().close()
        self._end_script()  # an unclosed <script> runs to the end of the page in a browser too


def _outline(html: str) -> _Outline:
    parser = _OutlineParser()
    parser.feed(html)
    parser.close()
    return parser.outline


def precheck(original: str, candidate: str) -> str | None:
    """None if `candidate` may go on to the browser, else a one-line reason to reject it."""
    if not candidate.strip():
        return "candidate is empty"
    cand = _outline(candidate)
    return _structure_lost(_outline(original), cand) or _scripts_broken(original, cand)


def _structure_lost(original: _Outline, candidate: _Outline) -> str | None:
    if not (original.has_body_tag or original.has_body_content):
        return None  # nothing to lose
    if not (candidate.has_html or candidate.has_body_tag):
        return "candidate has no <html> or <body> element"
    if not candidate.has_body_content:
        return "candidate body has neither text nor elements"
    return None


def _scripts_broken(original: str, candidate: _Outline) -> str | None:
    if not _checked(candidate.scripts):
        return None  # nothing of the candidate's can fail, whatever the original's scripts do
    # Both pages in one Node process: starting Node costs far more than compiling a page's scripts.
    found = _parse_failures(candidate.scripts, _outline(original).scripts)
    if found is None:
        return None
    failing, before = found
    if len(failing) <= len(before):
        return None
    return f"{len(failing)} script(s) fail to parse, the original had {len(before)}: {failing[0]}"


def script_parse_failures(html: str) -> list[str]:
    """One reason per inline script that does not compile, e.g. "script 2: SyntaxError: ... (line 14)".

    The script number counts every <script> of the page from 1; the line is the page's line. An
    empty list also when the check could not run (logged as a warning).
    """
    found = _parse_failures(_outline(html).scripts)
    return found[0] if found else []


def _checked(scripts: list[_Script]) -> list[_Script]:
    return [s for s in scripts if s.checked and s.code.strip()]


def _parse_failures(*pages: list[_Script]) -> list[list[str]] | None:
    """For each page's scripts, the reasons of those that fail to compile; None if Node could not say."""
    checked = [_checked(scripts) for scripts in pages]
    flat = [s for page in checked for s in page]
    if not flat:
        return [[] for _ in pages]
    results = _compile_in_node([{"code": s.code, "module": s.module} for s in flat])
    if results is None:
        return None
    failures, at = [], 0
    for page in checked:
        errors, at = results[at:at + len(page)], at + len(page)
        failures.append([_reason(s, e) for s, e in zip(page, errors) if e is not None])
    return failures


def _reason(script: _Script, error: dict) -> str:
    where = f" (line {script.first_line + error['line'] - 1})" if error.get("line") else ""
    message = " ".join(str(error.get("message", "")).split())  # one line, whatever the engine wrote
    return f"script {script.number}: {error.get('name', 'Error')}: {message}{where}"


def _compile_in_node(items: list[dict]) -> list[dict | None] | None:
    """Compile every script of a page in one Node process; None (with a warning) if that fails."""
    node = shutil.which("node")
    if node is None:
        log.warning("node not found: skipping the script syntax check")
        return None
    try:
        done = subprocess.run([node, "--no-warnings", "--experimental-vm-modules", str(CHECKER)],
                              input=json.dumps(items).encode(), capture_output=True, timeout=NODE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        log.warning("script syntax check timed out after %ss: not checked", NODE_TIMEOUT_S)
        return None
    except OSError as exc:
        log.warning("script syntax check could not start node (%s): not checked", exc)
        return None
    try:
        results = json.loads(done.stdout) if done.returncode == 0 else None
    except json.JSONDecodeError:
        results = None
    if not isinstance(results, list) or len(results) != len(items):
        log.warning("script syntax check failed (exit %s): %s", done.returncode,
                    done.stderr.decode(errors="replace").strip()[-300:])
        return None
    return results
