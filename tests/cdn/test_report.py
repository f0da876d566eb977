"""URL extraction from pages and the hit report."""

import json

from cdn_fixtures import mirror  # noqa: F401  (pytest fixtures)

from webmend.cdn import report

PAGE = """<!DOCTYPE html><html><head>
<link rel="preconnect" href="https://fonts.googleapis.com">
<link href="https://fonts.googleapis.com/css2?family=Orbitron:wght@400;700&display=swap" rel="stylesheet">
<link rel="stylesheet" href="https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.5.1/css/all.min.css">
<script src="https://cdn.tailwindcss.com"></script>
<style>@import url('https://fonts.googleapis.com/css2?family=Press+Start+2P&display=swap');
body { background: url(https://images.example.com/bg.jpg); }
@font-face { font-family: X; src: url("https://fonts.gstatic.com/s/roboto/v30/abc.woff2"); }</style>
<script type="importmap">{"imports": {"three": "https://unpkg.com/three@0.160.0/build/three.module.js",
  "three/addons/": "https://unpkg.com/three@0.160.0/examples/jsm/"}}</script>
</head><body>
<script type="module">
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
const { gsap } = await import("https://esm.sh/gsap@3.12.5");
</script>
<script src="//cdn.jsdelivr.net/npm/chart.js"></script>
<script src="js/local.js"></script>
<script src="https://cdn.example.org/not-mirrored.js"></script>
</body></html>"""


def test_extract_urls():
    urls = report.extract_urls(PAGE)
    assert "https://fonts.googleapis.com" not in urls  # preconnect is not a fetch
    assert "https://images.example.com/bg.jpg" not in urls  # images are not CDN libraries
    assert "https://unpkg.com/three@0.160.0/examples/jsm/controls/OrbitControls.js" in urls
    assert "https://unpkg.com/three@0.160.0/build/three.module.js" in urls
    assert "https://unpkg.com/three@0.160.0/examples/jsm/" not in urls
    assert "https://esm.sh/gsap@3.12.5" in urls
    assert "https://cdn.jsdelivr.net/npm/chart.js" in urls
    assert "https://fonts.googleapis.com/css2?family=Press+Start+2P&display=swap" in urls
    assert "https://fonts.gstatic.com/s/roboto/v30/abc.woff2" in urls
    assert not any("local.js" in u for u in urls)


def test_hit_report_counts(mirror):
    urls = report.extract_urls(PAGE)
    rep = mirror.hit_report(urls)
    assert rep["total"] == len(urls)
    assert rep["misses"] == ["https://cdn.example.org/not-mirrored.js"]
    assert rep["hits"] == rep["total"] - 1 == rep["exact_hits"] + rep["substitutions"]
    assert 0.8 < rep["hit_rate"] < 1
    assert rep["misses_by_host"] == {"cdn.example.org": 1}
    assert rep["followed"]["misses"] == []  # FA webfonts, font files, module imports
    assert rep["followed"]["total"] > 5


def test_repeated_references_count_each_time(mirror):
    url = "https://cdn.jsdelivr.net/npm/chart.js"
    rep = mirror.hit_report([url, url, "https://example.com/x.js"], follow=False)
    assert (rep["total"], rep["hits"], rep["misses"]) == (3, 2, ["https://example.com/x.js"])


def test_report_cli(tmp_path, mirror, capsys):
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "a.html").write_text(PAGE)
    (tmp_path / "pages" / "notes.txt").write_text("https://cdn.example.org/ignored.js")
    assert report.main(["--dir", str(mirror.root), str(tmp_path / "pages")]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["files"] == 1 and out["mirror_hash"] == mirror.mirror_hash
    assert out["misses"] == ["https://cdn.example.org/not-mirrored.js"]
