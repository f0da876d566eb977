"""Offline CDN: map a CDN URL a page requests to bytes from the local mirror.

    mirror = CdnMirror.load_default()
    served = mirror.lookup("https://unpkg.com/three@0.160.0/build/three.module.js")
    if served: route.fulfill(body=served.body, content_type=served.content_type)

Pure: no browser, no network. Results are cached per URL (pages ask for the
same few URLs thousands of times across a run).
"""

from __future__ import annotations

import logging
import posixpath
import re
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable
from urllib.parse import urljoin, urlsplit

from . import esm, fonts, urls
from .install import default_dir, read_manifest
from .packages import DIST_DIRS, FILE_RENAMES, PackageIndex, Pkg, resolve_exports, split_min

CONTENT_TYPES = {
    ".js": "application/javascript", ".mjs": "application/javascript", ".cjs": "application/javascript",
    ".css": "text/css", ".json": "application/json", ".map": "application/json",
    ".woff2": "font/woff2", ".woff": "font/woff", ".ttf": "font/ttf", ".otf": "font/otf",
    ".eot": "application/vnd.ms-fontobject", ".svg": "image/svg+xml", ".wasm": "application/wasm",
    ".png": "image/png", ".jpg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
    ".html": "text/html", ".txt": "text/plain", ".glb": "model/gltf-binary", ".gltf": "model/gltf+json",
}
_JS_EXT = (".js", ".mjs", ".cjs")
ENTRY_FIELDS = {"jsdelivr": ("jsdelivr", "browser", "main"), "unpkg": ("unpkg", "browser", "main")}
# Packages with no ES build: ESM CDNs would convert them; we serve the ESM twin.
ESM_TWINS = {"lodash": "lodash-es"}
_TAILWIND_SHIM = Path(__file__).with_name("tailwind_shim.js")
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Served:
    body: bytes
    content_type: str
    package: str           # npm package served ("" when nothing real was served)
    requested: str         # version or spec asked for, "" if none
    served: str            # version served
    path: str              # file inside the package
    substitution: str | None = None  # why this is not exactly what was asked

    def headers(self) -> dict[str, str]:
        """Response headers for route.fulfill: module scripts and web fonts
        are CORS requests, so without the allow-origin header the browser
        discards them even though they were served."""
        return {"content-type": self.content_type, "access-control-allow-origin": "*",
                "cache-control": "public, max-age=31536000, immutable"}


def content_type(path: str) -> str:
    return CONTENT_TYPES.get(posixpath.splitext(path)[1].lower(), "application/octet-stream")


