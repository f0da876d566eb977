"""cdn_version_served, without a browser.

No page can show this defect with the current mirror: `CdnMirror` answers a missing version with
the nearest installed one and, for a file the picked version lacks, tries every installed
version, so a URL that misses under its own version misses under all of them. The rewrite is
therefore shown against a stand-in mirror with the same interface (`index.has`,
`index.versions`, `lookup`), and the real mirror is used to show that the detector stays quiet.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from repair_op_cases import diag

from webmend.repair.operators.cdn import CDN_VERSION, default_mirror, detect_with, rewrite_for


class StandInMirror:
    def __init__(self, versions: dict[str, list[str]], served: set[str]):
        self.index = SimpleNamespace(has=lambda n: n in versions, versions=lambda n: list(versions.get(n, [])))
        self.served, self.asked = served, []

    def lookup(self, url):
        self.asked.append(url)
        return SimpleNamespace(package="pkg") if url in self.served else None


CHART = "https://cdn.jsdelivr.net/npm/chart.js@4.4.1/dist/chart.umd.js"
PAGE = f'<html><head><script src="{CHART}"></script><script src="{CHART}?v=2"></script></head><body></body></html>'


def test_rewrites_the_version_segment_to_the_nearest_served_version():
    mirror = StandInMirror({"chart.js": ["3.9.1", "4.4.7", "4.4.0"]},
                           {CHART.replace("4.4.1", "4.4.7"), CHART.replace("4.4.1", "4.4.0")})
    f = detect_with(mirror, diag(cdn_misses=[CHART]), PAGE)
    assert f == {"rewrites": [{"url": CHART, "new_url": CHART.replace("4.4.1", "4.4.0"), "package": "chart.js",
                               "from": "4.4.1", "to": "4.4.0"}]}
    out = CDN_VERSION.apply(PAGE, f)
    assert out == PAGE.replace("chart.js@4.4.1/", "chart.js@4.4.0/")  # both references, nothing else
    assert detect_with(mirror, diag(cdn_misses=[]), out) is None


@pytest.mark.parametrize("url, versions, new", [
    ("https://cdnjs.cloudflare.com/ajax/libs/three.js/r150/three.min.js", ["0.147.0", "0.160.0"],
     "https://cdnjs.cloudflare.com/ajax/libs/three.js/r147/three.min.js"),  # an r-number stays one
    ("https://code.jquery.com/jquery-3.6.9.min.js", ["3.7.1"], "https://code.jquery.com/jquery-3.7.1.min.js"),
    ("https://unpkg.com/gsap@v3.99.0/dist/gsap.min.js", ["3.12.5"], "https://unpkg.com/gsap@v3.12.5/dist/gsap.min.js"),
])
def test_keeps_how_the_page_wrote_its_version(url, versions, new):
    package = {"three.js": "three", "jquery": "jquery", "gsap": "gsap"}[next(k for k in ("three.js", "jquery", "gsap") if k in url)]
    mirror = StandInMirror({package: versions}, {new})
    assert rewrite_for(mirror, url)["new_url"] == new


def test_stays_quiet_without_a_served_version_or_a_reference_in_the_page():
    mirror = StandInMirror({"chart.js": ["4.4.7"]}, set())
    assert detect_with(mirror, diag(cdn_misses=[CHART]), PAGE) is None  # no version serves it
    lacking = "https://cdn.jsdelivr.net/npm/left-pad@1.3.0/index.js"
    assert detect_with(mirror, diag(cdn_misses=[lacking]), f'<script src="{lacking}"></script>') is None
    assert mirror.asked == [CHART.replace("4.4.1", "4.4.7")]  # a package the mirror lacks is not even tried
    served = StandInMirror({"chart.js": ["4.4.7"]}, {CHART.replace("4.4.1", "4.4.7")})
    assert detect_with(served, diag(cdn_misses=[CHART]), "<html><body>no reference</body></html>") is None
    assert detect_with(None, diag(cdn_misses=[CHART]), PAGE) is None  # no mirror installed


def test_real_mirror_misses_are_not_version_misses():
    mirror = default_mirror()
    if mirror is None:
        pytest.skip("CDN mirror not installed")
    # vue 2's dist/vue.js: the mirror has vue, but no installed version has this file.
    assert rewrite_for(mirror, "https://unpkg.com/vue@2.7.14/dist/vue.js") is None
    assert rewrite_for(mirror, "https://cdn.jsdelivr.net/npm/left-pad@1.3.0/index.js") is None  # not mirrored
    assert rewrite_for(mirror, "https://example.com/lib@1.0.0/x.js") is None  # not a CDN URL
