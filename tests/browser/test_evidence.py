"""Which console messages count as the page's (webmend/browser/evidence.py)."""

from __future__ import annotations

from webmend.browser.evidence import PageEvents

STALL = "[.WebGL-0x301400407000]GL Driver Message (OpenGL, Performance, GL_CLOSE_PATH_NV, High): GPU stall due to ReadPixels"


def test_chromiums_read_back_notes_are_not_the_pages_console_output():
    # Their number follows the compositor's real frames, so counting them made the evidence of
    # the same page differ between runs (bench/determinism_sweep.py on gl_blur_overlay.html).
    events = PageEvents()
    for _ in range(3):
        events.on_console("warning", STALL)
    events.on_console("warning", "WebGL: INVALID_OPERATION: drawArrays: no valid shader program in use")
    events.on_console("error", "boom")
    summary = events.to_dict()
    assert summary["console_total"] == 2
    assert summary["console_error_count"] == 1 and summary["console_errors"] == ["boom"]
