"""ES-module CDNs: esm.sh, jsdelivr /+esm, unpkg ?module, skypack."""

import re

from cdn_fixtures import lookup, mirror  # noqa: F401  (pytest fixtures)

from webmend.cdn.esm import is_esm


def _imports(body: bytes) -> list[str]:
    return re.findall(r"""(?:from|import)\s*\(?\s*["']([^"']+)["']""", body.decode())


def test_esm_sh_entry_is_the_module_build(lookup):
    served = lookup("https://esm.sh/three@0.160.0")
    assert served.path == "build/three.module.js" and served.content_type == "application/javascript"
    assert is_esm(served.body.decode())


def test_bare_imports_rewritten_to_canonical_urls(lookup):
    served = lookup("https://esm.sh/three@0.160.0/examples/jsm/controls/OrbitControls.js")
    assert _imports(served.body) == ["https://esm.sh/three@0.160.0"]  # same version as the addon
    d3 = lookup("https://esm.sh/d3@7.9.0")
    assert d3.path == "src/index.js"
    assert all(u.startswith("https://esm.sh/d3-") and "@" in u for u in _imports(d3.body))


def test_relative_imports_of_old_addons_point_at_entry(lookup):
    # r128 addons import '../../../build/three.module.js'; it must be the same
    # module URL as a bare 'three' import, or the page gets two THREEs.
    served = lookup("https://esm.sh/three@0.128.0/examples/jsm/controls/OrbitControls.js")
    assert _imports(served.body) == ["https://esm.sh/three@0.128.0"]


def test_non_canonical_urls_get_reexport_stubs(lookup):
    for url in ("https://cdn.jsdelivr.net/npm/three@0.160.0/+esm",
                "https://unpkg.com/three@0.160.0?module",
                "https://cdn.skypack.dev/three@0.160.0",
                "https://esm.sh/three@0.160"):
        served = lookup(url)
        assert served.body.decode().strip() == 'export * from "https://esm.sh/three@0.160.0";', url


def test_addons_subpath_via_exports(lookup):
    served = lookup("https://esm.sh/three@0.187.0/addons/controls/OrbitControls.js")
    assert served.path == "examples/jsm/controls/OrbitControls.js"
    assert "https://esm.sh/three@0.187.0/examples/jsm/controls/OrbitControls.js" in served.body.decode()


def test_external_query_keeps_bare_specifier(lookup):
    served = lookup("https://esm.sh/three@0.160.0/examples/jsm/controls/OrbitControls.js?external=three")
    assert _imports(served.body) == ["three"]


def test_commonjs_packages_are_wrapped_with_named_exports(lookup):
    body = lookup("https://esm.sh/react@18.3.1").body.decode()
    assert "export default" in body
    assert re.search(r"export \{ __wx\d+ as useState \}", body)
    assert "https://esm.sh/react@18.3.1/cjs/react.production.min.js" in body
    stub = lookup("https://esm.sh/react-dom@18.3.1/client").body.decode()
    assert 'export * from "https://esm.sh/react-dom@18.3.1/client.js"' in stub
    client = lookup("https://esm.sh/react-dom@18.3.1/client.js").body.decode()
    assert "as createRoot }" in client


def test_esm_version_substitution(lookup):
    served = lookup("https://esm.sh/react-dom@18.2.0/client")
    assert served.served == "18.3.1" and "nearest" in served.substitution


def test_lodash_served_as_lodash_es(lookup):
    served = lookup("https://esm.sh/lodash@4.17.21")
    assert served.package == "lodash-es" and "lodash-es" in served.substitution


def test_chart_auto_subpath(lookup):
    served = lookup("https://esm.sh/chart.js@4.4.7/auto")
    assert served.path == "auto/auto.js"


def test_is_esm_heuristic():
    assert is_esm("import x from 'y';")
    assert is_esm("const a=1;export{a as b};")
    assert not is_esm("exports.foo = 1; module.exports = require('./x');")
    assert not is_esm("(function(){ var x = import('./lazy.js'); })()")
