"""Tests for webmend.evaluate.static_facts."""

from __future__ import annotations

import json
import random

from webmend.evaluate.static_facts import (
    FACT_KEYS,
    SEMANTIC_TAGS,
    STATIC_FACTS_VERSION,
    static_facts,
)

REALISTIC = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
  <title>  Particle Playground  </title>
  <link rel="preconnect" href="https://fonts.googleapis.com">
  <link rel="stylesheet" href="https://fonts.googleapis.com/css2?family=Inter&display=swap">
  <link rel="icon" href="favicon.png">
  <script src="https://cdn.jsdelivr.net/npm/chart.js@4.4.0/dist/chart.umd.min.js"></script>
  <script type="importmap">
  {"imports": {"three": "https://unpkg.com/three@0.160.0/build/three.module.js"}}
  </script>
  <style>
    @import url('https://cdn.example.com/reset.css');
    body { font-family: Inter, sans-serif; background: url(bg.jpg); }
    @font-face { font-family: X; src: url("fonts/x.woff2"); }
    .logo { mask: url(data:image/svg+xml;base64,AAAA); }
  </style>
</head>
<body>
  <header><nav><a href="#main">Skip</a> <a href="https://example.com">Docs</a></nav></header>
  <main id="main">
    <section>
      <h1>Particles &amp; Charts</h1>
      <canvas id="scene" width="400" height="300"></canvas>
      <figure><img src="logo.svg" alt="Logo"><img src="data:image/png;base64,AAAA"></figure>
    </section>
    <section>
      <h2>Controls</h2>
      <form id="settings">
        <label for="count">Count</label>
        <input id="count" type="range" min="1" max="500">
        <input type="checkbox" id="trails">
        <input name="label">
        <select id="mode"><option>Orbit</option><option>Drift</option></select>
        <textarea id="notes"></textarea>
        <button type="button" onclick="reset()">Reset</button>
        <input type="submit" value="Save">
      </form>
      <div style="color: red">Warning</div>
    </section>
  </main>
  <footer><p>Made with care</p></footer>
  <script type="module">
    import * as THREE from 'three';
    import { helper } from './helpers.js';
    const renderer = new THREE.WebGLRenderer({ canvas: document.getElementById('scene') });
    const chart = new Chart(document.createElement('canvas'), {});
    function loop() { requestAnimationFrame(loop); }
    document.getElementById('count').addEventListener('input', () => localStorage.setItem('n', 1));
    window.addEventListener('resize', loop);
    setTimeout(loop, 100);
  </script>
