"""Same DOM, same pixels: a screenshot does not depend on which intermediate frames Chromium
happened to raster on the way (partial raster redrew only the changed rect, and its edges over
gradients came out differently from run to run)."""

from __future__ import annotations

import hashlib

from conftest import drive_session

LINES = "".join(
    f'<line x1="300" y1="300" x2="550" y2="300" stroke="#{(i * 37) % 256:02x}3060" stroke-width="{1 + i % 4}"/>' for i in range(24)
)
HANDS = f"""<!doctype html><html lang=en><head><title>hands</title><style>
body {{ margin: 0; min-height: 100vh; background: radial-gradient(circle at 30% 20%, #fffaf1, #efe6d6 60%, #e4d8c4); }}
svg {{ border-radius: 50%; background: radial-gradient(circle at 40% 35%, #fffdf8, #f1e7d5);
  box-shadow: inset 0 4px 18px rgba(60, 40, 10, .25); }}
line {{ transform-origin: 300px 300px; stroke-linecap: round; }}
</style></head><body><svg width="600" height="600">{LINES}</svg><script>
const lines = [...document.querySelectorAll('line')];
function tick(t) {{
  lines.forEach((l, i) => {{ l.style.transform = `rotate(${{(t * (i + 1) * 0.013) % 360}}deg)`; }});
  requestAnimationFrame(tick);
}}
requestAnimationFrame(tick);
</script></body></html>"""


def test_rotating_hands_over_gradients_look_the_same_on_every_run(worker, cfg):
    async def steps(s):
        for _ in range(12):
            await s.advance(250)
            await s.thumb()  # intermediate captures, as layer 1's motion check takes them
        return hashlib.sha256(await s.screenshot_png()).hexdigest()

    # Without --disable-partial-raster, 6 runs gave 5 different images.
    hashes = {drive_session(worker, cfg, HANDS, steps)[0] for _ in range(3)}
    assert len(hashes) == 1



def test_will_change_is_turned_off(worker, cfg):
    # A will-change: transform layer keeps the raster scale it was first rastered at, and which
    # scale that was depended on which real frames came first: art_anime_ripple_001's dots gave
    # 3 different first paints in 4 runs with it, 1 in 5 without (2026-11-30).
    html = """<!doctype html><html lang=en><head><title>dots</title><style>
i { display: block; width: 20px; height: 20px; will-change: transform, opacity; }</style></head>
<body><i id=dot></i></body></html>"""

    async def steps(s):
        return await s.main_eval("getComputedStyle(document.getElementById('dot')).willChange")

    assert drive_session(worker, cfg, html, steps)[0] == "auto"
