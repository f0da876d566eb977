"""scripts/install-system.sh decides what to install from what is on PATH. Run with --dry-run on a
PATH of stubs, so no package is installed and the machine's own Python and make do not count."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from conftest import ROOT

SCRIPT = ROOT / "scripts" / "install-system.sh"


def _stub(path, body: str) -> None:
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)


@pytest.fixture
def bin_dir(tmp_path):
    """A PATH with only what the script itself calls; every Debian package reads as installed."""
    d = tmp_path / "bin"
    d.mkdir()
    for tool in ("grep", "id"):
        (d / tool).symlink_to(shutil.which(tool))
    _stub(d / "dpkg-query", "echo 'install ok installed'")
    return d


def _dry_run(bin_dir, **env) -> subprocess.CompletedProcess:
    return subprocess.run([shutil.which("bash"), str(SCRIPT), "--dry-run"], capture_output=True, text=True, check=False,
                          env={"PATH": str(bin_dir), **env}, timeout=30)


def test_script_parses():
    assert subprocess.run([shutil.which("bash"), "-n", str(SCRIPT)], check=False).returncode == 0


def test_fresh_machine_gets_python_venv_and_make(bin_dir):
    res = _dry_run(bin_dir)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["would", "install:", "python3.11", "python3.11-venv", "make", "nodejs", "npm"]


def test_python_on_path_is_kept(bin_dir):
    # a pyenv-style python3.11 that can make venvs: no Debian Python is asked for
    _stub(bin_dir / "python3.11", "exit 0")
    for tool in ("make", "npm"):
        _stub(bin_dir / tool, "exit 0")
    res = _dry_run(bin_dir)
    assert (res.returncode, res.stdout.strip()) == (0, "system packages present")


def test_python_without_venv_outside_debian_is_an_error(bin_dir):
    _stub(bin_dir / "python3.11", "exit 1")  # `import ensurepip, venv` fails
    res = _dry_run(bin_dir)
    assert res.returncode == 1 and "no ensurepip" in res.stderr


def test_other_missing_interpreter_is_not_installed(bin_dir):
    res = _dry_run(bin_dir, PYTHON="python3.12")
    assert res.returncode == 1 and "not on PATH" in res.stderr


@pytest.mark.skipif(not os.path.exists("/usr/bin/dpkg-query"), reason="needs a Debian machine")
def test_dry_run_here_installs_no_python_when_one_is_on_path():
    res = subprocess.run(["bash", str(SCRIPT), "--dry-run"], capture_output=True, text=True, check=False, timeout=60)
    assert res.returncode == 0, res.stderr
    if shutil.which("python3.11"):
        assert "python3.11" not in res.stdout
