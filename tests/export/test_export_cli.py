"""`webmend export` and `webmend manifest verify` from the command line, bad arguments included."""

from __future__ import annotations

import json

import pytest
from export_fixtures import traced_root

from webmend.cli import main


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return traced_root(tmp_path_factory)


def test_export_then_verify(root, tmp_path, capsys):
    data, bench = root
    argv = ["export", "--data-root", str(data), "--out", str(tmp_path), "--routes", "refined", "--benchmark", str(bench)]
    assert main(argv) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["status"] == "exported" and set(printed["rows"]) == {
        "webmend_refined_sharegpt", "webmend_refined_alpaca", "webmend_refined_preference"}
    assert main(["manifest", "verify", printed["manifest"]]) == 0
    assert "verified" in capsys.readouterr().out
    assert main(argv) == 0 and json.loads(capsys.readouterr().out)["status"] == "unchanged"
    assert json.loads((tmp_path / "LATEST.json").read_text())["version"] == printed["version"]


@pytest.mark.parametrize("extra, message", [
    (["--routes", "raw,best"], "unknown routes or formats"),
    (["--routes", ","], "no routes or no formats"),
    (["--equal-size", "50"], "fewer than equal_size 50"),
    (["--min-score", "120"], "less than or equal to 100"),
])
def test_bad_arguments_are_refused_with_a_reason(root, tmp_path, capsys, extra, message):
    data, _ = root
    assert main(["export", "--data-root", str(data), "--out", str(tmp_path), *extra]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "LATEST.json").exists()


def test_an_empty_data_root_and_a_missing_manifest_are_errors(tmp_path, capsys):
    assert main(["export", "--data-root", str(tmp_path / "nothing"), "--out", str(tmp_path / "out")]) == 2
    assert "no evaluations to export" in capsys.readouterr().err
    assert main(["manifest", "verify", str(tmp_path / "missing.json")]) == 1
    assert "no manifest" in capsys.readouterr().err
