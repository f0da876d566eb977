"""Index of the installed mirror packages and file lookup inside them.

Everything here is confined to the mirror root: paths are checked segment by
segment and again after resolving, so a request can never read outside it.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from . import semver

# Where CDN layouts (cdnjs, ajax.googleapis) keep the files npm keeps in a
# subfolder; searched in this order when a bare file name is asked for.
DIST_DIRS = ("", "dist/", "build/", "lib/", "umd/", "dist/umd/", "bundles/", "dist/bundles/")

# Old file names that moved between majors; a page asking the old name gets
# the file that plays the same role (classic script, same global).
FILE_RENAMES = {
    "chart.js": {"chart.min.js": "chart.umd.js", "chart.umd.min.js": "chart.umd.js",
                 "chart.bundle.min.js": "chart.umd.js", "chart.bundle.js": "chart.umd.js"},
    "gsap": {"tweenmax.min.js": "gsap.min.js", "tweenmax.js": "gsap.js", "tweenlite.min.js": "gsap.min.js",
             "timelinemax.min.js": "gsap.min.js", "timelinelite.min.js": "gsap.min.js"},
    "animejs": {"anime.min.js": "anime.umd.min.js", "anime.js": "anime.umd.js"},
    "plotly.js-dist-min": {"plotly.js": "plotly.min.js", "plotly-basic.min.js": "plotly.min.js",
                           "plotly-latest.min.js": "plotly.min.js"},
    "tone": {"tone.min.js": "Tone.js", "tone.js": "Tone.js"},
}


@dataclass(frozen=True)
class Pkg:
    name: str
    version: str
    dir: Path  # absolute, resolved

    @property
    def meta(self) -> dict:
        return _meta(self.dir)


_META_CACHE: dict[Path, dict] = {}


def _meta(d: Path) -> dict:
    m = _META_CACHE.get(d)
    if m is None:
        try:
            m = json.loads((d / "package.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            m = {}
        _META_CACHE[d] = m
    return m


def split_min(path: str) -> str | None:
    """The .min twin of a file name (a.min.js <-> a.js), or None."""
    m = re.match(r"^(.*?)(\.min)?(\.(?:m?js|css|cjs))$", path)
    if not m:
        return None
    return m.group(1) + m.group(3) if m.group(2) else m.group(1) + ".min" + m.group(3)


def clean_relpath(path: str) -> str | None:
    """Normalise a decoded in-package path; None if it tries to escape."""
    if "\x00" in path or "\\" in path:
        return None
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        return None
    return "/".join(parts)


class PackageIndex:
    def __init__(self, root: Path, manifest: dict):
        self.root = root.resolve()
        self._by_name: dict[str, dict[str, Pkg]] = {}
        self._by_dir: dict[str, Pkg] = {}
        for p in manifest.get("packages", []):
            pkg = Pkg(p["name"], p["version"], (self.root / p["dir"]).resolve())
            if not pkg.dir.is_relative_to(self.root):
                continue
            self._by_name.setdefault(p["name"], {})[p["version"]] = pkg
            self._by_dir[p["dir"]] = pkg
        self._bytes: dict[Path, bytes] = {}
        self._basenames: dict[Path, dict[str, list[str]]] = {}
        self._esm_entries: dict[tuple[Path, str], str | None] = {}

    # -- packages -------------------------------------------------------
    def names(self) -> list[str]:
        return sorted(self._by_name)

    def has(self, name: str) -> bool:
        return name in self._by_name

    def versions(self, name: str) -> list[str]:
        return list(self._by_name.get(name, {}))

    def get(self, name: str, version: str) -> Pkg | None:
        return self._by_name.get(name, {}).get(version)

    def pick(self, name: str, spec: str) -> tuple[Pkg, str | None] | None:
        versions = self.versions(name)
        if not versions:
            return None
        version, note = semver.pick(spec, versions)
        return self._by_name[name][version], note

    def others_nearest(self, pkg: Pkg) -> list[Pkg]:
        """Other installed versions of pkg's package, nearest first."""
        me = semver.parse(pkg.version)
        rest = [p for v, p in self._by_name[pkg.name].items() if v != pkg.version]
        return sorted(rest, key=lambda p: (tuple(abs(a - b) for a, b in zip(semver.parse(p.version), me)),
                                           tuple(-x for x in semver.parse(p.version))))

    def dependency(self, parent: Pkg, name: str) -> Pkg | None:
        """Resolve a bare import from parent like Node would: nested
        node_modules first, then the hoisted copy, then the best installed
        version for parent's declared range."""
        if name == parent.name:
            return parent
        nested = parent.dir / "node_modules" / name
        hoisted = self.root / "node_modules" / name
        for d in (nested, hoisted):
            rel = d.relative_to(self.root).as_posix()
            if rel in self._by_dir:
                return self._by_dir[rel]
        meta = parent.meta
        spec = ""
        for field in ("dependencies", "peerDependencies", "optionalDependencies"):
            spec = (meta.get(field) or {}).get(name, spec)
        picked = self.pick(name, spec if isinstance(spec, str) and not spec.startswith(("npm:", "file:", "http")) else "")
        return picked[0] if picked else None

    # -- files ----------------------------------------------------------
    def file(self, pkg: Pkg, relpath: str) -> Path | None:
        rel = clean_relpath(relpath)
        if rel is None or rel == "":
            return None
        path = pkg.dir / rel
        if not path.is_file():
            return None
        if not path.resolve().is_relative_to(self.root):  # symlinks must not lead out either
            return None
        return path

    def read(self, path: Path) -> bytes:
        data = self._bytes.get(path)
        if data is None:
            data = path.read_bytes()
            self._bytes[path] = data
        return data

    def find_by_basename(self, pkg: Pkg, basename: str) -> str | None:
        """Best file in pkg with this (case-insensitive) name: shallow and
        in dist-like folders first."""
        table = self._basenames.get(pkg.dir)
        if table is None:
            table = {}
            for dirpath, dirnames, filenames in os.walk(pkg.dir):
                dirnames[:] = [d for d in dirnames if d != "node_modules" and not d.startswith(".")]
                rel_dir = os.path.relpath(dirpath, pkg.dir).replace(os.sep, "/")
                for f in filenames:
                    table.setdefault(f.lower(), []).append(f if rel_dir == "." else f"{rel_dir}/{f}")
            self._basenames[pkg.dir] = table
        hits = table.get(basename.lower())
        if not hits:
            return None

        def rank(p: str):
            top = p.split("/")[0] if "/" in p else ""
            pref = ("dist", "build", "lib", "umd", "bundles", "").index(top) if top in ("dist", "build", "lib", "umd", "bundles", "") else 9
            return (p.count("/"), pref, len(p))

        return min(hits, key=rank)

    # -- package.json entry points ---------------------------------------
    def entry(self, pkg: Pkg, fields: tuple[str, ...]) -> str | None:
        """Default file of a package for a classic CDN (first field that
        names an existing file)."""
        meta = pkg.meta
        for field in fields:
            val = meta.get(field)
            if isinstance(val, str) and (found := self.complete(pkg, val)):
                return found
        return self.complete(pkg, "index.js")

    def esm_entry(self, pkg: Pkg, subpath: str = "") -> str | None:
        """File an ES-module CDN (esm.sh, +esm) serves for pkg[/subpath]."""
        key = (pkg.dir, subpath)
        if key not in self._esm_entries:  # asked once per import while rewriting
            self._esm_entries[key] = self._esm_entry(pkg, subpath)
        return self._esm_entries[key]

    def _esm_entry(self, pkg: Pkg, subpath: str) -> str | None:
        meta = pkg.meta
        exports = meta.get("exports")
        key = "./" + subpath if subpath else "."
        if exports is not None:
            target = resolve_exports(exports, key)
            if target and (found := self.complete(pkg, target)):
                return found
        if subpath:
            return self.complete(pkg, subpath)
        for field in ("module", "jsnext:main", "browser", "main"):
            val = meta.get(field)
            if isinstance(val, str) and (found := self.complete(pkg, val)):
                return found
        return self.complete(pkg, "index.js")

    def complete(self, pkg: Pkg, rel: str) -> str | None:
        """Node-style file completion: as is, +.js/.mjs/.cjs, /index.js."""
        rel = clean_relpath(rel.removeprefix("./"))
        if rel is None:
            return None
        for cand in (rel, rel + ".js", rel + ".mjs", rel + ".cjs", rel + "/index.js", rel + "/index.mjs"):
            if cand and self.file(pkg, cand):
                return cand
        return None


