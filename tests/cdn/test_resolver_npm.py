"""Classic (non-module) CDN URLs as LLM-written pages write them."""

import pytest
from cdn_fixtures import lookup, mirror  # noqa: F401  (pytest fixtures)

JS = "application/javascript"


@pytest.mark.parametrize("url,package,path", [
    ("https://cdnjs.cloudflare.com/ajax/libs/three.js/r128/three.min.js", "three", "build/three.min.js"),
    ("https://cdn.jsdelivr.net/npm/three@0.128.0/examples/js/controls/OrbitControls.js", "three",
     "examples/js/controls/OrbitControls.js"),
    ("https://unpkg.com/three@0.160.0/examples/jsm/controls/OrbitControls.js", "three",
     "examples/jsm/controls/OrbitControls.js"),
    ("https://unpkg.com/three@0.160.0/build/three.module.js", "three", "build/three.module.js"),
    ("https://cdn.jsdelivr.net/npm/chart.js", "chart.js", "dist/chart.umd.js"),
    ("https://cdnjs.cloudflare.com/ajax/libs/Chart.js/2.9.4/Chart.min.js", "chart.js", "dist/Chart.min.js"),
    ("https://cdn.jsdelivr.net/npm/d3@7", "d3", "dist/d3.min.js"),
    ("https://d3js.org/d3.v7.min.js", "d3", "dist/d3.min.js"),
    ("https://cdnjs.cloudflare.com/ajax/libs/gsap/3.12.5/gsap.min.js", "gsap", "dist/gsap.min.js"),
    ("https://cdnjs.cloudflare.com/ajax/libs/gsap/3.12.5/ScrollTrigger.min.js", "gsap", "dist/ScrollTrigger.min.js"),
    ("https://cdn.jsdelivr.net/npm/p5@1.11.13/lib/p5.min.js", "p5", "lib/p5.min.js"),
    ("https://cdnjs.cloudflare.com/ajax/libs/animejs/3.2.2/anime.min.js", "animejs", "lib/anime.min.js"),
    ("https://cdn.plot.ly/plotly-2.35.3.min.js", "plotly.js-dist-min", "plotly.min.js"),
    ("https://cdn.jsdelivr.net/npm/echarts@5.6.0/dist/echarts.min.js", "echarts", "dist/echarts.min.js"),
    ("https://code.jquery.com/jquery-3.7.1.min.js", "jquery", "dist/jquery.min.js"),
    ("https://cdnjs.cloudflare.com/ajax/libs/lodash.js/4.17.21/lodash.min.js", "lodash", "lodash.min.js"),
    ("https://cdnjs.cloudflare.com/ajax/libs/matter-js/0.19.0/matter.min.js", "matter-js", "build/matter.min.js"),
    ("https://unpkg.com/react@18/umd/react.production.min.js", "react", "umd/react.production.min.js"),
    ("https://ajax.googleapis.com/ajax/libs/jquery/3.7.1/jquery.min.js", "jquery", "dist/jquery.min.js"),
    ("https://ga.jspm.io/npm:three@0.160.0/build/three.module.js", "three", "build/three.module.js"),
])
def test_exact_hits(lookup, url, package, path):
    served = lookup(url)
    assert (served.package, served.path, served.content_type) == (package, path, JS)
    assert served.substitution is None
    assert len(served.body) > 1000


def test_r128_cdnjs_is_three_0_128(lookup):
    served = lookup("https://cdnjs.cloudflare.com/ajax/libs/three.js/r128/three.min.js")
    assert (served.requested, served.served) == ("r128", "0.128.0")
    assert b"REVISION" in served.body and b'"128"' in served.body


def test_version_substitution_is_recorded(lookup):
    served = lookup("https://cdn.jsdelivr.net/npm/three@0.155.0/build/three.module.js")
    assert (served.requested, served.served) == ("0.155.0", "0.152.2")
    assert "nearest" in served.substitution
    served = lookup("https://cdnjs.cloudflare.com/ajax/libs/gsap/3.12.2/gsap.min.js")
    assert served.served.startswith("3.") and served.substitution


