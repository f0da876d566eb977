"""CDN URL -> Request: which package, version spec and file a URL asks for.

Only syntax lives here; whether the mirror has it is decided by resolver.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import parse_qs, unquote, urlsplit


@dataclass(frozen=True)
class Request:
    kind: str                 # npm | google-css | gstatic | tailwind-play | fa-kit
    package: str = ""
    spec: str = ""            # version / range / tag as written ("" = none)
    path: str = ""            # file inside the package; "" = package entry
    cdn: str = ""             # which CDN's entry-point rules apply
    esm: bool = False         # serve an ES module with rewritten imports
    search: bool = False      # CDN layout differs from npm: find file by name
    note: str | None = None   # substitution implied by the URL mapping itself
    externals: frozenset = frozenset()   # esm.sh ?external= / "*" prefix
    deps: tuple = ()          # esm.sh ?deps=a@1,b@2 as ((name, spec), ...)
    query: dict = field(default_factory=dict, compare=False, hash=False)


# cdnjs / ajax.googleapis library names -> npm package names.
LIB_NAMES = {
    "three.js": "three", "threejs": "three", "chart.js": "chart.js", "d3": "d3", "d3js": "d3",
    "gsap": "gsap", "p5.js": "p5", "animejs": "animejs", "anime.js": "animejs",
    "plotly.js": "plotly.js-dist-min", "echarts": "echarts", "font-awesome": "@fortawesome/fontawesome-free",
    "lodash.js": "lodash", "lodash": "lodash", "jquery": "jquery", "matter-js": "matter-js", "tone": "tone",
    "howler": "howler", "react": "react", "react-dom": "react-dom", "babel-standalone": "@babel/standalone",
    "vue": "vue", "alpinejs": "alpinejs", "canvas-confetti": "canvas-confetti", "lil-gui": "lil-gui",
    "dat-gui": "dat.gui", "stats.js": "stats.js", "cannon.js": "cannon", "cannon-es": "cannon-es",
    "tween.js": "@tweenjs/tween.js", "twitter-bootstrap": "bootstrap", "bootstrap": "bootstrap",
    "bootstrap-icons": "bootstrap-icons", "marked": "marked", "katex": "katex", "simplex-noise": "simplex-noise",
    "phaser": "phaser",
}

_NAME_SPEC = re.compile(r"^(@[^/@]+/[^/@]+|[^/@]+)(?:@([^/]*))?(?:/(.*))?$")


def _split_pkg(rest: str):
    """'@scope/name@spec/file/path' -> (name, spec, path) or None."""
    m = _NAME_SPEC.match(rest)
    if not m:
        return None
    return m.group(1), unquote(m.group(2) or ""), m.group(3) or ""


def _lib_package(lib: str, version: str) -> str | None:
    lib = lib.lower()
    if lib == "font-awesome" and version.lstrip("v").startswith("4."):
        return "font-awesome"  # FA 4 is a different npm package
    return LIB_NAMES.get(lib)


def parse(url: str) -> Request | None:
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    path = unquote(parts.path)
    query = parse_qs(parts.query, keep_blank_values=True)
    handler = _HOSTS.get(host)
    if handler is None and host.endswith(".jsdelivr.net"):
        handler = _jsdelivr
    if handler is None:
        return None
    return handler(path, query, parts.query)


def _jsdelivr(path, query, raw_query):
    esm = path.endswith("/+esm")
    if esm:
        path = path[: -len("/+esm")]
    if path.startswith("/gh/mrdoob/three.js@"):  # GitHub mirror of three: tags are rNNN
        m = re.match(r"^/gh/mrdoob/three\.js@([^/]+)/(.*)$", path)
        if m:
            return Request("npm", "three", m.group(1), m.group(2), cdn="jsdelivr", esm=esm)
        return None
    if not path.startswith("/npm/"):
        return None
    split = _split_pkg(path[len("/npm/"):])
    if not split:
        return None
    name, spec, file = split
    return Request("npm", name, spec, file.rstrip("/"), cdn="jsdelivr", esm=esm)


def _unpkg(path, query, raw_query):
    split = _split_pkg(path.lstrip("/"))
    if not split:
        return None
    name, spec, file = split
    return Request("npm", name, spec, file.rstrip("/"), cdn="unpkg", esm="module" in query)


def _esm_sh(path, query, raw_query, cdn="esm.sh"):
    rest = re.sub(r"^/(?:v\d+|stable)/", "/", path).lstrip("/")
    externals = set()
    if rest.startswith("*"):  # esm.sh: "*pkg" marks every dependency external
        rest, externals = rest[1:], {"*"}
    for ext in query.get("external", []):
        externals.update(e for e in ext.split(",") if e)
    deps = []
    for d in query.get("deps", []):
        for item in d.split(","):
            if s := _split_pkg(item):
                deps.append((s[0], s[1]))
    split = _split_pkg(rest)
    if not split:
        return None
    name, spec, file = split
    return Request("npm", name, spec, file.rstrip("/"), cdn=cdn, esm=True,
                   externals=frozenset(externals), deps=tuple(deps))


def _skypack(path, query, raw_query):
    if path.startswith(("/-/", "/new/", "/error/")):
        return None
    return _esm_sh(path, query, raw_query, cdn="skypack")


def _jspm(path, query, raw_query):
    if not path.startswith("/npm:"):
        return None
    split = _split_pkg(path[len("/npm:"):])
    return Request("npm", *split, cdn="jspm") if split else None


def _cdnjs(path, query, raw_query):
    m = re.match(r"^/ajax/libs/([^/]+)/([^/]+)/(.+)$", path)
    if not m:
        return None
    lib, version, file = m.groups()
    pkg = _lib_package(lib, version)
    if not pkg:
        return None
    return Request("npm", pkg, version, file, cdn="cdnjs", search=True)


def _plotly(path, query, raw_query):
    m = re.match(r"^/plotly(?:-[a-z]+)??-?(latest|\d+\.\d+\.\d+)?(?:\.min)?\.js$", path)
    if not m:
        return None
    version = m.group(1) or "latest"
    # cdn.plot.ly froze plotly-latest at v1.58.5 in 2021.
    spec = "1.58.5" if version == "latest" else version
    note = None if re.match(r"^/plotly-(latest|\d+\.\d+\.\d+)\.min\.js$", path) else f"{path.lstrip('/')} served as the full minified bundle"
    return Request("npm", "plotly.js-dist-min", spec, "plotly.min.js", cdn="plotly", note=note)


def _code_jquery(path, query, raw_query):
    m = re.match(r"^/jquery(?:-(\d+\.\d+\.\d+|latest))?((?:\.slim)?(?:\.min)?\.js)$", path)
    if not m:
        return None
    spec = "" if m.group(1) in (None, "latest") else m.group(1)
    return Request("npm", "jquery", spec, "dist/jquery" + m.group(2), cdn="code.jquery")


def _d3js_org(path, query, raw_query):
    m = re.match(r"^/d3(?:\.v(\d+))?(\.min)?\.js$", path)
    if not m:
        return None
    return Request("npm", "d3", m.group(1) or "", "dist/d3" + (m.group(2) or "") + ".js", cdn="d3js.org")


def _threejs_org(path, query, raw_query):
    if path.startswith(("/build/", "/examples/")):
        return Request("npm", "three", "", path.lstrip("/"), cdn="threejs.org")
    return None


def _bootstrapcdn(path, query, raw_query):
    m = re.match(r"^/(font-awesome|bootstrap|twitter-bootstrap)/([^/]+)/(.+)$", path)
    if not m:
        return None
    pkg = _lib_package(m.group(1), m.group(2))
    return Request("npm", pkg, m.group(2), m.group(3), cdn="bootstrapcdn", search=True) if pkg else None


def _use_fontawesome(path, query, raw_query):
    m = re.match(r"^/releases/v?([^/]+)/(.+)$", path)
    if not m:
        return None
    pkg = _lib_package("font-awesome", m.group(1))
    return Request("npm", pkg, m.group(1), m.group(2), cdn="use.fontawesome")


def _kit_fontawesome(path, query, raw_query):
    if not path.endswith(".js"):
        return None
    return Request("fa-kit", "@fortawesome/fontawesome-free", "", "js/all.min.js", cdn="fa-kit",
                   note="Font Awesome kit script replaced by fontawesome-free js/all.min.js (free icons only)")


def _google_css(path, query, raw_query):
    if path not in ("/css", "/css2", "/icon"):
        return None
    return Request("google-css", path=path.lstrip("/"), query=query)


def _gstatic(path, query, raw_query):
    return Request("gstatic", path=path.lstrip("/"))


def _tailwind(path, query, raw_query):
    m = re.match(r"^/(\d[^/]*)?", path)
    return Request("tailwind-play", "@tailwindcss/browser", "", "", cdn="tailwind-play",
                   query={"v3": m.group(1) if m and m.group(1) else "", "plugins": query.get("plugins", [""])[0]})


def _esm_run(path, query, raw_query):  # esm.run/pkg == cdn.jsdelivr.net/npm/pkg/+esm
    split = _split_pkg(path.lstrip("/"))
    return Request("npm", *split, cdn="jsdelivr", esm=True) if split else None


_HOSTS = {
    "cdn.jsdelivr.net": _jsdelivr,
    "unpkg.com": _unpkg, "www.unpkg.com": _unpkg, "npmcdn.com": _unpkg,
    "esm.sh": _esm_sh, "cdn.esm.sh": _esm_sh, "esm.run": _esm_run,
    "cdn.skypack.dev": _skypack,
    "ga.jspm.io": _jspm,
    "cdnjs.cloudflare.com": _cdnjs, "ajax.googleapis.com": _cdnjs,
    "cdn.plot.ly": _plotly,
    "code.jquery.com": _code_jquery,
    "threejs.org": _threejs_org,
    "d3js.org": _d3js_org,
    "maxcdn.bootstrapcdn.com": _bootstrapcdn, "stackpath.bootstrapcdn.com": _bootstrapcdn,
    "netdna.bootstrapcdn.com": _bootstrapcdn,
    "use.fontawesome.com": _use_fontawesome, "kit.fontawesome.com": _kit_fontawesome,
    "fonts.googleapis.com": _google_css,
    "fonts.gstatic.com": _gstatic,
    "cdn.tailwindcss.com": _tailwind,
}


CDN_HOSTS = frozenset(_HOSTS)
