"""Hidden-frame draw skipping (clock.js): WebGL frames nobody can see are not rendered, and what
can be seen stays exactly what it would have been."""

from __future__ import annotations

import io

import numpy as np
import pytest
from conftest import drive_session
from PIL import Image

from webmend.browser import session as session_mod
from webmend.browser.page_scripts import CLOCK_KEY
from webmend.browser.session import PageSession

QUAD = """
const vs = 'attribute vec2 p; uniform vec2 off; void main() { gl_Position = vec4(p * 0.2 + off, 0.0, 1.0); }';
const fs = 'precision mediump float; uniform vec4 col; void main() { gl_FragColor = col; }';
function program(gl, vsrc, fsrc) {
  const p = gl.createProgram();
  for (const [type, src] of [[gl.VERTEX_SHADER, vsrc], [gl.FRAGMENT_SHADER, fsrc]]) {
    const s = gl.createShader(type); gl.shaderSource(s, src); gl.compileShader(s); gl.attachShader(p, s);
  }
  gl.linkProgram(p);
  return p;
}
function quad(gl, prog) {
  const buf = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, buf);
  gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-1, -1, 1, -1, -1, 1, -1, 1, 1, -1, 1, 1]), gl.STATIC_DRAW);
  const loc = gl.getAttribLocation(prog, 'p');
  gl.enableVertexAttribArray(loc);
  gl.vertexAttribPointer(loc, 2, gl.FLOAT, false, 0, 0);
}
const shade = (n) => [(n * 37) % 256, (n * 91) % 256, (n * 13) % 256];
"""


def gl_page(script: str, attrs: str = "{}") -> str:
    return (
        "<!doctype html><html lang=en><head><title>gl</title><style>html,body{margin:0;background:#000}"
        "canvas{display:block}</style></head><body><canvas id=c width=320 height=240></canvas><script>"
        f"const canvas = document.getElementById('c'); const gl = canvas.getContext('webgl', {attrs});{QUAD}{script}"
        "</script></body></html>"
    )


# A three.js-style loop: request the next frame, clear everything, draw. The background colour
# and the quad's place encode the frame number, so a stale frame cannot pass for the last one.
LOOP = """
const prog = program(gl, vs, fs); gl.useProgram(prog); quad(gl, prog);
const off = gl.getUniformLocation(prog, 'off'), col = gl.getUniformLocation(prog, 'col');
window.n = 0;
window.drawUntil = Infinity;
function loop() {
  requestAnimationFrame(loop);
  n += 1;
  if (n > drawUntil) return;
  const c = shade(n);
  gl.clearColor(c[0] / 255, c[1] / 255, c[2] / 255, 1);
  gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
  gl.uniform2f(off, ((n % 9) - 4) / 5, 0);
  gl.uniform4f(col, 1, 1, 1, 1);
  gl.drawArrays(gl.TRIANGLES, 0, 6);
  if (window.readEachFrame) window.seen = (() => { const px = new Uint8Array(4); gl.readPixels(5, 5, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px); return Array.from(px); })();
}
requestAnimationFrame(loop);
"""

# Two 4x4 render targets; every frame adds 1/255 to the red channel of the other one, then shows
# the count on screen. Skipping any render-target draw would lose a count.
PING_PONG = """
const sim = program(gl, 'attribute vec2 p; void main() { gl_Position = vec4(p, 0.0, 1.0); }',
  'precision mediump float; uniform sampler2D src; void main() { vec4 v = texture2D(src, vec2(0.5)); gl_FragColor = vec4(v.r + 1.0 / 255.0, 0.0, 0.0, 1.0); }');
const show = program(gl, vs, fs);
const targets = [0, 1].map(() => {
  const tex = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, tex);
  gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 4, 4, 0, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(64));
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
  const fb = gl.createFramebuffer();
  gl.bindFramebuffer(gl.FRAMEBUFFER, fb);
  gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0);
  return { tex, fb };
});
gl.bindFramebuffer(gl.FRAMEBUFFER, null);
quad(gl, sim);
window.steps = 0;
window.readCount = () => {
  const px = new Uint8Array(4);
  gl.bindFramebuffer(gl.FRAMEBUFFER, targets[steps % 2].fb);
  gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px);
  gl.bindFramebuffer(gl.FRAMEBUFFER, null);
  return px[0];
};
function loop() {
  requestAnimationFrame(loop);
  const src = targets[steps % 2], dst = targets[(steps + 1) % 2];
  gl.bindFramebuffer(gl.FRAMEBUFFER, dst.fb);
  gl.viewport(0, 0, 4, 4);
  gl.useProgram(sim);
  gl.bindTexture(gl.TEXTURE_2D, src.tex);
  gl.drawArrays(gl.TRIANGLES, 0, 6);
  steps += 1;
  gl.bindFramebuffer(gl.FRAMEBUFFER, null);
  gl.viewport(0, 0, canvas.width, canvas.height);
  gl.clearColor(steps / 255, 0, 0, 1);
  gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
}
requestAnimationFrame(loop);
"""

