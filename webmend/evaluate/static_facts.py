"""Facts about a page that can be read without running it.

``static_facts(html)`` parses the page with the standard library's forgiving
``html.parser`` and runs light regexes over script and style text.  The
result is a flat, JSON-serialisable dict whose keys are always present and
whose values depend only on the input (lists sorted, dict keys sorted), so
facts can be stored, diffed and compared across runs.  Bump
``STATIC_FACTS_VERSION`` whenever a definition changes.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser

from webmend.extract import MEMO_MAX_CHARS

__all__ = ["FACT_KEYS", "RESOURCE_KINDS", "SEMANTIC_TAGS", "STATIC_FACTS_VERSION", "static_facts"]

STATIC_FACTS_VERSION = 1

# Every result has exactly these keys, in this order.
FACT_KEYS = (
    "size_bytes", "line_count", "doctype", "title", "has_viewport_meta", "lang",
    "charset_declared", "semantic_tags", "element_count", "inline_style_attrs",
    "style_blocks", "stylesheet_links", "css_bytes", "script_count",
    "inline_script_bytes", "module_scripts", "has_importmap", "external_resources",
    "uses_canvas", "uses_svg", "uses_webgl", "uses_raf", "uses_timers",
    "uses_storage", "uses_event_listeners", "inline_event_handlers", "input_kinds",
    "buttons", "links", "images", "images_without_alt", "forms", "headings",
    "has_h1", "text_chars", "libraries",
)  # fmt: skip

SEMANTIC_TAGS = (
    "header", "nav", "main", "section", "article", "aside", "footer",
    "figure", "h1", "h2", "h3", "button", "label", "form",
)  # fmt: skip
RESOURCE_KINDS = ("script", "stylesheet", "img", "font", "iframe", "media", "other")

# Text inside these is not visible on the page.
_HIDDEN_TEXT_TAGS = {"script", "style", "title", "template", "noscript"}
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_BUTTON_INPUTS = {"button", "submit", "reset"}
# Script types whose content is data, not code.
_DATA_SCRIPT_TYPES = {"importmap", "application/json", "application/ld+json"}


# ---------------------------------------------------------------------------
# Collecting raw material with html.parser
# ---------------------------------------------------------------------------


@dataclass
class _Script:
    attrs: dict[str, str]
    text: str = ""


@dataclass
class _Collected:
    """Everything the parser saw; the facts are derived from this."""

    doctype: bool = False
    title: str | None = None
    html_lang: str | None = None
    tags: Counter = field(default_factory=Counter)
    elements: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    scripts: list[_Script] = field(default_factory=list)
    styles: list[str] = field(default_factory=list)
    style_attrs: list[str] = field(default_factory=list)
    handler_code: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out = _Collected()
        self._hidden_depth = 0  # inside script/style/title/...
        self._raw: _Script | list[str] | None = None  # open script or style
        self._title: list[str] | None = None

    def handle_decl(self, decl: str) -> None:
        if decl.lower().startswith("doctype"):
            self.out.doctype = True

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # Boolean attributes come as None; the first of duplicates wins, as
        # in browsers.
        values: dict[str, str] = {}
        for name, value in attrs:
            values.setdefault(name, value or "")
        self._record(tag, values)
        if tag in _HIDDEN_TEXT_TAGS:
            self._hidden_depth += 1
        if tag == "script":
            self._raw = _Script(values)
            self.out.scripts.append(self._raw)
        elif tag == "style":
            self._raw = []
            self.out.styles.append("")
        elif tag == "title" and self.out.title is None and self._title is None:
            self._title = []

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # "<script/>" and "<br/>": an element without content.
        values: dict[str, str] = {}
        for name, value in attrs:
            values.setdefault(name, value or "")
        self._record(tag, values)
        if tag == "script":
            self.out.scripts.append(_Script(values))

    def _record(self, tag: str, values: dict[str, str]) -> None:
        self.out.tags[tag] += 1
        self.out.elements.append((tag, values))
        if tag == "html" and self.out.html_lang is None and values.get("lang", "").strip():
            self.out.html_lang = values["lang"].strip()
        if "style" in values:
            self.out.style_attrs.append(values["style"])
        for name, value in values.items():
            if name.startswith("on") and len(name) > 2:
                self.out.handler_code.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN_TEXT_TAGS and self._hidden_depth:
            self._hidden_depth -= 1
        if tag in ("script", "style"):
            self._raw = None
        if tag == "title" and self._title is not None:
            self.out.title = "".join(self._title)
            self._title = None

    def handle_data(self, data: str) -> None:
        if isinstance(self._raw, _Script):
            self._raw.text += data
        elif isinstance(self._raw, list):
            self.out.styles[-1] += data
        if self._title is not None:
            self._title.append(data)
        if not self._hidden_depth:
            self.out.text.append(data)

    def finish(self) -> _Collected:
        """Flush what an unclosed <script>/<style>/<title> still holds.

        html.parser keeps the content of an unclosed script or style in
        ``rawdata`` instead of reporting it; truncated pages end that way.
        """
        self.close()
        leftover = getattr(self, "rawdata", "")
        if leftover and self._raw is not None:
            self.handle_data(leftover)
        if self._title is not None:
            self.out.title = "".join(self._title)
        return self.out


def _collect(html: str) -> _Collected:
    collector = _Collector()
    try:
        collector.feed(html)
        return collector.finish()
    except AssertionError:
        # html.parser asserts on a few malformed declarations ("<![if");
        # keep what was parsed before that point.
        return collector.out


# ---------------------------------------------------------------------------
# External resources
# ---------------------------------------------------------------------------

_SKIP_URL = re.compile(r"^(?:#|data:|blob:|javascript:|about:|mailto:|tel:)", re.IGNORECASE)
_FONT_EXT = {"woff", "woff2", "ttf", "otf", "eot"}
_IMG_EXT = {"png", "jpg", "jpeg", "gif", "svg", "webp", "avif", "ico", "bmp"}
_MEDIA_EXT = {"mp3", "mp4", "wav", "ogg", "oga", "webm", "m4a", "mov", "flac"}
_PRELOAD_AS = {
    "script": "script", "style": "stylesheet", "font": "font", "image": "img",
    "audio": "media", "video": "media", "track": "media", "document": "iframe",
}  # fmt: skip
# <link rel> values that make the browser fetch the href.
_LINK_FETCHING_RELS = {"stylesheet", "icon", "apple-touch-icon", "preload", "prefetch", "modulepreload", "manifest"}
_SRC_KINDS = {
    "script": "script", "img": "img", "iframe": "iframe", "frame": "iframe",
    "audio": "media", "video": "media", "source": "media", "track": "media",
    "embed": "other",
}  # fmt: skip

_CSS_IMPORT = re.compile(r"""@import\s+(?:url\(\s*)?["']?([^"'()\s;]+)""", re.IGNORECASE)
_CSS_URL = re.compile(r"""url\(\s*(?:"([^"]*)"|'([^']*)'|([^"')\s]*))\s*\)""", re.IGNORECASE)
# `import x from "..."`, `export ... from "..."`, `import "..."`, `import("...")`.
_JS_FROM = re.compile(r"""\bfrom\s*["']([^"'\n]+)["']""")
_JS_IMPORT = re.compile(r"""\bimport\s*\(?\s*["']([^"'\n]+)["']""")


def _usable_url(url: str) -> str | None:
    url = url.strip()
    if not url or _SKIP_URL.match(url):
        return None
    return url


def _kind_from_url(url: str) -> str:
    """Resource kind guessed from the file extension."""
    path = url.split("#", 1)[0].split("?", 1)[0].lower()
    name = path.rsplit("/", 1)[-1]
    ext = name.rsplit(".", 1)[-1] if "." in name else ""
    if ext in _FONT_EXT:
        return "font"
    if ext in _IMG_EXT:
        return "img"
    if ext in _MEDIA_EXT:
        return "media"
    if ext == "css":
        return "stylesheet"
    if ext in ("js", "mjs"):
        return "script"
    return "other"


def _link_kind(attrs: dict[str, str]) -> str | None:
    rels = set(attrs.get("rel", "").lower().split())
    if not rels & _LINK_FETCHING_RELS:
        return None  # canonical, preconnect, ...: nothing is loaded
    if "stylesheet" in rels:
        return "stylesheet"
    if rels & {"icon", "apple-touch-icon"}:
        return "img"
    if "modulepreload" in rels:
        return "script"
    if rels & {"preload", "prefetch"}:
        as_kind = _PRELOAD_AS.get(attrs.get("as", "").strip().lower())
        return as_kind or _kind_from_url(attrs.get("href", ""))
    return "other"


def _srcset_urls(srcset: str) -> list[str]:
    # "a.png 1x, b.png 2x": the URL is the first word of each candidate.
    return [part.split()[0] for part in srcset.split(",") if part.split()]


def _element_resources(tag: str, attrs: dict[str, str]) -> list[tuple[str, str]]:
    """(url, kind) pairs a single element makes the browser fetch."""
    found: list[tuple[str, str]] = []
    if tag == "link" and "href" in attrs:
        kind = _link_kind(attrs)
        if kind:
            found.append((attrs["href"], kind))
    if tag in _SRC_KINDS and "src" in attrs:
        found.append((attrs["src"], _SRC_KINDS[tag]))
    if tag == "input" and attrs.get("type", "").lower() == "image" and "src" in attrs:
        found.append((attrs["src"], "img"))
    if tag in ("img", "source") and "srcset" in attrs:
        found += [(url, "img") for url in _srcset_urls(attrs["srcset"])]
    if tag == "video" and "poster" in attrs:
        found.append((attrs["poster"], "img"))
    if tag == "object" and "data" in attrs:
        found.append((attrs["data"], "other"))
    if tag in ("use", "image"):
        href = attrs.get("href") or attrs.get("xlink:href")
        if href:
            found.append((href, _kind_from_url(href)))
    return found


def _css_resources(css: str) -> list[tuple[str, str]]:
    imports = [m.group(1) for m in _CSS_IMPORT.finditer(css)]
    found = [(url, "stylesheet") for url in imports]
    for match in _CSS_URL.finditer(css):
        url = next((g for g in match.groups() if g is not None), "")
        if url not in imports:  # "@import url(x)" was counted above
            found.append((url, _kind_from_url(url)))
    return found


def _importmap_specifiers(scripts: list[_Script]) -> tuple[list[str], list[str]]:
    """(keys, urls) of all import maps; invalid JSON is ignored."""
    keys: list[str] = []
    urls: list[str] = []
    for script in scripts:
        if script.attrs.get("type", "").strip().lower() != "importmap":
            continue
        try:
            data = json.loads(script.text)
        except ValueError:
            continue
        maps = [data.get("imports")] if isinstance(data, dict) else []
        scopes = data.get("scopes") if isinstance(data, dict) else None
        if isinstance(scopes, dict):
            maps += list(scopes.values())
        for mapping in maps:
            if isinstance(mapping, dict):
                keys += [str(k) for k in mapping]
                urls += [v for v in mapping.values() if isinstance(v, str)]
    return keys, urls


def _js_specifiers(code: str) -> list[str]:
    return [m.group(1) for m in _JS_FROM.finditer(code)] + [
        m.group(1) for m in _JS_IMPORT.finditer(code)
    ]


def _is_fetched_specifier(spec: str) -> bool:
    # Bare specifiers ("three") resolve through the import map, whose URL
    # is recorded separately; only URLs and paths are fetched as written.
    return spec.startswith(("http://", "https://", "//", "./", "../", "/"))


def _external_resources(
    collected: _Collected, code: str, css: str, importmap_urls: list[str]
) -> list[dict[str, str]]:
    pairs: list[tuple[str, str]] = []
    for tag, attrs in collected.elements:
        pairs += _element_resources(tag, attrs)
    pairs += _css_resources(css)
    pairs += [(url, "script") for url in importmap_urls]
    pairs += [(s, "script") for s in _js_specifiers(code) if _is_fetched_specifier(s)]
    clean = {(url, kind) for url, kind in ((_usable_url(u), k) for u, k in pairs) if url}
    return [{"url": url, "kind": kind} for url, kind in sorted(clean)]


# ---------------------------------------------------------------------------
# Behaviour and libraries from code
# ---------------------------------------------------------------------------

_WEBGL = re.compile(
    r"""getContext\(\s*["'](?:webgl2?|experimental-webgl)["']|\bTHREE\b|WebGLRenderer|\bBABYLON\b|createCanvas\([^)]*\bWEBGL\b"""
)
_CANVAS_CODE = re.compile(r"""createElement\(\s*["']canvas["']|\bgetContext\(|\bcreateCanvas\(""")
_SVG_CODE = re.compile(r"""http://www\.w3\.org/2000/svg|<svg\b""")
_RAF = re.compile(r"\brequestAnimationFrame\b")
_TIMERS = re.compile(r"\b(?:setInterval|setTimeout)\b")
_STORAGE = re.compile(r"\b(?:localStorage|sessionStorage|indexedDB)\b")
_ADD_LISTENER = re.compile(r"\baddEventListener\s*\(")

# Library name -> pattern over lower-cased URLs and import specifiers.
_LIB_URL = {
    "three": re.compile(r"(?<![a-z0-9])three(?:js)?(?![a-z0-9])"),
    "chartjs": re.compile(r"(?<![a-z0-9])chart(?:\.js|\.umd|\.min|js|@)"),
    "d3": re.compile(r"(?<![a-z0-9])d3(?![a-z0-9-])"),
    "gsap": re.compile(r"(?<![a-z0-9])gsap(?![a-z0-9])"),
    "p5": re.compile(r"(?<![a-z0-9])p5(?![a-z0-9-])"),
    "anime": re.compile(r"(?<![a-z0-9])anime(?:js)?(?![a-z0-9])"),
    "plotly": re.compile(r"(?<![a-z0-9])plotly"),
    "echarts": re.compile(r"(?<![a-z0-9])echarts(?![a-z0-9])"),
    "tailwind": re.compile(r"(?<![a-z0-9])tailwind(?:css)?(?![a-z0-9])"),
    "fontawesome": re.compile(r"font-?awesome"),
    "google_fonts": re.compile(r"fonts\.(?:googleapis|gstatic)\.com"),
    "jquery": re.compile(r"(?<![a-z0-9])jquery"),
}
# Library name -> pattern over script code (globals and typical calls).
_LIB_CODE = {
    "three": re.compile(r"\bTHREE\.\w"),
    "chartjs": re.compile(r"\bnew\s+Chart\s*\("),
    "d3": re.compile(r"\bd3\.\w+\s*\("),
    "gsap": re.compile(r"\bgsap\.\w+\s*\("),
    "p5": re.compile(r"\bnew\s+p5\s*\("),
    "anime": re.compile(r"\banime(?:\s*\(\s*\{|\.timeline\b)"),
    "plotly": re.compile(r"\bPlotly\.\w+\s*\("),
    "echarts": re.compile(r"\becharts\.init\s*\("),
    "tailwind": re.compile(r"\btailwind\.config\b"),
    "jquery": re.compile(r"\bjQuery\s*[(.]|\$\(\s*(?:document|window|function)\b|\$\.(?:ajax|getJSON|each)\b"),
}


def _libraries(urls: list[str], code: str) -> list[str]:
    lowered = [url.lower() for url in urls]
    found = {name for name, pat in _LIB_URL.items() if any(pat.search(u) for u in lowered)}
    found |= {name for name, pat in _LIB_CODE.items() if pat.search(code)}
    return sorted(found)


# ---------------------------------------------------------------------------
# Assembling the facts
# ---------------------------------------------------------------------------


def _utf8_len(text: str) -> int:
    # surrogatepass: lone surrogates from broken input must not raise.
    return len(text.encode("utf-8", "surrogatepass"))


def _line_count(html: str) -> int:
    if not html:
        return 0
    return html.count("\n") + (0 if html.endswith("\n") else 1)


def _is_code_script(script: _Script) -> bool:
    return script.attrs.get("type", "").strip().lower() not in _DATA_SCRIPT_TYPES


def _meta_facts(collected: _Collected) -> dict[str, bool]:
    viewport = charset = False
    for tag, attrs in collected.elements:
        if tag != "meta":
            continue
        viewport |= attrs.get("name", "").strip().lower() == "viewport"
        charset |= "charset" in attrs
        charset |= attrs.get("http-equiv", "").strip().lower() == "content-type" and (
            "charset=" in attrs.get("content", "").lower()
        )
    return {"has_viewport_meta": viewport, "charset_declared": charset}


def _input_kinds(collected: _Collected) -> dict[str, int]:
    kinds: Counter = Counter()
    for tag, attrs in collected.elements:
        if tag == "input":
            kinds[attrs.get("type", "").strip().lower() or "text"] += 1
        elif tag in ("select", "textarea"):
            kinds[tag] += 1
    return dict(sorted(kinds.items()))


def _count_elements(collected: _Collected) -> dict[str, int]:
    tags = collected.tags
    button_inputs = sum(
        1
        for tag, attrs in collected.elements
        if tag == "input" and attrs.get("type", "").strip().lower() in _BUTTON_INPUTS
    )
    links = sum(1 for tag, attrs in collected.elements if tag == "a" and "href" in attrs)
    images_without_alt = sum(
        1 for tag, attrs in collected.elements if tag == "img" and "alt" not in attrs
    )
    return {
        "buttons": tags["button"] + button_inputs,
        "links": links,
        "images": tags["img"],
        "images_without_alt": images_without_alt,
        "forms": tags["form"],
        "headings": sum(tags[h] for h in _HEADINGS),
        "has_h1": tags["h1"] > 0,
    }


def _script_facts(collected: _Collected) -> dict[str, object]:
    types = [s.attrs.get("type", "").strip().lower() for s in collected.scripts]
    inline = [s.text for s in collected.scripts if "src" not in s.attrs]
    return {
        "script_count": len(collected.scripts),
        "inline_script_bytes": sum(_utf8_len(text) for text in inline),
        "module_scripts": types.count("module"),
        "has_importmap": "importmap" in types,
    }


def _style_facts(collected: _Collected) -> dict[str, int]:
    sheets = sum(
        1
        for tag, attrs in collected.elements
        if tag == "link" and "stylesheet" in attrs.get("rel", "").lower().split()
    )
    return {
        "inline_style_attrs": len(collected.style_attrs),
        "style_blocks": len(collected.styles),
        "stylesheet_links": sheets,
        "css_bytes": sum(_utf8_len(css) for css in collected.styles),
    }


def _behaviour_facts(collected: _Collected, code: str, libraries: list[str]) -> dict[str, object]:
    return {
        "uses_canvas": collected.tags["canvas"] > 0 or bool(_CANVAS_CODE.search(code)),
        "uses_svg": collected.tags["svg"] > 0 or bool(_SVG_CODE.search(code)),
        "uses_webgl": bool(_WEBGL.search(code)) or "three" in libraries,
        "uses_raf": bool(_RAF.search(code)),
        "uses_timers": bool(_TIMERS.search(code)),
        "uses_storage": bool(_STORAGE.search(code)),
        "uses_event_listeners": len(_ADD_LISTENER.findall(code)),
        "inline_event_handlers": len(collected.handler_code),
    }


def static_facts(html: str) -> dict:
    """Static facts of one page; see the module docstring for guarantees.

    They depend on the markup alone, so an identical page (a repair candidate seen before, an RL
    sample evaluated again) is parsed once per process; callers get their own copy."""
    if len(html) <= MEMO_MAX_CHARS:
        return copy.deepcopy(_static_facts_memo(html))
    return _static_facts(html)


@functools.lru_cache(maxsize=128)
def _static_facts_memo(html: str) -> dict:
    return _static_facts(html)


def _static_facts(html: str) -> dict:
    collected = _collect(html)
    code = "\n".join(
        [s.text for s in collected.scripts if _is_code_script(s)] + collected.handler_code
    )
    css = "\n".join(collected.styles + collected.style_attrs)
    keys, importmap_urls = _importmap_specifiers(collected.scripts)
    resources = _external_resources(collected, code, css, importmap_urls)
    libraries = _libraries(
        [r["url"] for r in resources] + keys + _js_specifiers(code), code
    )
    title = (collected.title or "").strip() or None
    facts: dict[str, object] = {
        "size_bytes": _utf8_len(html),
        "line_count": _line_count(html),
        "doctype": collected.doctype,
        "title": title,
        "lang": collected.html_lang,
        "semantic_tags": {tag: collected.tags[tag] for tag in SEMANTIC_TAGS},
        "element_count": sum(collected.tags.values()),
        "external_resources": resources,
        "input_kinds": _input_kinds(collected),
        "text_chars": len(" ".join("".join(collected.text).split())),
        "libraries": libraries,
    }
    facts.update(_meta_facts(collected))
    facts.update(_style_facts(collected))
    facts.update(_script_facts(collected))
    facts.update(_behaviour_facts(collected, code, libraries))
    facts.update(_count_elements(collected))
    return {key: facts[key] for key in FACT_KEYS}
