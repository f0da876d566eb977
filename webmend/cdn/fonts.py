"""Google Fonts CSS API answered from @fontsource packages.

fonts.googleapis.com/css, /css2 and /icon requests get generated @font-face
CSS (one rule per weight/style/subset with Google's unicode-range split);
its src URLs point at FONT_BASE/<package>/files/<file>, which the resolver
serves from the same package. A family the mirror lacks is declared under
its requested name with the files of the closest installed family
(substitute()), and the substitution is noted.
"""

from __future__ import annotations

import json
import re
import weakref
from dataclasses import dataclass

from .packages import PackageIndex, Pkg

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
    display = _css_token((query.get("display") or [""])[0])
    chunks, packages, notes = [], [], []
    for family, wanted in requested_families(endpoint, query):
        family = _clean_family(family)
        if not family:
            continue
        picked = index.pick(family_package(family), "")
        if picked:
            pkg = picked[0]
        else:
            sub = substitute(index, family)
            if sub is None:
                notes.append(f"font family {family!r} is not in the mirror")
                chunks.append(f"/* webmend offline mirror: no files for font family '{family}' */\n")
                continue
            pkg = sub.pkg
            notes.append(sub.note)
            chunks.append(f"/* webmend offline mirror: {sub.note} */\n")
        ref = f"{pkg.name}@{pkg.version}"
        if ref not in packages:
            packages.append(ref)
        css, fam_notes = _family_css(index, pkg, family, wanted, display)
        chunks.append(css)
        notes += fam_notes
    return FontsCss("".join(chunks), packages, notes)


def _clean_family(family: str) -> str:
    """A family name that is safe inside a quoted CSS string and a comment."""
    family = re.sub(r"[\x00-\x1f\x7f'\"\\{}<>;*/]", "", family)
    return re.sub(r"\s+", " ", family).strip()[:100]


