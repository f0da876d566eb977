"""Google Fonts CSS API answered from @fontsource packages."""

import re

import pytest
from cdn_fixtures import lookup, mirror  # noqa: F401  (pytest fixtures)

from webmend.cdn.fonts import DISPLAY, HAND, ICONS, MONO, SANS, SERIF, build_css, family_category, requested_families
from webmend.cdn.packages import PackageIndex


def _src_urls(css: str) -> list[str]:
    return re.findall(r"url\((https://[^)]+)\)", css)


def test_css2_parsing():
    fams = dict(requested_families("css2", {"family": [
        "Inter:wght@300;400;700", "Roboto:ital,wght@0,400;1,700", "Open Sans", "Orbitron:wght@400..900"]}))
    assert fams["Inter"] == {("normal", 300), ("normal", 400), ("normal", 700)}
    assert fams["Roboto"] == {("normal", 400), ("italic", 700)}
    assert fams["Open Sans"] == {("normal", 400)}
    assert fams["Orbitron"] == {("normal", (400.0, 900.0))}


def test_css1_parsing():
    fams = dict(requested_families("css", {"family": ["Roboto:300,400i,700italic|Lato:bold"]}))
    assert fams["Roboto"] == {("normal", 300), ("italic", 400), ("italic", 700)}
    assert fams["Lato"] == {("normal", 700)}


def test_css2_generates_font_faces_whose_files_resolve(lookup):
    served = lookup("https://fonts.googleapis.com/css2?family=Inter:wght@400;700&family=Press+Start+2P&display=swap")
    css = served.body.decode()
    assert served.content_type == "text/css" and served.substitution is None
    assert "font-family: 'Inter'" in css and "font-family: 'Press Start 2P'" in css
    assert "font-weight: 700" in css and "font-display: swap" in css and "unicode-range" in css
    urls = _src_urls(css)
    assert urls and all(u.startswith("https://fonts.gstatic.com/webmend/@fontsource/") for u in urls)
    latin = next(u for u in urls if "inter-latin-700-normal.woff2" in u)
    font = lookup(latin)
    assert font.content_type == "font/woff2" and font.body[:4] == b"wOF2"
    assert font.package == "@fontsource/inter"


def test_css1_endpoint_and_italic(lookup):
    css = lookup("https://fonts.googleapis.com/css?family=Roboto:400,700italic&display=swap").body.decode()
    assert "font-style: italic" in css and "font-weight: 700" in css


def test_variable_range_expands_to_static_weights(lookup):
    css = lookup("https://fonts.googleapis.com/css2?family=Orbitron:wght@400..900").body.decode()
    assert {"400", "500", "600", "700", "800", "900"} <= set(re.findall(r"font-weight: (\d+)", css))


def test_missing_weight_and_style_fall_back_with_note(lookup):
    served = lookup("https://fonts.googleapis.com/css2?family=Press+Start+2P:ital,wght@1,700")
    assert "font-weight: 400" in served.body.decode()
    assert "700" in served.substitution and "italic" in served.substitution


def test_unknown_family_is_served_as_a_substitute(mirror, lookup):
    url = "https://fonts.googleapis.com/css2?family=Totally+Made+Up+Font:wght@300;800&family=Lato&display=swap"
    served = lookup(url)
    css = served.body.decode()
    assert served.substitution == ("font family 'Totally Made Up Font' not in the mirror; "
                                   "served Inter (sans-serif) under that name")
    assert served.package.split(",") == ["@fontsource/inter@5.3.0", "@fontsource/lato@5.3.0"]
    # Every face is declared under the requested name (or Lato's), never the substitute's.
    assert set(re.findall(r"font-family: '([^']+)'", css)) == {"Totally Made Up Font", "Lato"}
    made_up = [b for b in css.split("@font-face")[1:] if "Totally Made Up Font" in b]
    assert {re.search(r"font-weight: (\d+)", b).group(1) for b in made_up} == {"300", "800"}
    for block in made_up:
        assert "/@fontsource/inter/files/inter-" in block and "font-display: swap" in block
    latin = next(u for u in _src_urls(css) if u.endswith("inter-latin-800-normal.woff2"))
    font = lookup(latin)
    assert font.content_type == "font/woff2" and font.body[:4] == b"wOF2"
    rep = mirror.hit_report([url, "https://fonts.googleapis.com/css2?family=Totally+Made+Up+Font"])
    assert (rep["hits"], rep["substitutions"], rep["misses"]) == (2, 2, [])
    assert rep["followed"]["misses"] == []


