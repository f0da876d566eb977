from webmend.cdn.urls import parse


def test_jsdelivr_forms():
    r = parse("https://cdn.jsdelivr.net/npm/three@0.160.0/examples/jsm/controls/OrbitControls.js")
    assert (r.package, r.spec, r.path, r.esm) == ("three", "0.160.0", "examples/jsm/controls/OrbitControls.js", False)
    r = parse("https://cdn.jsdelivr.net/npm/@fortawesome/fontawesome-free@6.4.0/css/all.min.css")
    assert (r.package, r.spec, r.path) == ("@fortawesome/fontawesome-free", "6.4.0", "css/all.min.css")
    r = parse("https://cdn.jsdelivr.net/npm/chart.js")
    assert (r.package, r.spec, r.path) == ("chart.js", "", "")
    r = parse("https://cdn.jsdelivr.net/npm/three@0.160.0/+esm")
    assert (r.package, r.path, r.esm) == ("three", "", True)
    r = parse("https://cdn.jsdelivr.net/gh/mrdoob/three.js@r128/build/three.min.js")
    assert (r.package, r.spec, r.path) == ("three", "r128", "build/three.min.js")


def test_unpkg_and_esm_sh():
    r = parse("https://unpkg.com/three@0.128.0/examples/jsm/controls/OrbitControls.js?module")
    assert r.esm and r.cdn == "unpkg"
    r = parse("https://esm.sh/three@0.160.0/examples/jsm/controls/OrbitControls.js?external=three")
    assert r.esm and r.externals == frozenset({"three"})
    r = parse("https://esm.sh/v135/react-dom@18.2.0/client?deps=react@18.2.0")
    assert (r.package, r.spec, r.path, r.deps) == ("react-dom", "18.2.0", "client", (("react", "18.2.0"),))
    r = parse("https://esm.sh/*@react-three/fiber@8")
    assert r.package == "@react-three/fiber" and "*" in r.externals


def test_cdnjs_names():
    r = parse("https://cdnjs.cloudflare.com/ajax/libs/three.js/r128/three.min.js")
    assert (r.package, r.spec, r.path, r.search) == ("three", "r128", "three.min.js", True)
    assert parse("https://cdnjs.cloudflare.com/ajax/libs/font-awesome/4.7.0/css/font-awesome.min.css").package == "font-awesome"
    assert parse("https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.4.0/css/all.min.css").package == "@fortawesome/fontawesome-free"
    assert parse("https://cdnjs.cloudflare.com/ajax/libs/p5.js/1.9.0/p5.min.js").package == "p5"
    assert parse("https://cdnjs.cloudflare.com/ajax/libs/unknown-lib/1.0.0/x.js") is None


def test_other_hosts():
    assert parse("https://cdn.plot.ly/plotly-latest.min.js").spec == "1.58.5"
    assert parse("https://code.jquery.com/jquery-3.6.0.slim.min.js").path == "dist/jquery.slim.min.js"
    assert parse("https://fonts.googleapis.com/css2?family=Inter").kind == "google-css"
    assert parse("https://cdn.tailwindcss.com/3.4.1?plugins=forms").kind == "tailwind-play"
    assert parse("https://example.com/three.js") is None
    assert parse("not a url") is None