</body>
</html>"""


def between(text: str, start: str, end: str) -> str:
    return text.split(start, 1)[1].split(end, 1)[0]


def test_realistic_page_exact_facts():
    importmap = between(REALISTIC, '<script type="importmap">', "</script>")
    module = between(REALISTIC, '<script type="module">', "</script>")
    css = between(REALISTIC, "<style>", "</style>")
    assert static_facts(REALISTIC) == {
        "size_bytes": len(REALISTIC.encode()),
        "line_count": 56,
        "doctype": True,
        "title": "Particle Playground",
        "has_viewport_meta": True,
        "lang": "en",
        "charset_declared": True,
        "semantic_tags": {
            "header": 1, "nav": 1, "main": 1, "section": 2, "article": 0, "aside": 0,
            "footer": 1, "figure": 1, "h1": 1, "h2": 1, "h3": 0, "button": 1,
            "label": 1, "form": 1,
        },  # fmt: skip
        "element_count": 40,
        "inline_style_attrs": 1,
        "style_blocks": 1,
        "stylesheet_links": 1,
        "css_bytes": len(css.encode()),
        "script_count": 3,
        "inline_script_bytes": len(importmap.encode()) + len(module.encode()),
        "module_scripts": 1,
        "has_importmap": True,
        "external_resources": [
            {"url": "./helpers.js", "kind": "script"},
            {"url": "bg.jpg", "kind": "img"},
            {"url": "favicon.png", "kind": "img"},
            {"url": "fonts/x.woff2", "kind": "font"},
            {"url": "https://cdn.example.com/reset.css", "kind": "stylesheet"},
            {"url": "https://cdn.jsdelivr.net/npm/chart.js@4.4.0/dist/chart.umd.min.js", "kind": "script"},
            {"url": "https://fonts.googleapis.com/css2?family=Inter&display=swap", "kind": "stylesheet"},
            {"url": "https://unpkg.com/three@0.160.0/build/three.module.js", "kind": "script"},
            {"url": "logo.svg", "kind": "img"},
        ],
        "uses_canvas": True,
        "uses_svg": False,
        "uses_webgl": True,
        "uses_raf": True,
        "uses_timers": True,
        "uses_storage": True,
        "uses_event_listeners": 2,
        "inline_event_handlers": 1,
        "input_kinds": {"checkbox": 1, "range": 1, "select": 1, "submit": 1, "text": 1, "textarea": 1},
        "buttons": 2,
        "links": 2,
        "images": 2,
        "images_without_alt": 1,
        "forms": 1,
        "headings": 2,
        "has_h1": True,
        # "Skip Docs Particles & Charts Controls Count OrbitDrift Reset Warning Made with care"
        "text_chars": 83,
        "libraries": ["chartjs", "google_fonts", "three"],
    }


def test_keys_order_version_and_json():
    facts = static_facts(REALISTIC)
    assert tuple(facts) == FACT_KEYS
    assert STATIC_FACTS_VERSION == 1
    assert json.loads(json.dumps(facts)) == facts
    assert static_facts(REALISTIC) == facts  # deterministic


def test_empty_input_has_all_keys_with_zero_values():
    facts = static_facts("")
    assert tuple(facts) == FACT_KEYS
    assert facts["size_bytes"] == 0 and facts["line_count"] == 0
    assert facts["title"] is None and facts["lang"] is None
    assert facts["semantic_tags"] == {tag: 0 for tag in SEMANTIC_TAGS}
    assert facts["external_resources"] == [] and facts["libraries"] == []
    assert facts["input_kinds"] == {}


def test_broken_html_is_parsed_without_errors():
    broken = "<div><p>Unclosed <b>bold <i>text</div><img src=a.png alt><![if !IE]><!x [ <title>t"
    facts = static_facts(broken)
    assert facts["element_count"] == 5
    assert facts["images"] == 1 and facts["images_without_alt"] == 0
    # "<!x [ <title>" is a bogus comment (as in browsers); the final "t" is text.
    assert facts["text_chars"] == len("Unclosed bold textt")


def test_truncated_page_keeps_unclosed_script_text():
    facts = static_facts("<body><script>let t = setInterval(tick, 16); function tick() {")
    assert facts["script_count"] == 1
    assert facts["inline_script_bytes"] == len("let t = setInterval(tick, 16); function tick() {")
    assert facts["uses_timers"] is True


def test_webgl_svg_and_canvas_from_code():
    page = """<script>
      const gl = document.querySelector('canvas').getContext('webgl2');
      const ns = 'http://www.w3.org/2000/svg';
      const el = document.createElementNS(ns, 'circle');
      indexedDB.open('db');
    </script>"""
    facts = static_facts(page)
    assert facts["uses_webgl"] and facts["uses_svg"] and facts["uses_canvas"]
    assert facts["uses_storage"] and not facts["uses_raf"]
    assert facts["uses_event_listeners"] == 0


def test_svg_tag_and_experimental_webgl():
    facts = static_facts("<svg viewBox='0 0 10 10'><circle r=5 /></svg><script>c.getContext(\"experimental-webgl\")</script>")
    assert facts["uses_svg"] and facts["uses_webgl"]


def test_libraries_from_urls_and_code():
    page = """<html><head>
      <script src="https://cdn.tailwindcss.com"></script>
      <link rel="stylesheet" href="https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.5.0/css/all.min.css">
      <script src="https://code.jquery.com/jquery-3.7.1.min.js"></script>
      <script src="https://cdn.plot.ly/plotly-2.27.0.min.js"></script>
      <script src="https://cdnjs.cloudflare.com/ajax/libs/animejs/3.2.1/anime.min.js"></script>
      <script src="https://cdn.jsdelivr.net/npm/echarts@5/dist/echarts.min.js"></script>
    </head><body><script>
      gsap.to('.box', { x: 100 });
      d3.select('body').append('svg');
      new p5((s) => {});
      $(document).ready(() => {});
    </script></body></html>"""
    assert static_facts(page)["libraries"] == [
        "anime", "d3", "echarts", "fontawesome", "gsap", "jquery", "p5", "plotly", "tailwind",
    ]  # fmt: skip


def test_resource_kinds_for_elements():
    page = """
      <iframe src="https://www.youtube.com/embed/x"></iframe>
      <video src="clip.mp4" poster="poster.jpg"><track src="subs.vtt"></video>
      <audio><source src="song.mp3"></audio>
      <picture><source srcset="a.webp 1x, b.webp 2x"><img src="a.png" alt=""></picture>
      <link rel="preload" href="f.woff2" as="font">
      <link rel="modulepreload" href="m.js">
      <link rel="canonical" href="https://example.com/">
      <a href="page2.html">next</a>
      <object data="doc.pdf"></object>
      <div style="background-image: url('tile.png')"></div>
      <script>import('https://esm.sh/confetti'); fetch('ignored.json');</script>
    """
    kinds = {(r["url"], r["kind"]) for r in static_facts(page)["external_resources"]}
    assert kinds == {
        ("https://www.youtube.com/embed/x", "iframe"),
        ("clip.mp4", "media"),
        ("poster.jpg", "img"),
        ("subs.vtt", "media"),
        ("song.mp3", "media"),
        ("a.webp", "img"),
        ("b.webp", "img"),
        ("a.png", "img"),
        ("f.woff2", "font"),
        ("m.js", "script"),
        ("doc.pdf", "other"),
        ("tile.png", "img"),
        ("https://esm.sh/confetti", "script"),
    }


def test_resources_are_sorted_and_deduplicated():
    page = '<script src="b.js"></script><script src="a.js"></script><script src="b.js"></script>'
    assert static_facts(page)["external_resources"] == [
        {"url": "a.js", "kind": "script"},
        {"url": "b.js", "kind": "script"},
    ]


def test_inputs_buttons_headings_and_text():
    page = """<h2>Title</h2><h4>Sub</h4>
      <input><input type="TEXT"><input type="reset"><input type="button" value="Go">
      <button>One</button>
      <script>hidden()</script><style>.x{}</style><template><p>not shown</p></template>
      <p>  spaced     out   text </p>"""
    facts = static_facts(page)
    assert facts["input_kinds"] == {"button": 1, "reset": 1, "text": 2}
    assert facts["buttons"] == 3
    assert facts["headings"] == 2 and facts["has_h1"] is False
    # Text nodes are joined as written: no whitespace between </h2><h4>.
    assert facts["text_chars"] == len("TitleSub One spaced out text")


def test_meta_variants_and_blank_title():
    page = """<html LANG=" fr "><head>
      <meta http-equiv="Content-Type" content="text/html; charset=utf-8">
      <title>   </title></head><body onload="init()"><p onclick='a()' ONMOUSEOVER="b()">x</p></body></html>"""
    facts = static_facts(page)
    assert facts["charset_declared"] is True
    assert facts["has_viewport_meta"] is False
    assert facts["lang"] == "fr"
    assert facts["title"] is None
    assert facts["inline_event_handlers"] == 3
    assert facts["doctype"] is False


def test_invalid_importmap_is_ignored():
    facts = static_facts('<script type="importmap">{not json</script><script type="module">import "./x.js"</script>')
    assert facts["has_importmap"] is True
    assert facts["external_resources"] == [{"url": "./x.js", "kind": "script"}]


def test_fuzz_never_raises_and_keys_are_stable():
    tokens = [
        "<", ">", "</", "<!", "<![", "<!--", "-->", "<!DOCTYPE html>", "<html>", "<script>",
        "</script>", "<style>", "</style>", "<title>", "<img src=x>", "<a href=", "=", "'", '"',
        "url(", "@import '", "import x from 'http://a/b.js';", "<![CDATA[", "]]>", "<?xml", "?>",
        "&amp;", "&#", "\x00", "\ud800", "日", "<input type=", "onclick=", " ", "\n",
        '<script type="importmap">{"imports":', "<meta charset=",
    ]  # fmt: skip
    rng = random.Random(5)
    for _ in range(2000):
        page = "".join(rng.choice(tokens) for _ in range(rng.randrange(0, 40)))
        facts = static_facts(page)
        assert tuple(facts) == FACT_KEYS
        json.dumps(facts)


def test_an_identical_page_is_parsed_once_and_callers_get_their_own_copy():
    from webmend.evaluate.static_facts import _static_facts_memo

    html = "<!doctype html><html lang=en><title>memo</title><script>let memoProbe = 1</script></html>"
    first = static_facts(html)
    hits = _static_facts_memo.cache_info().hits
    first["title"] = "changed by a caller"
    again = static_facts(html)
    assert _static_facts_memo.cache_info().hits == hits + 1
    assert again["title"] == "memo"
