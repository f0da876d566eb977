"""Layout on a phone: pictures, videos, canvases and embeds wider than the screen.

The evaluator records, per viewport, the first elements whose right edge passes the viewport
(`overflow_info.elements`, CSS paths from probes.js: `#id` or `html > body:nth-of-type(1) > ...`).
A grid or flex item grows to the width of the picture in it, and its caption with it, so the
detector resolves each path in the page's markup and accepts a container or a caption only when
a media element explains it. The edit is a zero-specificity rule (`:where`), so any rule of the
page's own wins over it; it changes nothing for an element that already fits its container.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

from webmend.repair.operators.base import Finding, Operator, insert_in_head
from webmend.schemas.repair import Diagnosis

MEDIA = ("img", "video", "canvas", "svg", "iframe")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr",
        "param", "keygen"}
# Start tags that end an open <p> (the parser's implied end tag), enough for the usual pages.
CLOSES_P = {"address", "article", "aside", "blockquote", "details", "div", "dl", "fieldset", "figcaption", "figure",
            "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "main", "nav", "ol", "p", "pre",
            "section", "table", "ul"}
FIT_MEDIA_CSS = """<style>
/* webmend: pictures, videos, canvases and embeds never get wider than their container */
:where(img, video, canvas, svg, iframe) { max-width: 100%; }
:where(img, video, canvas, svg[viewBox]) { height: auto; }
</style>"""


@dataclass
class Node:
    tag: str
    attrs: dict
    parent: "Node | None" = None
    children: list["Node"] = field(default_factory=list)

    def child(self, tag: str, nth: int) -> "Node | None":
        same = [c for c in self.children if c.tag == tag]
        return same[nth - 1] if 0 < nth <= len(same) else None

    def ancestors(self):
        n = self.parent
        while n is not None:
            yield n
            n = n.parent

    def descendants(self):
        for c in self.children:
            yield c
            yield from c.descendants()


class _Tree(HTMLParser):
    """The page's element tree from its markup, close to the browser's for static pages."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        if tag in CLOSES_P and self.cur.tag == "p":
            self.cur = self.cur.parent
        node = Node(tag, {k: v or "" for k, v in attrs}, self.cur)
        self.cur.children.append(node)
        if tag not in VOID:
            self.cur = node

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID and self.cur.tag == tag:
            self.cur = self.cur.parent

    def handle_endtag(self, tag):
        for n in [self.cur, *self.cur.ancestors()]:
            if n.tag == tag:
                self.cur = n.parent or self.root
                return


def parse_tree(html: str) -> Node:
    t = _Tree()
    try:
        t.feed(html)
        t.close()
    except AssertionError:
        pass
    return t.root


_PART = re.compile(r"^([a-z][a-z0-9-]*):nth-of-type\((\d+)\)$", re.I)


def resolve(root: Node, path: str) -> Node | None:
    """The element a probes.js CSS path names, in the markup tree (None when it is not there:
    made by script, or a structure the browser built differently)."""
    path = path.strip()
    if path.startswith("#"):
        want = re.sub(r"\\(.)", r"\1", path[1:])
        hits = [n for n in root.descendants() if n.attrs.get("id") == want]
        return hits[0] if len(hits) == 1 else None
    parts = [p.strip() for p in path.split(">")]
    if parts[:1] != ["html"]:
        return None
    node = next((c for c in root.children if c.tag == "html"), None)
    for part in parts[1:]:
        m = _PART.match(part)
        if node is None or m is None:
            return None
        tag, nth = m.group(1).lower(), int(m.group(2))
        found = node.child(tag, nth)
        if found is None and tag == "tbody" and nth == 1:
            found = node  # the browser inserts the <tbody> the markup leaves out
        node = found
    return node


def _is_media(n: Node) -> bool:
    return n.tag in MEDIA or any(a.tag in ("svg", "video") for a in n.ancestors())


def _has_media(n: Node) -> bool:
    return any(c.tag in MEDIA for c in n.descendants())


def _width(n: Node) -> float | None:
    """The width the markup gives a media element (width attribute, inline style, a viewBox), or None."""
    style = re.search(r"(?:^|;)\s*width\s*:\s*([\d.]+)px", n.attrs.get("style", ""), re.I)
    if style:
        return float(style.group(1))
    if re.fullmatch(r"\s*[\d.]+\s*(px)?\s*", n.attrs.get("width", "")):
        return float(re.sub(r"[^\d.]", "", n.attrs["width"]))
    box = n.attrs.get("viewbox", "").replace(",", " ").split()
    if n.tag == "svg" and len(box) == 4 and "width" not in n.attrs:
        try:
            return float(box[2])
        except ValueError:
            return None
    if n.tag == "canvas" and "width" not in n.attrs:
        return None  # sized by its script, most likely
    return None


def _detect(d: Diagnosis, html: str) -> Finding | None:
    mobile = d.layout.get("mobile") or {}
    paths = mobile.get("overflowing_elements") or []
    if not mobile.get("overflow") or not paths:
        return None
    root = parse_tree(html)
    nodes = [resolve(root, p) for p in paths]
    if any(n is None for n in nodes):
        return None  # an element the markup does not have: made by script, nothing to reason on
    media = [n for n in nodes if _is_media(n)]
    hosts = [n for n in nodes if not _is_media(n) and _has_media(n)]
    for n in nodes:
        if n in media or n in hosts:
            continue
        if not any(h in hosts for h in n.ancestors()):
            return None  # something else overflows too (a wide table, a fixed-width box)
    widths = [_width(n) for n in media if n.tag in MEDIA]
    limit = mobile.get("width") or 375
    if not media or (widths and all(w is not None and w <= limit for w in widths)):
        return None  # no media element is wider than the screen by itself
    kinds = sorted({n.tag if n.tag in MEDIA else next(a.tag for a in n.ancestors() if a.tag in MEDIA) for n in media})
    if "svg" in kinds and any(c.tag == "svg" and "viewbox" not in c.attrs for c in root.descendants()):
        return None  # an svg without a viewBox would be cut, not scaled
    return {"kinds": kinds, "viewport": limit, "scroll_width": mobile.get("scroll_width")}


FIT_MEDIA = Operator("fit_media_to_viewport",
                     "on a phone, pictures or canvases are wider than the screen and the page scrolls sideways",
                     _detect, lambda html, f: insert_in_head(html, FIT_MEDIA_CSS))
