"""Library requests go to the CDN mirror server beside Chromium (webmend.cdn.serve): the page
gets the same libraries and the same verdicts as through the route, the evidence still names
what was served, and the page cannot use the server as a way out."""

from __future__ import annotations

import pytest
from conftest import case

from webmend.browser.worker import BrowserWorker
from webmend.cdn.serve import MIRROR_HOST, mirror_url
from webmend.config import EvalConfig
from webmend.evaluate.page import evaluate_page

THREE = "https://cdnjs.cloudflare.com/ajax/libs/three.js/r128/three.min.js"
PAGE = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Spin</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link href="https://fonts.googleapis.com/css2?family=Inter:wght@400;700&display=swap" rel="stylesheet">
<script src="{THREE}"></script></head>
<body style="font-family:Inter"><h1>Cube</h1><button id="go">Spin</button><p id="out">idle</p>
<script>
const canvas = document.createElement('canvas'); canvas.width = 200; canvas.height = 120;
document.body.appendChild(canvas);
const ctx = canvas.getContext('2d');
document.getElementById('go').addEventListener('click', () => {{
  const v = new THREE.Vector3(1, 2, 2);
  document.getElementById('out').textContent = 'len ' + v.length();
  ctx.fillStyle = '#3a6'; ctx.fillRect(10, 10, 100, 60);
}});
</script></body></html>"""
ITEM = {"id": "spin", "test_cases": [
    case({"action": "assert_js_value", "expression": "THREE.REVISION === '128'", "expected": True}, id="lib"),
    case({"action": "screenshot", "label": "a"}, {"action": "click", "selector": "#go"}, {"action": "wait", "ms": 300},
         {"action": "assert_text_contains", "selector": "#out", "text": "len 3"},
         {"action": "assert_screenshot_changed", "threshold": 0.99}, id="click"),
    case({"action": "assert_js_value", "expression": "document.fonts.check('700 16px Inter')", "expected": True}, id="font"),
]}


@pytest.fixture(scope="module")
def route_only():
    cfg = EvalConfig(cdn_server=False)
    w = BrowserWorker(cfg)
    yield cfg, w
    w.close()


def _verdicts(res: dict) -> tuple:
    return (res["status"], [(t["id"], t["passed"], t["error"]) for t in res["tests"]],
            res["events"]["console_error_count"], res["events"]["page_error_count"])


def test_libraries_come_from_the_server_with_the_same_verdicts(evaluate, worker, route_only):
    served = evaluate(PAGE, ITEM)
    assert any(port is not None for port in worker._mirror_ports.values()), "no mirror server beside Chromium"
    assert [t["passed"] for t in served["tests"]] == [True, True, True], served["tests"]
    assert served["network"]["cdn"][THREE]["package"] == "three"
    assert served["network"]["blocked_total"] == 0
    cfg, w = route_only
    routed = evaluate_page(PAGE, cfg, ITEM, worker=w)
    assert not any(port is not None for port in w._mirror_ports.values())
    assert _verdicts(served) == _verdicts(routed)
    assert served["network"]["cdn"] == routed["network"]["cdn"]


def test_a_page_cannot_reach_the_server_itself(evaluate, worker):
    evaluate(PAGE)  # the browser (and its server) is up
    port = next(p for p in worker._mirror_ports.values() if p is not None)
    direct = mirror_url(port, THREE)
    html = f"""<!doctype html><html lang="en"><head><title>x</title></head><body><h1>x</h1><p id="r">-</p><script>
    window.got = 'pending';
    fetch({direct!r}).then(r => r.text()).then(t => window.got = 'read ' + t.length, e => window.got = 'refused');
    const s = document.createElement('script'); s.src = {direct!r}; document.head.appendChild(s);
    </script></body></html>"""
    item = {"id": "direct", "test_cases": [case(
        {"action": "wait", "ms": 500},
        {"action": "assert_js_value", "expression": "window.got === 'refused' && typeof THREE === 'undefined'", "expected": True},
    )]}
    res = evaluate(html, item)
    assert res["tests"][0]["passed"], res["tests"]
    assert res["network"]["blocked_total"] >= 2
    assert all(MIRROR_HOST in b["url"] for b in res["network"]["blocked"]), res["network"]["blocked"]


def test_a_browser_that_fails_to_launch_leaves_no_key_behind(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where MirrorServer.plan makes its key folder
    monkeypatch.setenv("WEBMEND_CHROMIUM", "/bin/false")  # a real launch that fails at once
    w = BrowserWorker(EvalConfig())
    try:
        res = evaluate_page(PAGE, EvalConfig(), None, worker=w)
    except Exception as exc:  # a launch failure may surface as an error or as a recorded status
        res = {"status": "error", "reason": str(exc)}
    finally:
        w.close()
    assert res["status"] != "ok"
    assert not list(tmp_path.glob("webmend-mirror-*")), "the per-launch private key outlived the failed launch"
