"""The Chromium launcher script is kept once per content, not once per process."""

from __future__ import annotations

import os
import subprocess

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
