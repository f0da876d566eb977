"""Fixtures of the training tests: the SFT corpus comes from the export tests' data root (real evaluator and repair
runs, built once per session), so its module is importable here too."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "export"))

from webmend.training.env import train_env  # noqa: E402  (after the path above)


@pytest.fixture(scope="session")
def training_env() -> Path:
    """The training environment `make test` installs (`make train-env`); absent, the test fails."""
    python = train_env() / "bin" / "python"
    assert python.exists(), f"{python} missing: run `make train-env` (the training tests need it)"
    return train_env()


@pytest.fixture(scope="session")
def exported_corpus(tmp_path_factory) -> Path:
    """An export version folder (raw and refined routes) of the small traced data root."""
    from export_fixtures import traced_root

    from webmend.cli import main

    data, _ = traced_root(tmp_path_factory)
    out = tmp_path_factory.mktemp("train-corpus")
    assert main(["export", "--data-root", str(data), "--out", str(out), "--routes", "raw,refined"]) == 0
    latest = (out / "LATEST.json").read_text()
    import json

    return out / json.loads(latest)["version"]
