"""Google Fonts CSS API answered from @fontsource packages.

fonts.googleapis.com/css, /css2 and /icon requests get generated @font-face
CSS (one rule per weight/style/subset with Google's unicode-range split);
its src URLs point at FONT_BASE/<package>/files/<file>, which the resolver
serves from the same package.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from .packages import Pkg, PackageIndex

FONT_BASE = "https://fonts.gstatic.com/webmend"

# Google's icon fonts come with a class that turns ligature names into glyphs.
_ICON_CLASS = """.{cls} {{
  font-family: '{family}';
  font-weight: normal;
  font-style: normal;
  font-size: 24px;
  line-height: 1;
  letter-spacing: normal;
  text-transform: none;
  display: inline-block;
  white-space: nowrap;
  word-wrap: normal;
  direction: ltr;
  -webkit-font-feature-settings: 'liga';
  font-feature-settings: 'liga';
  -webkit-font-smoothing: antialiased;
}}
"""


@dataclass
class FontsCss:
    css: str
    packages: list[str]
    notes: list[str]


def family_package(family: str) -> str:
    return "@fontsource/" + re.sub(r"[^a-z0-9]+", "-", family.lower()).strip("-")


def _parse_css2(spec: str) -> tuple[str, set[tuple[str, object]]]:
    """'Inter:ital,wght@0,400;1,700' -> ('Inter', {(style, weight|range)})."""
    family, _, axes = spec.partition(":")
    wanted: set[tuple[str, object]] = set()
    if not axes or "@" not in axes:
        return family.strip(), {("normal", 400)}
    names, _, values = axes.partition("@")
    names = [n.strip() for n in names.split(",")]
    for tup in values.split(";"):
        vals = dict(zip(names, tup.split(",")))
        ital = vals.get("ital", "0")
        styles = ["normal", "italic"] if ".." in ital else (["italic"] if ital.strip() == "1" else ["normal"])
        w = vals.get("wght", "400").strip()
        weight: object = tuple(float(x) for x in w.split("..")) if ".." in w else _num(w)
        for s in styles:
            wanted.add((s, weight))
    return family.strip(), wanted


def _num(s: str) -> int:
    try:
        return int(float(s))
    except ValueError:
        return 400


def _parse_css1(spec: str) -> tuple[str, set[tuple[str, object]]]:
    """'Roboto:300,400i,700italic' (CSS API v1) -> (family, variants)."""
    family, _, variants = spec.partition(":")
    wanted: set[tuple[str, object]] = set()
    for v in (variants.split(",") if variants else ["400"]):
        v = v.strip().lower()
        italic = v.endswith(("i", "italic"))
        core = re.sub(r"(italic|i)$", "", v)
        weight = {"": 400, "regular": 400, "bold": 700, "b": 700}.get(core, None)
        if weight is None:
            weight = _num(core) if core.isdigit() else 400
        if v in ("italic", "i"):
            weight = 400
        wanted.add(("italic" if italic else "normal", weight))
    return family.strip(), wanted


def requested_families(endpoint: str, query: dict) -> list[tuple[str, set]]:
    out = []
    for fam in query.get("family", []):
        if endpoint == "css2":
            out.append(_parse_css2(fam))
        else:  # css and icon use v1 syntax: families separated by |
            out.extend(_parse_css1(f) for f in fam.split("|") if f.strip())
    return out


def build_css(index: PackageIndex, endpoint: str, query: dict) -> FontsCss:
    display = (query.get("display") or [""])[0]
    chunks, packages, notes = [], [], []
    for family, wanted in requested_families(endpoint, query):
        picked = index.pick(family_package(family), "")
        if not picked:
            notes.append(f"font family {family!r} is not in the mirror")
            chunks.append(f"/* webmend offline mirror: no files for font family '{family}' */\n")
            continue
        pkg = picked[0]
        packages.append(f"{pkg.name}@{pkg.version}")
        css, fam_notes = _family_css(index, pkg, family, wanted, display)
        chunks.append(css)
        notes += fam_notes
    return FontsCss("".join(chunks), packages, notes)


def _family_css(index: PackageIndex, pkg: Pkg, family: str, wanted: set, display: str):
    meta = _json(index, pkg, "metadata.json")
    ranges = _json(index, pkg, "unicode.json")
    fid = meta.get("id") or pkg.name.split("/")[-1]
    weights = sorted(meta.get("weights") or [400])
    styles = meta.get("styles") or ["normal"]
    is_icon = meta.get("category") == "icons" or family.lower().startswith("material ")
    notes, faces = [], []
    for style, weight in sorted(wanted, key=str):
        if isinstance(weight, tuple):  # variable range: every static weight inside it
            chosen = [w for w in weights if weight[0] <= w <= weight[-1]] or [_nearest(weights, weight[0])]
        else:
            chosen = [weight] if weight in weights else [_nearest(weights, weight)]
            if chosen[0] != weight:
                notes.append(f"{family} weight {weight} not available; served {chosen[0]}")
        st = style if style in styles else "normal"
        if st != style:
            notes.append(f"{family} has no {style} style; served normal")
        for w in chosen:
            if (st, w, style) not in faces:
                faces.append((st, w, style))
    out = []
    for st, w, declared_style in faces:
        for subset, urange in (ranges.items() if ranges else [("latin", "")]):
            stem = f"{fid}-{subset}-{w}-{st}"
            if not index.file(pkg, f"files/{stem}.woff2"):
                continue
            src = f"url({FONT_BASE}/{pkg.name}/files/{stem}.woff2) format('woff2')"
            if index.file(pkg, f"files/{stem}.woff"):
                src += f", url({FONT_BASE}/{pkg.name}/files/{stem}.woff) format('woff')"
            out.append(f"/* {subset} */\n@font-face {{\n  font-family: '{family}';\n  font-style: {declared_style};\n"
                       f"  font-weight: {w};\n" + (f"  font-display: {display};\n" if display else "")
                       + f"  src: {src};\n" + (f"  unicode-range: {urange};\n" if urange and not is_icon else "") + "}\n")
    if is_icon:
        out.append(_ICON_CLASS.format(cls=re.sub(r"[^a-z0-9]+", "-", family.lower()).strip("-"),
                                      family=family))
    return "".join(out), notes


def _nearest(weights: list[int], w: float) -> int:
    return min(weights, key=lambda x: (abs(x - w), -x))


def _json(index: PackageIndex, pkg: Pkg, name: str) -> dict:
    path = index.file(pkg, name)
    if not path:
        return {}
    try:
        return json.loads(index.read(path))
    except ValueError:
        return {}


def gstatic_fallback(index: PackageIndex, path: str) -> tuple[Pkg, str] | None:
    """Real Google font URLs (s/<slug>/vNN/<hash>.woff2) cannot be mapped
    file by file; serve the family's latin 400 normal face instead."""
    m = re.match(r"^s/([a-z0-9]+)/", path)
    if not m:
        return None
    slug = m.group(1)
    for name in index.names():
        if name.startswith("@fontsource/") and name.split("/")[1].replace("-", "") == slug:
            pkg = index.pick(name, "")[0]
            fid = name.split("/")[1]
            ext = "woff" if path.endswith(".woff") else "woff2"
            for rel in (f"files/{fid}-latin-400-normal.{ext}", f"files/{fid}-latin-400-normal.woff2"):
                if index.file(pkg, rel):
                    return pkg, rel
    return None