class CdnMirror:
    def __init__(self, root: Path):
        self.root = Path(root)
        manifest = read_manifest(self.root)
        if manifest is None:
            raise FileNotFoundError(
                f"no CDN mirror at {self.root} (missing mirror.json); run `make setup` or "
                f"`python -m webmend.cdn.install --dir {self.root}`")
        self.mirror_hash: str = manifest["mirror_hash"]
        self.installed: list[str] = manifest.get("installed", [])
        self.index = PackageIndex(self.root, manifest)
        self._cache: dict[str, Served | None] = {}
        self._lock = threading.Lock()

    @classmethod
    def load_default(cls) -> "CdnMirror":
        return cls(default_dir())

    # -- public ------------------------------------------------------------
    def lookup(self, url: str) -> Served | None:
        key = url.split("#", 1)[0]
        try:
            return self._cache[key]
        except KeyError:
            pass
        try:
            result = self._resolve(key)
        except Exception:  # a resolver bug must not take down the route handler
            log.warning("CDN mirror failed on %s", key, exc_info=True)
            result = None
        with self._lock:
            self._cache[key] = result
        return result

    def hit_report(self, urls_: Iterable[str], follow: bool = True) -> dict:
        return hit_report(urls_, mirror=self, follow=follow)

    # -- dispatch ----------------------------------------------------------
    def _resolve(self, url: str) -> Served | None:
        req = urls.parse(url)
        if req is None:
            return None
        if req.kind == "google-css":
            return self._google_css(req)
        if req.kind == "gstatic":
            return self._gstatic(req)
        if req.kind == "tailwind-play":
            return self._tailwind_play(req)
        return self._npm(url, req)

    def _npm(self, url: str, req: urls.Request) -> Served | None:
        notes = [req.note]
        name = req.package
        if req.esm and name in ESM_TWINS and self.index.has(ESM_TWINS[name]):
            notes.append(f"{name} has no ES module build; served {ESM_TWINS[name]}")
            name = ESM_TWINS[name]
        picked = self.index.pick(name, req.spec)
        if picked is None:
            return None
        pkg, version_note = picked
        notes.append(version_note)
        find = self._find_esm if req.esm else self._find_classic
        found = find(pkg, req)
        if found is None and req.path:
            # The file may exist only in other versions (three.min.js left
            # the build in r160, examples/js in r148): nearest version that has it.
            for other in self.index.others_nearest(pkg):
                if (found := find(other, req)) is not None:
                    notes.append(f"{req.path} is not in {pkg.name}@{pkg.version}; served it from {other.version}")
                    pkg = other
                    break
        if found is None:
            return None
        file, file_note = found
        notes.append(file_note)
        path = self.index.file(pkg, file)
        if path is None:
            return None
        body = self.index.read(path)
        if req.esm and file.endswith(_JS_EXT):
            body = self._esm_body(url, req, pkg, file, body)
        note = "; ".join(n for n in notes if n) or None
        return Served(body, content_type(file), pkg.name, req.spec, pkg.version, file, note)

    # -- file finding ------------------------------------------------------
    def _find_classic(self, pkg: Pkg, req: urls.Request) -> tuple[str, str | None] | None:
        ix = self.index
        if not req.path:
            entry = ix.entry(pkg, ENTRY_FIELDS.get(req.cdn, ("browser", "main")))
            return (entry, None) if entry else None
        path = req.path
        for cand in (path, path + ".js"):  # unpkg completes missing extensions
            if ix.file(pkg, cand):
                return cand, None
        if req.search and (hit := self._search(pkg, path)):
            return hit, None  # cdnjs-style flat layout: a mapping, not a substitution
        # Package-specific renames first: for chart.js 4 the .min twin of
        # chart.js would be the ES module build, not the classic script.
        renamed = FILE_RENAMES.get(pkg.name, {}).get(posixpath.basename(path).lower())
        if renamed and (hit := ix.find_by_basename(pkg, renamed)):
            return hit, f"{posixpath.basename(path)} not in {pkg.name}@{pkg.version}; served {hit}"
        twin = split_min(path)
        if twin:
            hit = twin if ix.file(pkg, twin) else (self._search(pkg, twin) if req.search else None)
            if hit:
                return hit, f"{posixpath.basename(path)} not in package; served {hit}"
        exported = resolve_exports(pkg.meta.get("exports"), "./" + path) if pkg.meta.get("exports") else None
        if exported and (hit := ix.complete(pkg, exported)):
            return hit, f"{path} resolved through package.json exports to {hit}"
        return None

    def _search(self, pkg: Pkg, path: str) -> str | None:
        for d in DIST_DIRS:
            if self.index.file(pkg, d + path):
                return d + path
        return self.index.find_by_basename(pkg, posixpath.basename(path))

    def _find_esm(self, pkg: Pkg, req: urls.Request) -> tuple[str, str | None] | None:
        hit = self.index.esm_entry(pkg, req.path)
        if hit:
            return hit, None
        twin = split_min(req.path) if req.path else None
        if twin and (hit := self.index.esm_entry(pkg, twin)):
            return hit, f"{req.path} not in package; served {hit}"
        return None

    def _esm_body(self, url: str, req: urls.Request, pkg: Pkg, file: str, body: bytes) -> bytes:
        text = body.decode("utf-8", "replace")
        canonical = esm.canonical_url(self.index, pkg, file)
        parts = urlsplit(url)
        is_canonical = f"https://{parts.hostname}{parts.path}" == canonical and req.cdn == "esm.sh"
        if is_canonical or req.externals or req.deps:
            rw = esm.Rewriter(self.index, pkg, file, req.externals, req.deps)
            return rw.module_text(text).encode()
        return esm.stub(canonical, text).encode()

    # -- synthesized answers ---------------------------------------------
    def _google_css(self, req: urls.Request) -> Served:
        result = fonts.build_css(self.index, req.path, req.query)
        return Served(result.css.encode(), "text/css", ",".join(result.packages), "", "",
                      req.path, "; ".join(result.notes) or None)

    def _gstatic(self, req: urls.Request) -> Served | None:
        if req.path.startswith("webmend/"):
            m = re.match(r"^webmend/(@[^/]+/[^/]+|[^/@]+)/(.+)$", req.path)
            picked = self.index.pick(m.group(1), "") if m else None
            if not picked or not self.index.file(picked[0], m.group(2)):
                return None
            pkg, file, note = picked[0], m.group(2), None
        else:
            fb = fonts.gstatic_fallback(self.index, req.path)
            if not fb:
                return None
            pkg, file = fb
            note = f"Google font file {req.path} mapped to {pkg.name} {file}"
        path = self.index.file(pkg, file)
        return Served(self.index.read(path), content_type(file), pkg.name, "", pkg.version, file, note)

    def _tailwind_play(self, req: urls.Request) -> Served | None:
        picked = self.index.pick(req.package, "")
        if not picked:
            return None
        pkg = picked[0]
        file = self.index.entry(pkg, ("browser", "main"))
        if not file:
            return None
        body = _TAILWIND_SHIM.read_bytes() + b"\n" + self.index.read(self.index.file(pkg, file))
        note = (f"Tailwind Play CDN (v3) answered with @tailwindcss/browser {pkg.version}; "
                "tailwind.config theme is translated to @theme, plugins are not available")
        return Served(body, "application/javascript", pkg.name, req.query.get("v3", ""), pkg.version, file, note)