_CONDITIONS = ("browser", "import", "module", "default")


def _pick_condition(value):
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        for v in value:
            if (r := _pick_condition(v)) is not None:
                return r
        return None
    if isinstance(value, dict):
        for k, v in value.items():  # Node: first matching key in object order
            if k in _CONDITIONS and (r := _pick_condition(v)) is not None:
                return r
    return None


def resolve_exports(exports, key: str) -> str | None:
    """Resolve a package.json "exports" subpath (".", "./x", patterns with *)."""
    if isinstance(exports, (str, list)) or (isinstance(exports, dict) and not any(k.startswith(".") for k in exports)):
        exports = {".": exports}
    if not isinstance(exports, dict):
        return None
    if key in exports:
        return _pick_condition(exports[key])
    best = None
    for pattern, target in exports.items():
        if "*" not in pattern:
            continue
        pre, _, post = pattern.partition("*")
        if key.startswith(pre) and key.endswith(post) and len(key) >= len(pre) + len(post):
            if best is None or len(pre) > len(best[0]):
                best = (pre, post, target)
    if best:
        pre, post, target = best
        star = key[len(pre):len(key) - len(post)] if post else key[len(pre):]
        resolved = _pick_condition(target)
        return resolved.replace("*", star) if resolved else None
    return None