# preserveDrawingBuffer: every frame adds a square to a trail and nothing is ever cleared.
TRAIL = """
window.n = 0;
gl.enable(gl.SCISSOR_TEST);
function loop() {
  requestAnimationFrame(loop);
  n += 1;
  const c = shade(n);
  gl.scissor((n * 5) % 320, (Math.floor(n * 5 / 320) * 6) % 240, 5, 5);
  gl.clearColor(c[0] / 255, c[1] / 255, c[2] / 255, 1);
  gl.clear(gl.COLOR_BUFFER_BIT);
}
requestAnimationFrame(loop);
"""

CANVAS_2D = """<!doctype html><html lang=en><head><title>2d</title><style>html,body{margin:0}</style></head><body>
<canvas id=c width=320 height=240></canvas><script>
const ctx = document.getElementById('c').getContext('2d');
window.n = 0;
function loop() { requestAnimationFrame(loop); n += 1; ctx.fillStyle = `rgb(${n % 256}, 40, 90)`; ctx.fillRect(0, 0, 320, 240);
  ctx.fillStyle = '#fff'; ctx.fillRect((n * 7) % 300, 100, 20, 20); }
requestAnimationFrame(loop);
</script></body></html>"""


def _drive(worker, cfg, html: str, steps, skip: bool, monkeypatch) -> tuple[list, dict]:
    """Load `html` once in the gl browser and run `steps(session) -> list` on it."""
    # What the session writes into clock.js for EvalConfig.skip_hidden_draws.
    monkeypatch.setattr(session_mod, "CLOCK_JS", session_mod.CLOCK_JS.replace("__WM_SKIP_HIDDEN_DRAWS__", "true" if skip else "false"))
    try:
        return drive_session(worker, cfg, html, steps, profile="gl")
    finally:
        monkeypatch.undo()


async def _look(s: PageSession) -> tuple[np.ndarray, dict]:
    await s._settle_frames()  # as thumb() does: the last drawn frame reaches the compositor
    png = await s.screenshot_png()
    stats = await s.main_eval(f"window.{CLOCK_KEY}.stats()")
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")), stats


def _shade(n: int) -> list[int]:
    return [(n * 37) % 256, (n * 91) % 256, (n * 13) % 256]


def _both(worker, cfg, monkeypatch, html, steps):
    on = _drive(worker, cfg, html, steps, True, monkeypatch)
    off = _drive(worker, cfg, html, steps, False, monkeypatch)
    return on, off


def test_the_last_frame_of_a_long_wait_is_drawn_exactly(worker, cfg, monkeypatch):
    async def steps(s):
        await s.advance(2000)
        img, stats = await _look(s)
        return [img, stats, await s.main_eval("n")]

    (on, on_events), (off, _) = _both(worker, cfg, monkeypatch, gl_page(LOOP), steps)
    img, stats, n = on
    assert n == 156  # 31 frames in the 500 ms after load, 125 in the wait
    assert stats["gl"]["skipped"] > 200 and stats["gl"]["diverged"] == 0, stats
    assert "gl_skip_diverged" not in on_events["contained"]
    assert img[10, 10].tolist() == _shade(n)
    assert img[120, 160 + round(((n % 9) - 4) / 5 * 160)].tolist() == [255, 255, 255]
    assert off[1]["gl"]["skipped"] == 0
    assert np.array_equal(img, off[0])


def test_looks_between_short_steps_match(worker, cfg, monkeypatch):
    async def steps(s):
        looks = []
        for ms in (16, 100, 33, 700):
            await s.advance(ms)
            looks.append((await _look(s))[0])
        return looks

    (on, _), (off, _) = _both(worker, cfg, monkeypatch, gl_page(LOOP), steps)
    assert all(np.array_equal(a, b) for a, b in zip(on, off))


