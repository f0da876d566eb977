"""The Chromium launcher script is kept once per content, not once per process; which binary runs."""

from __future__ import annotations

import os
import subprocess

import pytest

from webmend.browser import launch


def test_launchers_are_named_by_content_and_reused(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = launch._write_launcher("#!/bin/sh\necho one\n")
    again = launch._write_launcher("#!/bin/sh\necho one\n")
    other = launch._write_launcher("#!/bin/sh\necho two\n")
    assert first == again and first != other
    assert sorted(p.name for p in (tmp_path / "webmend" / "launchers").iterdir()) == sorted({first.parent.name, other.parent.name})
    assert os.access(first, os.X_OK)
    assert subprocess.run([str(first)], capture_output=True, text=True).stdout == "one\n"


def test_a_launcher_changed_on_disk_is_rewritten(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    script = launch._write_launcher("#!/bin/sh\necho one\n")
    script.write_text("#!/bin/sh\necho tampered\n")
    assert launch._write_launcher("#!/bin/sh\necho one\n") == script
    assert script.read_text() == "#!/bin/sh\necho one\n"
    assert [p.name for p in script.parent.iterdir()] == ["chromium"]  # no temporary file left


def test_an_unwritable_cache_falls_back_to_a_private_folder(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # a file where the folder should be
    script = launch._write_launcher("#!/bin/sh\necho one\n")
    try:
        assert subprocess.run([str(script)], capture_output=True, text=True).stdout == "one\n"
    finally:
        script.unlink()
        script.parent.rmdir()


def _candidates(monkeypatch, tmp_path, shell: bool, full: bool):
    shell_path, full_path = tmp_path / "chromium-headless-shell", tmp_path / "chromium"
    for path, present in ((shell_path, shell), (full_path, full)):
        if present:
            path.write_text("")
    monkeypatch.delenv("WEBMEND_CHROMIUM", raising=False)
    monkeypatch.setattr(launch, "FULL_CHROMIUM_CANDIDATES", (str(full_path),))
    monkeypatch.setattr(launch, "CHROMIUM_CANDIDATES", (str(shell_path), str(full_path)))
    return str(shell_path), str(full_path)


def test_the_headless_shell_is_preferred_and_the_full_binary_is_a_logged_fallback(tmp_path, monkeypatch, caplog):
    shell, full = _candidates(monkeypatch, tmp_path, shell=True, full=True)
    assert launch.chromium_path() == shell
    assert "headless-shell" not in caplog.text
    (tmp_path / "chromium-headless-shell").unlink()
    assert launch.chromium_path() == full
    assert "chromium-headless-shell not installed" in caplog.text


def test_a_missing_browser_is_a_clear_error(tmp_path, monkeypatch):
    _candidates(monkeypatch, tmp_path, shell=False, full=False)
    with pytest.raises(FileNotFoundError, match="chromium-headless-shell"):
        launch.chromium_path()
    monkeypatch.setenv("WEBMEND_CHROMIUM", str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match="WEBMEND_CHROMIUM"):
        launch.chromium_path()


def test_setup_installs_the_headless_shell_and_it_is_the_default():
    """make setup (scripts/install-system.sh) installs Debian's chromium-headless-shell; without it
    every page costs about a fifth more CPU, so a setup that lost it must show up here."""
    if os.environ.get("WEBMEND_CHROMIUM"):
        pytest.skip("WEBMEND_CHROMIUM chooses the browser")
    assert launch.chromium_path() in launch.HEADLESS_SHELL_CANDIDATES
