"""versions.json coverage and the install manifest / mirror_hash."""

import json

import pytest
from cdn_fixtures import mirror  # noqa: F401  (pytest fixtures)

from webmend.cdn import install
from webmend.cdn.install import compute_mirror_hash, read_manifest, versions_text


def _versions() -> dict:
    return json.loads(versions_text())


def test_versions_json_shape():
    versions = _versions()
    assert all(spec.startswith("npm:") and "@" in spec[5:] for spec in versions.values())
    names = {spec[4:].rsplit("@", 1)[0] for spec in versions.values()}
    for required in ("three", "chart.js", "d3", "gsap", "p5", "animejs", "plotly.js-dist-min", "echarts",
                     "@fortawesome/fontawesome-free", "@tailwindcss/browser", "@fontsource/inter",
                     "@fontsource/press-start-2p", "@fontsource/jetbrains-mono", "@fontsource/space-grotesk"):
        assert required in names, required
    three = [spec for spec in versions.values() if spec.startswith("npm:three@")]
    assert len(three) >= 6


def test_mirror_hash_is_order_independent_and_content_sensitive():
    a = compute_mirror_hash("{}", ["b@1", "a@2"])
    assert a == compute_mirror_hash("{}", ["a@2", "b@1"])
    assert a != compute_mirror_hash("{ }", ["a@2", "b@1"])
    assert a != compute_mirror_hash("{}", ["a@2", "b@2"])


def test_installed_manifest_matches_versions_json(mirror):
    manifest = read_manifest(mirror.root)
    assert manifest["versions_sha256"] == install.versions_sha256(), \
        "mirror is stale: run python -m webmend.cdn.install"
    assert manifest["mirror_hash"] == compute_mirror_hash(versions_text(), manifest["installed"])
    assert mirror.mirror_hash == manifest["mirror_hash"]
    aliases = {p["alias"] for p in manifest["packages"] if p["alias"]}
    assert aliases == set(_versions())


def test_mirror_hash_is_stable_across_loads(mirror):
    from webmend.cdn.resolver import CdnMirror
    assert CdnMirror(mirror.root).mirror_hash == mirror.mirror_hash


def test_install_is_skipped_when_current(mirror, monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("npm must not run for a current mirror")
    monkeypatch.setattr(install.subprocess, "run", boom)
    assert install.install(mirror.root)["mirror_hash"] == mirror.mirror_hash


def test_missing_mirror_error_has_hint(tmp_path):
    from webmend.cdn.resolver import CdnMirror
    with pytest.raises(FileNotFoundError, match="webmend.cdn.install"):
        CdnMirror(tmp_path)


def test_default_dir_honours_env(monkeypatch, tmp_path):
    monkeypatch.setenv("WEBMEND_CDN_DIR", str(tmp_path))
    assert install.default_dir() == tmp_path
    monkeypatch.delenv("WEBMEND_CDN_DIR")
    assert install.default_dir().parts[-3:] == (".cache", "webmend", "cdn")