# -- hit rate ---------------------------------------------------------------
_CSS_URL = re.compile(r"url\(\s*([\"']?)([^\"')]+)\1\s*\)|@import\s+([\"'])([^\"']+)\3")


def referenced_urls(url: str, served: Served) -> list[str]:
    """URLs a served stylesheet or ES module makes the browser fetch next
    (bare module specifiers are skipped: only an import map resolves them)."""
    if served.content_type == "text/css":
        refs = [m.group(2) or m.group(4) for m in _CSS_URL.finditer(served.body.decode("utf-8", "replace"))]
    elif served.content_type == "application/javascript" and len(served.body) < 2_000_000:
        text = served.body.decode("utf-8", "replace")
        if not esm.is_esm(text):
            return []
        refs = [m.group(3) for m in esm.SPECIFIER.finditer(text)
                if re.match(r"^(?:https?:|\.{1,2}/|/)", m.group(3))]
    else:
        return []
    return [urljoin(url, r.strip()) for r in refs if r and not r.startswith(("data:", "#"))]


def hit_report(urls_: Iterable[str], mirror: CdnMirror | None = None, follow: bool = True) -> dict:
    """How many URLs the mirror answers. A hit is a Served with a real
    package; exact_hits are hits without a substitution note. With follow,
    CSS url()s and ES-module imports of served bodies are checked too
    (reported under "followed"), e.g. Font Awesome webfonts."""
    mirror = mirror or CdnMirror.load_default()
    page_urls = [u for u in urls_ if u]  # every reference counts: popular URLs weigh more
    report = _tally(mirror, page_urls)
    if follow:
        seen, queue, followed = set(page_urls), list(dict.fromkeys(page_urls)), []
        while queue:
            url = queue.pop()
            served = mirror.lookup(url)
            if served is None:
                continue
            for ref in referenced_urls(url, served):
                if ref not in seen:
                    seen.add(ref)
                    followed.append(ref)
                    queue.append(ref)
        report["followed"] = {k: v for k, v in _tally(mirror, followed).items() if k != "substitution_notes"}
    return report


def _tally(mirror: CdnMirror, urls_: list[str]) -> dict:
    """Counts are per reference; misses and notes list each URL once."""
    hits = exact = subs = 0
    misses, notes, hosts = Counter(), {}, Counter()
    for url in urls_:
        served = mirror.lookup(url)
        if served is None or not served.package:  # package "" = placeholder (e.g. unknown font)
            misses[url] += 1
            hosts[urlsplit(url).hostname or ""] += 1
        elif served.substitution:
            hits += 1
            subs += 1
            notes[url] = served.substitution
        else:
            hits += 1
            exact += 1
    total = len(urls_)
    return {"total": total, "hits": hits, "exact_hits": exact, "substitutions": subs,
            "misses": [u for u, _ in misses.most_common()],
            "hit_rate": round(hits / total, 4) if total else 1.0,
            "substitution_notes": [{"url": u, "note": n} for u, n in notes.items()],
            "misses_by_host": dict(hosts.most_common())}
