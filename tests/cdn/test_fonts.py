"""Google Fonts CSS API answered from @fontsource packages."""

import re

from webmend.cdn.fonts import requested_families
from cdn_fixtures import lookup, mirror  # noqa: F401  (pytest fixtures)


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


def test_unknown_family_is_noted(mirror):
    served = mirror.lookup("https://fonts.googleapis.com/css2?family=Totally+Made+Up+Font&family=Lato")
    assert "Totally Made Up Font" in served.substitution
    assert "font-family: 'Lato'" in served.body.decode()
    only_unknown = mirror.lookup("https://fonts.googleapis.com/css2?family=Totally+Made+Up+Font")
    assert only_unknown.package == "" and only_unknown.substitution
    assert mirror.hit_report([only_unknown and "https://fonts.googleapis.com/css2?family=Totally+Made+Up+Font"],
                             follow=False)["hits"] == 0


def test_material_icons_class(lookup):
    css = lookup("https://fonts.googleapis.com/icon?family=Material+Icons").body.decode()
    assert ".material-icons {" in css and "'liga'" in css
    css = lookup("https://fonts.googleapis.com/css2?family=Material+Symbols+Outlined:opsz,wght,FILL,GRAD@20..48,100..700,0..1,-50..200").body.decode()
    assert ".material-symbols-outlined {" in css and "font-weight: 700" in css


def test_real_gstatic_urls_map_to_family_regular(lookup):
    served = lookup("https://fonts.gstatic.com/s/opensans/v40/memSYaGs126MiZpBA-UvWbX2vVnXBbObj2OVZyOOSr4dVJWUgsjZ0C4n.woff2")
    assert served.package == "@fontsource/open-sans" and served.substitution


def test_font_awesome_css_webfonts_resolve_relative_to_css(mirror, lookup):
    css_url = "https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.4.0/css/all.min.css"
    report = mirror.hit_report([css_url])
    assert report["hits"] == 1
    assert report["followed"]["total"] >= 4 and report["followed"]["misses"] == []
    font = lookup("https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.4.0/webfonts/fa-solid-900.woff2")
    assert font.content_type == "font/woff2"
    fa4 = mirror.hit_report(["https://cdn.jsdelivr.net/npm/font-awesome@4.7.0/css/font-awesome.min.css"])
    assert fa4["followed"]["misses"] == []