def _css_token(value: str) -> str:
    return value if re.fullmatch(r"[a-z-]{1,16}", value or "") else ""


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
    file by file; serve the family's latin 400 normal face instead, or that
    of the closest installed family when the mirror lacks it."""
    m = re.match(r"^s/([a-z0-9]+)/", path)
    if not m:
        return None
    slug = m.group(1)
    ext = "woff" if path.endswith(".woff") else "woff2"
    pkgs = [index.pick(name, "")[0] for name in index.names()
            if name.startswith("@fontsource/") and name.split("/")[1].replace("-", "") == slug]
    if not pkgs and (sub := substitute(index, slug, slug=slug)):
        pkgs = [sub.pkg]
    for pkg in pkgs:
        fid = pkg.name.split("/")[1]
        for rel in (f"files/{fid}-latin-400-normal.{ext}", f"files/{fid}-latin-400-normal.woff2"):
            if index.file(pkg, rel):
                return pkg, rel
    return None


# -- closest equivalent for families the mirror lacks --------------------------
#
# Google Fonts has ~1,700 families; the mirror holds the popular ones. Any
# other family is answered with an installed family of the same category
# (Google's classification: serif, sans-serif, monospace, display,
# handwriting), declared under the requested name so the page's font-family
# stacks pick it up, and the substitution is noted.

SANS, SERIF, MONO, DISPLAY, HAND, ICONS = "sans-serif", "serif", "monospace", "display", "handwriting", "icons"

# Installed families tried for each category, best first; the first one the
# mirror has is served.
CATEGORY_SUBSTITUTES = {
    SANS: ("Inter", "Roboto", "Open Sans", "Lato"),
    SERIF: ("Merriweather", "Lora", "Playfair Display", "EB Garamond"),
    MONO: ("JetBrains Mono", "Roboto Mono", "Fira Code", "Source Code Pro"),
    DISPLAY: ("Oswald", "Bebas Neue", "Bangers"),
    HAND: ("Caveat", "Dancing Script", "Pacifico", "Permanent Marker"),
    ICONS: ("Material Symbols Outlined", "Material Icons"),
}

# Well-known Google Fonts families (lower case) by category. Families whose
# name already says it ("... Mono", "... Serif", "... Script") need no entry.
KNOWN_CATEGORIES = {
    SERIF: """abhaya libre, alegreya, alike, amiri, antic didone, arvo, besley, bitter, bodoni moda, brygada 1918,
        cardo, cinzel, cinzel decorative, cormorant, cormorant infant, cormorant sc, cormorant upright, crimson pro,
        crimson text, dm serif display, dm serif text, domine, eczar, frank ruhl libre, gelasio, gloock, gowun batang,
        ibarra real nova, instrument serif, libre bodoni, libre caslon display, libre caslon text, literata, lusitana,
        marcellus, martel, merriweather, neuton, newsreader, noticia text, old standard tt, petrona, playfair,
        playfair display sc, prata, pt serif, quattrocento, roboto slab, rokkitt, rozha one, sorts mill goudy,
        source serif 4, source serif pro, spectral, tinos, trirong, unna, vollkorn, young serif, zilla slab,
        times new roman, georgia, times""",
    MONO: """anonymous pro, b612 mono, cousine, courier prime, cutive mono, dm mono, fira mono, geist mono,
        major mono display, martian mono, nanum gothic coding, nova mono, overpass mono, oxygen mono, pt mono,
        red hat mono, share tech mono, sometype mono, spline sans mono, syne mono, ubuntu mono, victor mono,
        xanh mono, azeret mono, chivo mono, courier new""",
    DISPLAY: """abril fatface, alfa slab one, anton, audiowide, bagel fat one, bowlby one sc, bungee,
        bungee inline, bungee shade, black ops one, chango, cherry bomb one, concert one,
        creepster, dela gothic one, ewert, faster one, fascinate, fugaz one, gravitas one, lilita one, lobster,
        lobster two, luckiest guy, michroma, monoton, nosifer, passion one, patua one, paytone one, rampart one,
        righteous, rubik mono one, russo one, shrikhand, silkscreen, sigmar one, special elite, staatliches,
        titan one, ultra, unbounded, vast shadow, bungee spice, pixelify sans, jersey 10, tiny5, micro 5,
        dotgothic16, workbench, sixtyfour, press start 2p, bangers, bebas neue, big shoulders display,
        boogaloo, chewy, bungee hairline, londrina solid, coda, league gothic""",
    HAND: """amatic sc, architects daughter, bad script, caveat brush, comic neue, cookie, courgette,
        covered by your grace, gloria hallelujah, gochi hand, great vibes, handlee, homemade apple, indie flower,
        kalam, kaushan script, la belle aurore, marck script, mr dafoe, nanum pen script, nothing you could do,
        parisienne, patrick hand, permanent marker, reenie beanie, rock salt, sacramento, satisfy, schoolbell,
        shadows into light, shadows into light two, sedgwick ave, allura, alex brush, pinyon script, tangerine,
        yellowtail, zeyada, just another hand, coming soon, walter turncoat, waiting for the sunrise, delius,
        mansalva, nanum brush script, cedarville cursive, dawning of a new day, over the rainbow, kristi,
        meddon, qwigley, vibur, pangolin, sriracha, short stack, itim, neucha, annie use your telescope""",
}
_KNOWN = {name.strip(): cat for cat, names in KNOWN_CATEGORIES.items()
          for name in names.split(",") if name.strip()}

# Closer equivalents than the category default (requested -> installed,
# best first): renamed families, near-identical designs, shared styles.
CLOSEST = {
    "source sans pro": ("Source Sans 3",), "noto sans": ("Open Sans",), "droid sans": ("Open Sans",),
    "helvetica": ("Inter",), "helvetica neue": ("Inter",), "arial": ("Roboto",), "geist": ("Inter",),
    "pt serif": ("Merriweather",), "noto serif": ("Merriweather",), "droid serif": ("Merriweather",),
    "source serif pro": ("Merriweather",), "source serif 4": ("Merriweather",),
    "dm serif display": ("Playfair Display",), "abril fatface": ("Playfair Display",),
    "playfair": ("Playfair Display",), "bodoni moda": ("Playfair Display",), "cormorant": ("Cormorant Garamond",),
    "crimson text": ("EB Garamond",), "crimson pro": ("EB Garamond",), "sorts mill goudy": ("EB Garamond",),
    "libre caslon text": ("Libre Baskerville",), "libre caslon display": ("Libre Baskerville",),
    "fira mono": ("Fira Code",), "dm mono": ("IBM Plex Mono",), "courier prime": ("Space Mono",),
    "courier new": ("Space Mono",),
    "silkscreen": ("Press Start 2P",), "pixelify sans": ("Press Start 2P",), "jersey 10": ("Press Start 2P",),
    "tiny5": ("Press Start 2P",), "micro 5": ("Press Start 2P",), "dotgothic16": ("Press Start 2P",),
    "workbench": ("VT323",), "sixtyfour": ("Press Start 2P",),
    "audiowide": ("Orbitron",), "michroma": ("Orbitron",), "russo one": ("Orbitron",), "exo": ("Exo 2",),
    "teko": ("Rajdhani",), "chakra petch": ("Rajdhani",), "saira": ("Rajdhani",), "saira condensed": ("Rajdhani",),
    "anton": ("Oswald",), "staatliches": ("Bebas Neue",), "league gothic": ("Oswald",),
    "barlow condensed": ("Oswald",), "roboto condensed": ("Oswald",), "fjalla one": ("Oswald",),
    "luckiest guy": ("Bangers",), "fredoka one": ("Fredoka",), "comic neue": ("Caveat",),
    "great vibes": ("Dancing Script",), "allura": ("Dancing Script",), "sacramento": ("Dancing Script",),
    "satisfy": ("Dancing Script",), "lobster": ("Pacifico",), "yellowtail": ("Pacifico",),
    "kaushan script": ("Pacifico",), "rock salt": ("Permanent Marker",), "caveat brush": ("Caveat",),
    "material icons outlined": ("Material Icons",), "material icons round": ("Material Icons",),
    "material icons sharp": ("Material Icons",), "material icons two tone": ("Material Icons",),
    "material symbols rounded": ("Material Symbols Outlined",),
    "material symbols sharp": ("Material Symbols Outlined",),
}

# Words in a family name that give its category away, most specific first.
_NAME_HINTS = (
    (ICONS, r"\bmaterial (?:icons|symbols)\b"),
    (MONO, r"\bmono(?:space)?\b|\bcode\b|\bcourier\b|\bconsol|\bterminal\b|\btypewriter\b"),
    (HAND, r"\bscript\b|\bhand(?:writing|written)?\b|\bbrush\b|\bmarker\b|\bcursive\b|\bcalligraph|\bsignature\b"),
    (SANS, r"\bsans\b|\bgrotesk\b|\bgrotesque\b|\bgothic\b"),
    (SERIF, r"\bserif\b|\bslab\b|\bgaramond\b|\bbaskerville\b|\bcaslon\b|\bbodoni\b|\bdidot\b|\bantiqua\b|"
            r"\bold style\b|\btimes\b"),
    (DISPLAY, r"\bpixel|\b8 ?bit\b|\bretro\b|\barcade\b|\bstencil\b|\bshadow\b|\binline\b|\bone\b$"),
)
_SLUG_HINTS = (  # the same for a gstatic slug ("s/firamono/...": no word breaks)
    (ICONS, r"^material(?:icons|symbols)"), (MONO, r"mono$|monospace|code$|courier"),
    (HAND, r"script$|hand$|brush$|marker$"), (SANS, r"sans"), (SERIF, r"serif|slab$|garamond|baskerville"),
    (DISPLAY, r"pixel"),
)


@dataclass(frozen=True)
class FontSubstitute:
    pkg: Pkg
    family: str     # the installed family served
    category: str   # category of the requested family
    note: str


@dataclass(frozen=True)
class _Installed:
    family: str
    key: str        # lower-case words: "playfair display"
    slug: str       # as in fonts.gstatic.com/s/<slug>/: "playfairdisplay"
    category: str
    pkg: Pkg


_INSTALLED: "weakref.WeakKeyDictionary[PackageIndex, dict[str, _Installed]]" = weakref.WeakKeyDictionary()


def _key(name: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", name.lower()))


def installed_families(index: PackageIndex) -> dict[str, _Installed]:
    """Installed @fontsource families by key, read from their metadata.json."""
    fams = _INSTALLED.get(index)
    if fams is None:
        fams = {}
        for name in index.names():
            if not name.startswith("@fontsource/"):
                continue
            pkg = index.pick(name, "")[0]
            meta = _json(index, pkg, "metadata.json")
            family = meta.get("family") or name.split("/")[1].replace("-", " ").title()
            key = _key(family)
            category = _KNOWN.get(key) or meta.get("category") or SANS
            fams[key] = _Installed(family, key, key.replace(" ", ""), category, pkg)
        _INSTALLED[index] = fams
    return fams


def family_category(family: str) -> tuple[str, bool]:
    """Google category of a family: (category, known). known is False when
    nothing in the name or the table says so and sans-serif is a guess."""
    key = _key(family)
    if key in _KNOWN:
        return _KNOWN[key], True
    for cat, pattern in _NAME_HINTS:
        if re.search(pattern, key):
            return cat, True
    return SANS, False


def _slug_category(slug: str) -> tuple[str, bool]:
    for key, cat in _KNOWN.items():
        if key.replace(" ", "") == slug:
            return cat, True
    for cat, pattern in _SLUG_HINTS:
        if re.search(pattern, slug):
            return cat, True
    return SANS, False


def substitute(index: PackageIndex, family: str, slug: str | None = None) -> FontSubstitute | None:
    """The installed family closest to one the mirror lacks: a known near
    equivalent, else a family of the same name stem ("Roboto Condensed" ->
    Roboto, "Exo" -> Exo 2) and the same category, else the category default.
    With slug, family is matched as a fonts.gstatic.com slug instead."""
    fams = installed_families(index)
    if not fams:
        return None
    if slug is not None:
        category, known = _slug_category(slug)
        closest = next((v for k, v in CLOSEST.items() if k.replace(" ", "") == slug), ())
        stem = [f for f in fams.values() if _stem_match(slug, f.slug, "")]
    else:
        key = _key(family)
        category, known = family_category(family)
        closest = CLOSEST.get(key, ())
        stem = [f for f in fams.values() if _stem_match(key, f.key, " ")]
    candidates = [fams[_key(name)] for name in closest if _key(name) in fams]
    # Longest shared stem first; a guessed category yields to the stem's.
    stem.sort(key=lambda f: -len(f.key))
    candidates += [f for f in stem if f.category == category or (not known and f.category != ICONS)]
    candidates += [fams[_key(n)] for n in CATEGORY_SUBSTITUTES.get(category, ()) if _key(n) in fams]
    if category == DISPLAY:  # no display face installed: a sans is closer than nothing
        candidates += [fams[_key(n)] for n in CATEGORY_SUBSTITUTES[SANS] if _key(n) in fams]
    if not candidates:
        candidates = [f for f in fams.values() if f.category == category] or \
                     [f for f in fams.values() if f.category != ICONS]
    if not candidates:
        return None
    best = candidates[0]
    if not known and best in stem:
        category = best.category
    note = (f"font family {family!r} not in the mirror; served {best.family} ({category}) under that name")
    return FontSubstitute(best.pkg, best.family, category, note)


def _stem_match(want: str, have: str, sep: str) -> bool:
    """One name extends the other by whole words ("roboto condensed" /
    "roboto"; "exo" / "exo 2"). Slugs (sep "") have no word breaks."""
    if want == have or min(len(want), len(have)) < 3:
        return False
    longer, shorter = (want, have) if len(want) > len(have) else (have, want)
    return longer.startswith(shorter + sep)