def test_family_category_heuristics():
    cases = {
        "Totally Made Up Font": (SANS, False), "Noto Sans": (SANS, True), "Acme Grotesk": (SANS, True),
        "Foo Mono": (MONO, True), "Foo Code": (MONO, True), "Courier Prime": (MONO, True),
        "Cousine": (MONO, True),
        "Foo Serif": (SERIF, True), "Roboto Slab": (SERIF, True), "Foo Garamond": (SERIF, True),
        "Bar Baskerville": (SERIF, True), "Crimson Text": (SERIF, True), "Noto Sans Serif": (SANS, True),
        "Foo Script": (HAND, True), "Patrick Hand": (HAND, True), "Indie Flower": (HAND, True),
        "Great Vibes": (HAND, True),
        "Anton": (DISPLAY, True), "Lobster": (DISPLAY, True), "Pixelify Sans": (DISPLAY, True),
        "Material Symbols Rounded": (ICONS, True),
    }
    for family, expected in cases.items():
        assert family_category(family) == expected, family


@pytest.mark.parametrize("family, package", [
    ("Foo Serif", "merriweather"), ("Foo Mono", "jetbrains-mono"), ("Anton", "oswald"), ("Foo Script", "caveat"),
    ("Zilla Slab", "merriweather"), ("Rock Salt", "permanent-marker"),
    # near equivalents and name stems before the category default
    ("Source Sans Pro", "source-sans-3"), ("Noto Sans", "open-sans"), ("Inter Tight", "inter"),
    ("Exo", "exo-2"), ("Nunito Sans", "nunito"), ("Playfair Display SC", "playfair-display"),
    ("DM Serif Display", "playfair-display"), ("Silkscreen", "press-start-2p"), ("Fredoka One", "fredoka"),
    # a stem of another category does not count: Ubuntu is sans, Roboto is sans
    ("Ubuntu Mono", "jetbrains-mono"), ("Roboto Slab", "merriweather"),
])
def test_substitute_by_category_and_stem(lookup, family, package):
    served = lookup("https://fonts.googleapis.com/css2?family=" + family.replace(" ", "+"))
    assert served.package.startswith(f"@fontsource/{package}@")
    assert f"font family {family!r} not in the mirror; served " in served.substitution
    assert set(re.findall(r"font-family: '([^']+)'", served.body.decode())) == {family}
    assert all(f"/@fontsource/{package}/files/" in u for u in _src_urls(served.body.decode()))


def test_substitute_weights_map_to_nearest(lookup):
    # Caveat has 400-700 and no italic
    served = lookup("https://fonts.googleapis.com/css2?family=Foo+Script:ital,wght@0,300;0,500;1,900")
    css = served.body.decode()
    assert "served Caveat (handwriting) under that name" in served.substitution
    assert "Foo Script weight 300 not available; served 400" in served.substitution
    assert "Foo Script weight 900 not available; served 700" in served.substitution
    assert "Foo Script has no italic style; served normal" in served.substitution
    faces = {(re.search(r"font-style: (\w+)", b).group(1), re.search(r"font-weight: (\d+)", b).group(1))
             for b in css.split("@font-face")[1:]}
    assert faces == {("normal", "400"), ("normal", "500"), ("italic", "700")}
    # a variable range keeps every static weight of the substitute inside it
    css = lookup("https://fonts.googleapis.com/css2?family=Foo+Serif:wght@200..500").body.decode()
    assert set(re.findall(r"font-weight: (\d+)", css)) == {"300", "400", "500"}  # Merriweather: 300-900


def test_substitute_icon_family_gets_its_class(lookup):
    served = lookup("https://fonts.googleapis.com/css2?family=Material+Symbols+Rounded:opsz,wght,FILL,GRAD@24,400,0,0")
    css = served.body.decode()
    assert served.package.startswith("@fontsource/material-symbols-outlined@")
    assert ".material-symbols-rounded {" in css and "font-family: 'Material Symbols Rounded'" in css
    served = lookup("https://fonts.googleapis.com/icon?family=Material+Icons+Outlined")
    assert served.package.startswith("@fontsource/material-icons@")
    assert ".material-icons-outlined {" in served.body.decode()


