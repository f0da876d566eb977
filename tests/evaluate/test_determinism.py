"""Same page, same config: identical evidence, verdicts and scores on every run (timings aside)."""

from __future__ import annotations

import json

from conftest import case, fixture_html

from webmend.evaluate.replay_check import comparable, first_difference
from webmend.evaluate.scoring import score

GAME = """<!doctype html><html><head><style>@keyframes pulse{50%{transform:scale(1.6);background:#0af}}
#b{width:40px;height:40px;background:#f40;animation:pulse 1.3s ease-in-out infinite;margin:20px}</style></head>
<body><div id=b></div><canvas id=c width=300 height=150></canvas><p id=s>0</p><script>
const ctx=document.getElementById('c').getContext('2d');let x=0,score=0,t0=performance.now();
const id=crypto.randomUUID();window.state={id};
function loop(t){x=(x+Math.random()*9)%300;ctx.fillStyle='#fff';ctx.fillRect(0,0,300,150);ctx.fillStyle='hsl('+Math.floor(Math.random()*360)+',80%,50%)';
ctx.fillRect(x,60,20,20);if(Math.random()<0.05){score++;document.getElementById('s').textContent=score+' '+Math.round(t-t0)}requestAnimationFrame(loop)}
requestAnimationFrame(loop);addEventListener('keydown',e=>{score+=10});</script></body></html>"""

ITEM = {"id": "g", "test_cases": [
    case({"action": "screenshot"}, {"action": "wait", "ms": 700}, {"action": "assert_screenshot_changed", "threshold": 0.999}, id="moves"),
    case({"action": "press_key", "key": "Space"}, {"action": "wait", "ms": 1234}, {"action": "assert_js_value", "expression": "score > 10", "expected": True}, id="score"),
    case({"action": "assert_js_value", "expression": "state.id.length === 36", "expected": True}, id="uuid"),
]}


def test_three_runs_are_identical(evaluate, cfg):
    pages = [(GAME, ITEM), (fixture_html("pages/good_app.html"), None), (fixture_html("pages/stalled_game.html"), None)]
    for html, item in pages:
        runs = [evaluate(html, item) for _ in range(3)]
        first, *others = [comparable(r) for r in runs]
        assert [first_difference(first, other) for other in others] == [None, None]
        assert runs[0]["experience"]["trace"] and runs[0]["keyframes"]
        assert len({json.dumps(score(r, cfg, True)) for r in runs}) == 1
    first = evaluate(GAME, ITEM)
    assert [t["passed"] for t in first["tests"]] == [True, True, True], first["tests"]
    assert 3 in first["experience"]["layers"]  # the rollout replays identically too
