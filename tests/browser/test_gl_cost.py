"""What makes WebGL pages cheaper on the CPU (docs/benchmarks.md, "3D cost levers"): in the gl
browser pages see a smaller devicePixelRatio (EvalConfig.gl_pixel_ratio), so a canvas sized by it
has a smaller drawing buffer, while CSS layout and screenshots keep their size."""

from __future__ import annotations

import io
from pathlib import Path

from conftest import drive_session
from PIL import Image

from webmend.config import Viewport

FIXTURE = Path(__file__).resolve().parents[2] / "data" / "fixtures" / "pages" / "gl_blur_overlay.html"


async def _sizes(s):
    await s.advance(100)
    info = await s.main_eval("window.glInfo")
    png = await s.screenshot_png()
    return info, Image.open(io.BytesIO(png)).size


def test_gl_pages_draw_into_a_smaller_buffer_at_the_same_css_size(worker, cfg):
    html = FIXTURE.read_text()
    assert cfg.gl_pixel_ratio == 0.5
    # A small viewport: the fixture's blurred copy of its canvas is dear in every frame.
    cfg = cfg.model_copy(update={"viewport": Viewport(width=320, height=240)})
    (info, shot), events = drive_session(worker, cfg, html, _sizes, profile="gl")
    vw, vh = cfg.viewport.width, cfg.viewport.height
    assert info == {"dpr": 0.5, "width": vw // 2, "height": vh // 2, "cssWidth": vw, "cssHeight": vh}
    assert shot == (vw, vh)  # the compositor scales the canvas up: captures keep their size
    assert not events["page_errors"]

    full = cfg.model_copy(update={"gl_pixel_ratio": 1.0})
    (info, shot), _ = drive_session(worker, full, html, _sizes, profile="gl")
    assert info == {"dpr": 1, "width": vw, "height": vh, "cssWidth": vw, "cssHeight": vh}
    assert shot == (vw, vh)


def test_the_raster_browser_keeps_the_real_pixel_ratio(worker, cfg):
    (dpr, _), _ = drive_session(worker, cfg, "<!doctype html><title>t</title><p>2D</p>",
                               lambda s: _pair(s.main_eval("window.devicePixelRatio")), profile="raster")
    assert dpr == 1


async def _pair(coro):
    return await coro, None