def test_render_target_ping_pong_runs_every_frame(worker, cfg, monkeypatch):
    async def steps(s):
        await s.advance(1000)
        img, stats = await _look(s)
        return [img, stats, await s.main_eval("steps"), await s.main_eval("readCount()")]

    (on, _), (off, _) = _both(worker, cfg, monkeypatch, gl_page(PING_PONG), steps)
    img, stats, frames, count = on
    assert frames == 93 and count == frames  # every simulation step ran
    assert stats["gl"]["skipped"] > 0 and stats["gl"]["diverged"] == 0
    assert img[10, 10].tolist() == [frames, 0, 0]
    assert np.array_equal(img, off[0]) and off[2:] == [frames, count]


def test_preserve_drawing_buffer_contexts_draw_every_frame(worker, cfg, monkeypatch):
    async def steps(s):
        await s.advance(1000)
        img, stats = await _look(s)
        return [img, stats]

    (on, _), (off, _) = _both(worker, cfg, monkeypatch, gl_page(TRAIL, "{preserveDrawingBuffer: true}"), steps)
    assert on[1]["gl"]["skipped"] == 0
    assert np.array_equal(on[0], off[0])
    # The trail's 64th square covers GL rows 6-10 (from the bottom) at x 0-4.
    assert on[0][239 - 8, 2].tolist() == _shade(64)


def test_canvas_2d_pages_are_untouched(worker, cfg, monkeypatch):
    async def steps(s):
        await s.advance(1500)
        img, stats = await _look(s)
        return [img, stats]

    (on, _), (off, _) = _both(worker, cfg, monkeypatch, CANVAS_2D, steps)
    assert on[1]["gl"]["skipped"] == 0 and np.array_equal(on[0], off[0])


def test_a_loop_that_stops_drawing_is_reported(worker, cfg, monkeypatch):
    """Frame 40 draws for the last time mid-run: its draws were dropped, so the run ends with a
    stale canvas; the page says so, and the evaluator runs it again without skipping."""

    async def steps(s):
        await s.main_eval("drawUntil = 40")
        await s.advance(2000)
        img, stats = await _look(s)
        return [img, stats]

    (on, on_events), (off, off_events) = _both(worker, cfg, monkeypatch, gl_page(LOOP), steps)
    assert off[0][10, 10].tolist() == _shade(40)
    assert on[1]["gl"]["diverged"] >= 1 and on_events["contained"].get("gl_skip_diverged") == 1
    assert "gl_skip_diverged" not in off_events["contained"]


def test_reading_the_canvas_during_frames_is_reported_and_stops_skipping(worker, cfg, monkeypatch):
    async def steps(s):
        await s.main_eval("readEachFrame = true")
        await s.advance(1000)
        img, stats = await _look(s)
        return [img, stats, await s.main_eval("seen"), await s.main_eval("n")]

    (on, on_events), (off, _) = _both(worker, cfg, monkeypatch, gl_page(LOOP), steps)
    assert on_events["contained"].get("gl_skip_diverged") == 1
    # After the first read the context is drawn in full again: the last read matches.
    assert on[2] == off[2] == [*_shade(off[3]), 255]
    assert np.array_equal(on[0], off[0])


@pytest.mark.parametrize("attrs", ["{stencil: true}", "{depth: false}"])
def test_context_attributes_decide_what_a_full_clear_is(worker, cfg, monkeypatch, attrs):
    """With a stencil buffer, a clear that leaves the stencil alone does not erase history."""

    async def steps(s):
        await s.advance(500)
        img, stats = await _look(s)
        return [img, stats]

    (on, _), (off, _) = _both(worker, cfg, monkeypatch, gl_page(LOOP, attrs), steps)
    skipped = on[1]["gl"]["skipped"]
    assert (skipped == 0) if "stencil" in attrs else (skipped > 0)
    assert np.array_equal(on[0], off[0])


def test_queued_frames_show_up_as_gpu_process_cpu(worker, cfg, monkeypatch):
    """A clock step only queues WebGL work; the GPU process renders it afterwards, and
    launch.gpu_process_cpu_s sees that work (a wait on it is not a stuck page script)."""
    from webmend.browser.launch import gpu_process_cpu_s

    before = gpu_process_cpu_s()

    async def steps(s):
        await s.advance(2000)
        return [(await _look(s))[1]]

    _drive(worker, cfg, gl_page(LOOP), steps, False, monkeypatch)
    assert gpu_process_cpu_s() > before
    assert gpu_process_cpu_s(root=1 << 22) == 0.0  # above pid_max: no such process, no descendants