def test_ranges_resolve_without_substitution(lookup):
    for url in ("https://unpkg.com/three@latest/build/three.module.js",
                "https://unpkg.com/chart.js@^3.2/dist/chart.min.js",
                "https://cdn.jsdelivr.net/npm/animejs@3/lib/anime.min.js"):
        assert lookup(url).substitution is None, url


def test_file_missing_in_version_comes_from_nearest_version_that_has_it(lookup):
    # examples/js left three in r148: a 0.160 page asking for it gets 0.147's copy.
    served = lookup("https://cdn.jsdelivr.net/npm/three@0.160.0/examples/js/controls/OrbitControls.js")
    assert served.served == "0.147.0"
    assert "served it from 0.147.0" in served.substitution
    # build/three.min.js is gone from the newest release.
    served = lookup("https://threejs.org/build/three.min.js")
    assert served.path == "build/three.min.js" and served.served != "0.187.0"


def test_min_and_non_min_swap(lookup):
    served = lookup("https://unpkg.com/chart.js@4.4.7/dist/chart.umd.min.js")
    assert served.path == "dist/chart.umd.js" and "chart.umd.min.js" in served.substitution
    served = lookup("https://cdn.jsdelivr.net/npm/d3@7.9.0/dist/d3.js")
    assert served.path == "dist/d3.js" and served.substitution is None
    served = lookup("https://unpkg.com/canvas-confetti@1.9.4/dist/confetti.browser.min.js")
    assert served.path == "dist/confetti.browser.js" and served.substitution


def test_chart4_min_name_maps_to_umd_not_esm(lookup):
    served = lookup("https://cdn.jsdelivr.net/npm/chart.js@4.4.7/dist/chart.min.js")
    assert served.path == "dist/chart.umd.js" and served.substitution


def test_plotly_latest_is_v1(lookup):
    served = lookup("https://cdn.plot.ly/plotly-latest.min.js")
    assert served.served == "1.58.5" and served.substitution is None


def test_tailwind_play_cdn_substitution(lookup):
    served = lookup("https://cdn.tailwindcss.com")
    assert served.package == "@tailwindcss/browser"
    assert "Tailwind Play CDN" in served.substitution
    assert b"window.tailwind" in served.body  # tailwind.config shim precedes the v4 build
    assert lookup("https://cdn.tailwindcss.com/3.4.1?plugins=forms,typography").requested == "3.4.1"


def test_font_awesome_kit_and_legacy_hosts(lookup):
    assert lookup("https://kit.fontawesome.com/0123abcd.js").path == "js/all.min.js"
    served = lookup("https://maxcdn.bootstrapcdn.com/font-awesome/4.7.0/css/font-awesome.min.css")
    assert (served.package, served.content_type) == ("font-awesome", "text/css")
    assert lookup("https://use.fontawesome.com/releases/v5.15.4/css/all.css").served == "5.15.4"


def test_unknown_package_or_host_is_none(mirror):
    assert mirror.lookup("https://cdn.jsdelivr.net/npm/this-package-is-not-mirrored@1.0.0/x.js") is None
    assert mirror.lookup("https://unpkg.com/three@0.160.0/build/no-such-file.js") is None
    assert mirror.lookup("https://example.com/lib.js") is None
    assert mirror.lookup("https://cdn.jsdelivr.net/npm/three@0.160.0/build/") is None


def test_content_types(lookup):
    assert lookup("https://cdn.jsdelivr.net/npm/bootstrap@5.3.0/dist/css/bootstrap.min.css").content_type == "text/css"
    assert lookup("https://unpkg.com/three@0.160.0/package.json").content_type == "application/json"
    assert lookup("https://unpkg.com/three@0.160.0/examples/fonts/helvetiker_regular.typeface.json").content_type \
        == "application/json"
    assert lookup("https://cdn.jsdelivr.net/npm/three@0.160.0/examples/jsm/libs/draco/draco_decoder.wasm").content_type \
        == "application/wasm"
    assert lookup("https://cdn.jsdelivr.net/npm/katex@0.16.22/dist/fonts/KaTeX_Main-Regular.woff2").content_type \
        == "font/woff2"


def test_results_are_cached(mirror):
    url = "https://unpkg.com/three@0.160.0/build/three.module.js"
    assert mirror.lookup(url) is mirror.lookup(url)
    assert mirror.lookup(url + "#frag") is mirror.lookup(url)
