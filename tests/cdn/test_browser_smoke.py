"""End-to-end: pages load their CDN libraries from the mirror in Chromium.

Skipped when no Chromium is available (Playwright's bundled one or a system
chromium). Checks what a URL table cannot: that rewritten ES modules link,
one THREE instance is shared, the tailwind.config shim works, fonts load.
"""

import shutil

import pytest
from cdn_fixtures import mirror  # noqa: F401  (pytest fixtures)

sync_api = pytest.importorskip("playwright.sync_api")

PAGES = {
    "importmap_three": ("""<script type="importmap">{"imports":{"three":"https://unpkg.com/three@0.160.0/build/three.module.js",
"three/addons/":"https://unpkg.com/three@0.160.0/examples/jsm/"}}</script><script type="module">
import * as THREE from 'three'; import {OrbitControls} from 'three/addons/controls/OrbitControls.js';
const o = new OrbitControls(new THREE.PerspectiveCamera(), document.body);
window.result = THREE.REVISION + ':' + typeof o.update;</script>""", "160:function"),
    "esm_single_three": ("""<script type="module">
import * as A from 'https://cdn.jsdelivr.net/npm/three@0.160.0/+esm';
import * as B from 'https://esm.sh/three@0.160';
import {OrbitControls} from 'https://esm.sh/three@0.160.0/examples/jsm/controls/OrbitControls.js';
window.result = (A.Vector3 === B.Vector3) + ':' + typeof OrbitControls;</script>""", "true:function"),
    "esm_react": ("""<div id=root></div><script type="module">
import React, {useState} from 'https://esm.sh/react@18.2.0';
import {createRoot} from 'https://esm.sh/react-dom@18.2.0/client';
function App() { const [n] = useState(7); return React.createElement('b', null, 'n=' + n); }
createRoot(document.getElementById('root')).render(React.createElement(App));
setTimeout(() => { window.result = document.getElementById('root').textContent; }, 200);</script>""", "n=7"),
    "tailwind_v3_config": ("""<script src="https://cdn.tailwindcss.com"></script>
<script>tailwind.config = {theme: {extend: {colors: {primary: '#ff0000'}}}}</script>
<div id=a class="bg-primary p-4">x</div><script>setTimeout(() => { const s = getComputedStyle(document.getElementById('a'));
window.result = s.backgroundColor + '|' + s.padding; }, 800)</script>""", "rgb(255, 0, 0)|16px"),
    "fonts": ("""<link href="https://fonts.googleapis.com/css2?family=Inter:wght@700&display=swap" rel="stylesheet">
<link rel="stylesheet" href="https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.4.0/css/all.min.css">
<p style="font-family:Inter;font-weight:700">Hello</p><i class="fa-solid fa-star"></i>
<script>document.fonts.ready.then(() => { window.result = [document.fonts.check('700 16px Inter'),
document.fonts.check('900 16px "Font Awesome 6 Free"')].join(','); })</script>""", "true,true"),
    # A family the mirror lacks loads a substitute's files under the requested name.
    "font_substitute": ("""<link href="https://fonts.googleapis.com/css2?family=Totally+Made+Up+Font:wght@700&display=swap"
rel="stylesheet"><p style="font-family:'Totally Made Up Font';font-weight:700">Hello</p>
<script>document.fonts.load('700 16px "Totally Made Up Font"', 'Hello').then(faces => {
window.result = faces.map(f => f.family.replace(/"/g, '') + ':' + f.weight + ':' + f.status).join(','); })</script>""",
                        "Totally Made Up Font:700:loaded"),
    "classic_globals": ("""<script src="https://cdnjs.cloudflare.com/ajax/libs/three.js/r128/three.min.js"></script>
<script src="https://cdn.jsdelivr.net/npm/three@0.128.0/examples/js/controls/OrbitControls.js"></script>
<script src="https://cdn.jsdelivr.net/npm/chart.js"></script>
<script src="https://cdnjs.cloudflare.com/ajax/libs/gsap/3.12.2/gsap.min.js"></script>
<script>window.result = [THREE.REVISION, typeof THREE.OrbitControls, typeof Chart, typeof gsap].join(',')</script>""",
                        "128,function,function,object"),
}


def _launch(p):
    try:
        return p.chromium.launch()
    except Exception:
        exe = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
        if not exe:
            pytest.skip("no Chromium available")
        return p.chromium.launch(executable_path=exe, args=["--no-sandbox"])


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = _launch(p)
        yield b
        b.close()


@pytest.mark.parametrize("name", list(PAGES))
def test_page_loads_libraries_offline(browser, mirror, name):
    html, expected = PAGES[name]
    misses: list[str] = []
    errors: list[str] = []

    def handle(route, request):
        url = request.url
        if url == "http://page.test/":
            return route.fulfill(body=html, content_type="text/html")
        served = mirror.lookup(url)
        if served is None:
            misses.append(url)
            return route.abort()
        return route.fulfill(body=served.body, headers=served.headers())

    ctx = browser.new_context()
    try:
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.route("**/*", handle)
        page.goto("http://page.test/", wait_until="commit")
        page.wait_for_function("window.result !== undefined", timeout=30_000)
        assert page.evaluate("window.result") == expected, (misses, errors)
        assert not misses and not errors
    finally:
        ctx.close()