def test_family_name_cannot_break_out_of_css(lookup):
    served = lookup("https://fonts.googleapis.com/css2?family=Evil%27%7D%20body%7Bcolor:red%7D%2F*:wght@400"
                    "&display=swap%3Bcolor:red")
    css = served.body.decode()
    assert "body{" not in css.replace(" ", "") and "*/*" not in css
    assert "font-family: 'Evil bodycolor';" in css and "color:red" not in css
    assert "font-display" not in css  # only a plain keyword is echoed
    assert css.count("{") == css.count("}")


def test_nothing_to_substitute_without_font_packages(tmp_path):
    result = build_css(PackageIndex(tmp_path, {}), "css2", {"family": ["Foo Sans"]})
    assert result.packages == [] and result.notes == ["font family 'Foo Sans' is not in the mirror"]


def test_new_families_are_served_exactly(lookup):
    families = ["DM Sans", "IBM Plex Sans", "IBM Plex Mono", "Manrope", "Fraunces", "Work Sans",
                "Plus Jakarta Sans", "Syne", "Cormorant Garamond", "Karla", "Fredoka", "Source Sans 3", "Lexend",
                "Outfit", "Space Mono", "Rubik", "Merriweather", "Lora", "PT Sans", "Ubuntu", "Mulish",
                "Quicksand", "Josefin Sans", "Archivo", "Barlow", "Inconsolata", "Caveat", "Pacifico",
                "Dancing Script", "Permanent Marker", "Libre Baskerville", "EB Garamond", "Sora", "Figtree"]
    for family in families:
        served = lookup("https://fonts.googleapis.com/css2?family=" + family.replace(" ", "+"))
        assert served.substitution is None, (family, served.substitution)
        assert f"font-family: '{family}'" in served.body.decode()


def test_material_icons_class(lookup):
    css = lookup("https://fonts.googleapis.com/icon?family=Material+Icons").body.decode()
    assert ".material-icons {" in css and "'liga'" in css
    css = lookup("https://fonts.googleapis.com/css2?family=Material+Symbols+Outlined:opsz,wght,FILL,GRAD@20..48,100..700,0..1,-50..200").body.decode()
    assert ".material-symbols-outlined {" in css and "font-weight: 700" in css


def test_real_gstatic_urls_map_to_family_regular(lookup):
    served = lookup("https://fonts.gstatic.com/s/opensans/v40/memSYaGs126MiZpBA-UvWbX2vVnXBbObj2OVZyOOSr4dVJWUgsjZ0C4n.woff2")
    assert served.package == "@fontsource/open-sans" and served.substitution


def test_real_gstatic_urls_of_missing_families_map_to_a_substitute(lookup):
    served = lookup("https://fonts.gstatic.com/s/firamono/v14/N0bX2SlFPv1weGeLZDtgJv7S.woff2")
    assert (served.package, served.path) == ("@fontsource/fira-code", "files/fira-code-latin-400-normal.woff2")
    assert "fira-code-latin-400-normal" in served.substitution and served.body[:4] == b"wOF2"
    served = lookup("https://fonts.gstatic.com/s/robotoslab/v34/BngbUXZYTXPIvIBgJJSb6s3BzlRRfKOFbvjojISmb2Rm.woff")
    assert served.package == "@fontsource/merriweather" and served.content_type == "font/woff"


def test_font_awesome_css_webfonts_resolve_relative_to_css(mirror, lookup):
    css_url = "https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.4.0/css/all.min.css"
    report = mirror.hit_report([css_url])
    assert report["hits"] == 1
    assert report["followed"]["total"] >= 4 and report["followed"]["misses"] == []
    font = lookup("https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.4.0/webfonts/fa-solid-900.woff2")
    assert font.content_type == "font/woff2"
    fa4 = mirror.hit_report(["https://cdn.jsdelivr.net/npm/font-awesome@4.7.0/css/font-awesome.min.css"])
    assert fa4["followed"]["misses"] == []
