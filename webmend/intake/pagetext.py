"""What the crawler keeps from an HTML page: task texts, title, family metadata, licence, links.

Tasks are read from elements marked as task descriptions (`data-task`, `itemprop="description"`,
or a class naming a task/prompt); a page without such marks falls back to its `<article>`, then its
`<main>`. Scripts, styles, navigation, headers, footers and forms never contribute text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

from webmend.schemas.vocab import FAMILIES

_SKIP = {"script", "style", "noscript", "nav", "header", "footer", "form", "template", "svg", "button", "select"}
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
_TASK_CLASS = re.compile(r"(?:^|[\s_-])(?:task|prompt|challenge)(?:[\s_-]|$)", re.I)
_BLOCK = {"p", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6", "br", "section", "article", "tr"}


@dataclass(frozen=True)
class Task:
    text: str
    title: str | None = None
    family: str | None = None


@dataclass
class PageFacts:
    title: str | None = None
    tasks: list[Task] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    licence: str | None = None
    noai: bool = False
    login_wall: bool = False
    text_sample: str = ""  # the first visible text, only to recognise a login wall


@dataclass
class _Capture:
    tag: str
    kind: str  # "task" | "article" | "main"
    family: str | None
    depth: int = 1
    parts: list[str] = field(default_factory=list)
    link_chars: int = 0  # text inside links: an index page is mostly links, a task page is not

    def is_link_list(self) -> bool:
        total = sum(len(p.strip()) for p in self.parts)
        return total == 0 or self.link_chars > total / 2


class _PageParser(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.facts = PageFacts()
        self.captures: list[_Capture] = []  # closed captures, in document order
        self._open: list[_Capture] = []  # captures still open, outermost first
        self._skip_depth = 0
        self._in_title = False
        self._title_parts: list[str] = []
        self._sample: list[str] = []
        self._page_family: str | None = None
        self._saw_password = False
        self._link_depth = 0

    def handle_starttag(self, tag, attrs):
        a = {k: (v or "") for k, v in attrs}
        self._meta(tag, a)
        if tag == "a":
            self._link_depth += 1
            if a.get("href"):
                self.facts.links.append(a["href"])
        if tag == "input" and a.get("type", "").lower() == "password":
            self._saw_password = True
        if tag in _VOID:
            return
        if tag in _SKIP:
            self._skip_depth += 1
        if tag == "title":
            self._in_title = True
        for cap in self._open:
            if tag == cap.tag:
                cap.depth += 1
            if tag in _BLOCK:
                cap.parts.append("\n")
        kind = self._capture_kind(tag, a)
        if kind and not any(c.kind == "task" for c in self._open):
            family = a.get("data-family") or a.get("data-category")
            inherited = next((c.family for c in reversed(self._open) if c.family), None)
            self._open.append(_Capture(tag, kind, family if family in FAMILIES else inherited))

    def handle_endtag(self, tag):
        if tag == "a" and self._link_depth:
            self._link_depth -= 1
        if tag in _SKIP and self._skip_depth:
            self._skip_depth -= 1
        if tag == "title":
            self._in_title = False
        for cap in list(self._open):
            if tag == cap.tag:
                cap.depth -= 1
                if cap.depth == 0:
                    self.captures.append(cap)
                    self._open.remove(cap)

    def handle_data(self, data):
        if self._in_title:
            self._title_parts.append(data)
            return
        if self._skip_depth:
            return
        if len(self._sample) < 50:
            self._sample.append(data)
        for cap in self._open:
            cap.parts.append(data)
            if self._link_depth:
                cap.link_chars += len(data.strip())

    def _capture_kind(self, tag: str, a: dict) -> str | None:
        if "data-task" in a or a.get("itemprop") == "description" or _TASK_CLASS.search(a.get("class", "")):
            return "task"
        if tag in ("article", "main"):
            return tag
        return None

    def _meta(self, tag: str, a: dict) -> None:
        name = a.get("name", "").lower()
        if tag == "meta" and name == "robots" and "noai" in a.get("content", "").lower():
            self.facts.noai = True
        if tag == "meta" and name in ("license", "licence", "dc.rights"):
            self.facts.licence = a.get("content") or self.facts.licence
        if tag == "link" and "license" in a.get("rel", "").lower().split():
            self.facts.licence = a.get("href") or self.facts.licence
        if tag == "meta" and name in ("webmend:family", "task-family") and a.get("content") in FAMILIES:
            self._page_family = a["content"]
        if tag == "body" and a.get("data-family") in FAMILIES:
            self._page_family = a["data-family"]


def _clean(parts: list[str]) -> str:
    text = "".join(parts)
    lines = [re.sub(r"\s+", " ", line).strip() for line in text.split("\n")]
    return "\n".join(line for line in lines if line)


def parse_page(html: str) -> PageFacts:
    parser = _PageParser()
    parser.feed(html)
    parser.close()
    facts = parser.facts
    facts.title = _clean(parser._title_parts) or None
    facts.text_sample = " ".join(parser._sample)[:2000]
    tasks = [c for c in parser.captures if c.kind == "task"]
    fallback = [c for c in parser.captures if c.kind in ("article", "main") and not c.is_link_list()]
    chosen = tasks or sorted(fallback, key=lambda c: c.kind != "article")[:1]
    for c in chosen:
        text = _clean(c.parts)
        if text:
            facts.tasks.append(Task(text, None, c.family or parser._page_family))
    # A password field instead of content is a login wall; one beside real task text is site chrome.
    facts.login_wall = parser._saw_password and not facts.tasks
    return facts
