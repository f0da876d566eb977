"""Measure how much of what HTML pages load from CDNs the mirror answers.

Usage: python -m webmend.cdn.report [--dir MIRROR] [--no-follow] PATH...

PATH is an .html file or a folder (searched recursively for *.html/*.htm).
Extracted: <script src>, <link rel=stylesheet|modulepreload|preload href>,
import-map targets and the module specifiers they map, static and dynamic
import specifiers in inline scripts, and @import / font url(...) in inline
CSS. Prints hit_report() as JSON.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin

from .resolver import CdnMirror, hit_report

_IMPORT = re.compile(r"(?:\bfrom\s*|\bimport\s*\(?\s*)([\"'])([^\"'\s]+)\1")
_CSS_REF = re.compile(r"@import\s+(?:url\(\s*)?([\"']?)([^\"')\s;]+)\1|url\(\s*([\"']?)([^\"')]+)\3\s*\)")
_FONTISH = re.compile(r"\.(?:css|woff2?|ttf|otf|eot)(?:[?#]|$)|fonts\.(?:googleapis|gstatic)\.com", re.I)
_LINK_RELS = {"stylesheet", "modulepreload", "preload"}


class _Extractor(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.urls: list[str] = []
        self.import_map: dict[str, str] = {}
        self.module_specs: list[str] = []
        self._in: str | None = None  # "importmap" | "script" | "style"
        self._buf: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = {k.lower(): (v or "") for k, v in attrs}
        if tag == "script":
            if a.get("src"):
                self.urls.append(a["src"].strip())
            kind = a.get("type", "").strip().lower()
            self._in = "importmap" if kind == "importmap" else "script"
        elif tag == "link" and _LINK_RELS & set(a.get("rel", "").lower().split()) and a.get("href"):
            self.urls.append(a["href"].strip())
        elif tag == "style":
            self._in = "style"
        if "style" in a and tag not in ("script", "style"):
            self._css(a["style"])
        self._buf = []

    def handle_data(self, data):
        if self._in:
            self._buf.append(data)

    def handle_endtag(self, tag):
        if tag not in ("script", "style") or not self._in:
            return
        text = "".join(self._buf)
        if self._in == "importmap":
            try:
                data = json.loads(text)
                self.import_map.update({k: v for k, v in (data.get("imports") or {}).items() if isinstance(v, str)})
                for scope in (data.get("scopes") or {}).values():
                    self.import_map.update({k: v for k, v in scope.items() if isinstance(v, str)})
            except (ValueError, AttributeError):
                pass
        elif self._in == "script":
            self.module_specs += [m.group(2) for m in _IMPORT.finditer(text)]
        else:
            self._css(text)
        self._in, self._buf = None, []

    def _css(self, text: str) -> None:
        for m in _CSS_REF.finditer(text):
            ref = m.group(2) or m.group(4)
            if ref and (m.group(2) or _FONTISH.search(ref)):
                self.urls.append(ref.strip())

    def resolved(self) -> list[str]:
        out = list(self.urls)
        for target in self.import_map.values():
            if not target.endswith("/"):  # prefix mappings are not fetched themselves
                out.append(target)
        for spec in self.module_specs:
            out.append(_apply_import_map(spec, self.import_map) or spec)
        return [u for u in dict.fromkeys(out) if re.match(r"^(?:https?:)?//", u)]


def _apply_import_map(spec: str, imports: dict[str, str]) -> str | None:
    if spec in imports:
        return imports[spec]
    prefixes = [k for k in imports if k.endswith("/") and spec.startswith(k)]
    if prefixes:
        k = max(prefixes, key=len)
        return urljoin(imports[k], spec[len(k):]) if imports[k].endswith("/") else None
    return None


def extract_urls(html: str) -> list[str]:
    """Absolute CDN-able URLs an HTML page loads (protocol-relative -> https)."""
    p = _Extractor()
    p.feed(html)
    p.close()
    return ["https:" + u if u.startswith("//") else u for u in p.resolved()]


def html_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            files += sorted(f for f in p.rglob("*") if f.suffix.lower() in (".html", ".htm") and f.is_file())
        elif p.is_file():
            files.append(p)
    return files


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m webmend.cdn.report", description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--dir", type=Path, default=None, help="mirror dir (default: installed default)")
    ap.add_argument("--no-follow", action="store_true", help="do not check URLs referenced by served CSS/modules")
    args = ap.parse_args(argv)
    mirror = CdnMirror(args.dir) if args.dir else CdnMirror.load_default()
    files = html_files(args.paths)
    urls: list[str] = []
    for f in files:
        urls += extract_urls(f.read_text(encoding="utf-8", errors="replace"))
    report = hit_report(urls, mirror=mirror, follow=not args.no_follow)
    report = {"files": len(files), "mirror_hash": mirror.mirror_hash, **report}
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
