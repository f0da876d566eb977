"""No URL may read outside the mirror directory."""

import pytest
from cdn_fixtures import mirror  # noqa: F401  (pytest fixtures)

from webmend.cdn.packages import clean_relpath

ATTACKS = [
    "https://unpkg.com/three@0.160.0/../../../../etc/passwd",
    "https://unpkg.com/three@0.160.0/%2e%2e/%2e%2e/mirror.json",
    "https://unpkg.com/three@0.160.0/build/%2E%2E%2F%2E%2E%2F..%2Fpackage.json",
    "https://cdn.jsdelivr.net/npm/three@0.160.0/build/..%2f..%2fthree-0.128.0/package.json",
    "https://cdn.jsdelivr.net/npm/three@0.160.0/..%5c..%5cmirror.json",
    "https://cdn.jsdelivr.net/npm/three@0.160.0/%2fetc%2fpasswd",
    "https://cdnjs.cloudflare.com/ajax/libs/three.js/r128/..%2F..%2F..%2Fmirror.json",
    "https://fonts.gstatic.com/webmend/@fontsource/inter/../../../mirror.json",
    "https://fonts.gstatic.com/webmend/@fontsource/inter/files/%2e%2e/%2e%2e/%2e%2e/package.json",
    "https://esm.sh/three@0.160.0/%2e%2e/%2e%2e/mirror.json",
    "https://unpkg.com/three@0.160.0/build/three.module.js%00.css",
    "https://cdn.jsdelivr.net/npm/..%2f..%2f..%2fetc@1/passwd",
]


@pytest.mark.parametrize("url", ATTACKS)
def test_traversal_is_refused(mirror, url):
    served = mirror.lookup(url)
    if served is not None:  # only acceptable if it is a genuine file of the package
        assert ".." not in served.path and not served.path.startswith("/")
        assert b"root:" not in served.body and b"mirror_hash" not in served.body


def test_clean_relpath():
    assert clean_relpath("a/./b//c.js") == "a/b/c.js"
    assert clean_relpath("a/../b") is None
    assert clean_relpath("..") is None
    assert clean_relpath("a\\..\\b") is None
    assert clean_relpath("a\x00b") is None
