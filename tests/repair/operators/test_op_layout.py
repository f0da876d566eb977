"""fit_media_to_viewport: on its fixture in Chromium, and the detector's reading of the
overflowing elements on markup alone."""

from __future__ import annotations

import pytest
from repair_op_cases import assert_nothing_broken, diag, firing, repair_round

from webmend.repair.operators.layout import FIT_MEDIA, parse_tree, resolve


@pytest.fixture(scope="module")
def media_round(cfg, worker):
    return repair_round([FIT_MEDIA], "wide_media", cfg, worker)


def test_wide_media_fixture_shows_only_its_defect(media_round):
    r = media_round
    mobile = r.d0.layout["mobile"]
    assert mobile["overflow"] and mobile["scroll_width"] > mobile["width"] == 375
    # The hero picture, and a grid cell (figure, caption) that grew to the picture in it.
    assert any(p.endswith("> img:nth-of-type(1)") for p in mobile["overflowing_elements"])
    assert any("figcaption" in p for p in mobile["overflowing_elements"])
    assert r.finding["kinds"] == ["img"]
    assert firing(r.d0, r.html) == ["fit_media_to_viewport"]


def test_media_fit_the_phone_screen_after_the_edit(media_round):
    r = media_round
    mobile = r.d1.layout["mobile"]
    assert not mobile["overflow"] and mobile["overflowing_elements"] == []
    assert mobile["scroll_width"] == mobile["width"] == 375
    assert not r.d1.layout["tablet"]["overflow"]
    assert not r.passed("tc_phone", after=False) and r.passed("tc_phone", after=True)
    assert r.d1.layout["desktop"] == {**r.d0.layout["desktop"]}  # the desktop layout is untouched
    assert FIT_MEDIA.detect(r.d1, r.fixed) is None
    assert firing(r.d1, r.fixed) == []
    assert_nothing_broken(r)


# -- markup-only edge cases ------------------------------------------------------------------

PAGE = """<html><head></head><body><main><div class="grid"><figure><img src="a.png" width="{w}"><figcaption>A</figcaption>
</figure></div><table><tr><td>x</td></tr></table><p>text<div id="wide">box</div><svg viewBox="0 0 800 200"><rect/></svg>
</main></body></html>"""
IMG = "html > body:nth-of-type(1) > main:nth-of-type(1) > div:nth-of-type(1) > figure:nth-of-type(1) > img:nth-of-type(1)"
FIG = "html > body:nth-of-type(1) > main:nth-of-type(1) > div:nth-of-type(1) > figure:nth-of-type(1)"
CAPTION = FIG + " > figcaption:nth-of-type(1)"
TD = "html > body:nth-of-type(1) > main:nth-of-type(1) > table:nth-of-type(1) > tbody:nth-of-type(1) > tr:nth-of-type(1) > td:nth-of-type(1)"
RECT = "html > body:nth-of-type(1) > main:nth-of-type(1) > svg:nth-of-type(1) > rect:nth-of-type(1)"


def test_paths_resolve_in_the_markup_tree():
    root = parse_tree(PAGE.format(w=900))
    assert resolve(root, IMG).tag == "img"
    assert resolve(root, TD).tag == "td"  # the <tbody> the browser inserts
    assert resolve(root, "#wide").tag == "div"
    # <p> is closed by the <div> that follows it, as the browser does.
    assert resolve(root, "html > body:nth-of-type(1) > main:nth-of-type(1) > div:nth-of-type(2)").attrs["id"] == "wide"
    assert resolve(root, "#nope") is None
    assert resolve(root, "html > body:nth-of-type(1) > section:nth-of-type(1)") is None


def test_fires_for_media_and_what_they_widen_only():
    html = PAGE.format(w=900)
    assert FIT_MEDIA.detect(diag(mobile=[FIG, IMG, CAPTION]), html)["kinds"] == ["img"]
    assert FIT_MEDIA.detect(diag(mobile=[RECT]), html)["kinds"] == ["svg"]  # a shape inside a wide svg
    assert FIT_MEDIA.detect(diag(mobile=[]), html) is None
    assert FIT_MEDIA.detect(diag(mobile=[IMG, "#wide"]), html) is None  # a fixed-width box overflows too
    assert FIT_MEDIA.detect(diag(mobile=[TD]), html) is None  # a wide table is not media
    assert FIT_MEDIA.detect(diag(mobile=[IMG, "html > body:nth-of-type(1) > aside:nth-of-type(1)"]), html) is None
    # A 300 px picture that overflows sits in something too wide: not the picture's fault.
    assert FIT_MEDIA.detect(diag(mobile=[IMG]), PAGE.format(w=300)) is None
    # An svg without a viewBox would be cut, not scaled.
    assert FIT_MEDIA.detect(diag(mobile=[RECT]), html.replace(' viewBox="0 0 800 200"', ' width="800"')) is None


def test_edit_is_one_zero_specificity_rule_for_media_kinds():
    out = FIT_MEDIA.apply(PAGE.format(w=900), {"kinds": ["img"]})
    head = out[out.index("<head>"):out.index("</head>")]
    assert ":where(img, video, canvas, svg, iframe) { max-width: 100%; }" in head
    assert ":where(img, video, canvas, svg[viewBox]) { height: auto; }" in head  # not iframes: no ratio
    assert out.count("<style>") == 1
