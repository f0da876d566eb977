"""Hostile pages: each gets a status or flag with evidence, and the worker goes on."""

from __future__ import annotations

from conftest import case, fixture_html

from webmend.schemas.vocab import PAGE_FAULT_STATUSES

ALIVE = {"action": "assert_js_value", "expression": "1 + 1 === 2", "expected": True}


def run(evaluate, name, *cases):
    return evaluate(fixture_html(f"hostile/{name}.html"), {"id": name, "test_cases": list(cases)})


def test_infinite_loop_on_load(evaluate):
    ev = run(evaluate, "infinite_loop", case(ALIVE))
    assert ev["status"] == "hang"
    assert ev["probe"]["load_hang"] and "load" in ev["events"]["hangs"]
    assert ev["tests"][0]["failed_action"] == "load" and "hung" in ev["tests"][0]["error"]
    assert "retried" in ev["flags"]


def test_infinite_loop_after_click(evaluate):
    ev = run(evaluate, "loop_after_click",
             case({"action": "click", "selector": "#start"}, ALIVE, id="loops"),
             case({"action": "click", "selector": "#ok"}, {"action": "assert_text_contains", "selector": "#out", "text": "ok"}, id="fine"))
    assert ev["status"] == "hang"
    loops, fine = ev["tests"]
    assert not loops["passed"] and "hung" in loops["error"]
    assert fine["passed"], fine  # the next fresh page works: the worker went on


def test_infinite_loop_in_timer(evaluate):
    ev = run(evaluate, "loop_after_timer", case({"action": "wait", "ms": 1000}, ALIVE))
    assert ev["status"] == "hang"
    assert not ev["tests"][0]["passed"]


def test_dialogs_are_answered_and_counted(evaluate):
    ev = run(evaluate, "dialogs", case(ALIVE))
    assert ev["status"] == "ok" and "dialogs" in ev["flags"]
    assert ev["events"]["dialogs"] >= 200
    assert ev["tests"][0]["passed"]


def test_popups_are_contained(evaluate):
    ev = run(evaluate, "popups", case({"action": "click", "selector": "#go"}, ALIVE))
    assert "popups_blocked" in ev["flags"] and ev["events"]["contained"]["popup"] >= 50
    assert ev["tests"][0]["passed"]


def test_navigation_away_keeps_the_page(evaluate):
    ev = run(evaluate, "navigate_away", case({"action": "wait", "ms": 1000}, {"action": "assert_js_value", "expression": "location.hostname.endsWith('page.test') && location.pathname === '/'", "expected": True}))
    assert "navigation_blocked" in ev["flags"]
    assert any(b["reason"] == "navigation_away" and b["url"].startswith("https://evil.example") for b in ev["network"]["blocked"])
    assert ev["tests"][0]["passed"]


def test_reload_loop_is_stopped(evaluate, cfg):
    ev = run(evaluate, "reload_loop", case({"action": "wait", "ms": 2000}, ALIVE))
    assert "reload_loop" in ev["flags"]
    assert ev["tests"][0]["passed"]


def test_memory_bomb_is_contained(evaluate):
    ev = run(evaluate, "memory_bomb", case({"action": "wait", "ms": 2000}, ALIVE))
    # README: renderer crashes give `crashed`; the V8 heap cap (limits.js_heap_mb) crashes it.
    assert ev["status"] == "crashed", (ev["status"], ev["reason"])
    assert ev["events"]["crashes"] >= 1
    assert not ev["tests"][0]["passed"]


def test_a_dom_past_the_node_cap_is_a_resource_limit(evaluate, cfg):
    ev = run(evaluate, "dom_overgrown", case(ALIVE))
    # README: a DOM that outgrows limits.max_dom_nodes gives `resource_limit`.
    assert ev["status"] == "resource_limit", (ev["status"], ev["reason"], ev["events"]["hangs"])
    assert ev["probe"]["dom_nodes_final"] > cfg.limits.max_dom_nodes
    alive = ev["tests"][0]
    assert not alive["passed"] and alive["failed_action"] == "load" and "resource limit" in alive["error"], alive


def test_dom_bomb_is_contained(evaluate):
    """200000 nodes, 100 chains 1000 deep: building and laying it out outruns the step cap on a
    small machine, so which cap stops it first depends on the machine (README: whichever cap the
    page trips first names the status). Contained means: a page-fault status, the test case fails,
    and the evaluation ends inside its wall-clock caps (a `timeout`
    would mean it did not)."""
    ev = run(evaluate, "dom_bomb", case(ALIVE))
    assert ev["status"] in PAGE_FAULT_STATUSES, (ev["status"], ev["reason"])
    assert not ev["tests"][0]["passed"]


def test_console_flood_is_capped(evaluate, cfg):
    ev = run(evaluate, "console_flood", case(ALIVE))
    assert ev["status"] == "ok"
    assert "console_flood" in ev["flags"] and "tampering" not in ev["flags"]
    assert len(ev["events"]["console_errors"]) <= cfg.limits.max_console_messages
    assert ev["tests"][0]["passed"]


def test_cpu_burning_workers_are_capped(evaluate):
    ev = run(evaluate, "cpu_workers", case({"action": "click", "selector": "#ok"}, {"action": "assert_text_contains", "selector": "#out", "text": "ok"}))
    assert "workers_blocked" in ev["flags"]
    assert ev["tests"][0]["passed"], ev["tests"][0]


def test_downloads_are_refused(evaluate):
    ev = run(evaluate, "download", case({"action": "click", "selector": "#go"}, ALIVE))
    assert "downloads_blocked" in ev["flags"] and ev["events"]["downloads"] > 0


def test_tampering_is_detected(evaluate):
    ev = run(evaluate, "tamper", case({"action": "click", "selector": "#save"}, {"action": "assert_text_contains", "selector": "#status", "text": "saved"}))
    assert "tampering" in ev["flags"]
    replaced = set(ev["probe"]["tampering"])
    assert {"Document.prototype.querySelector", "window.getComputedStyle", "HTMLElement.prototype.innerText", "console.error", "Function.prototype.toString"} <= replaced


def test_clean_pages_are_not_flagged_as_tampering(evaluate):
    ev = evaluate(fixture_html("pages/good_app.html"), None)
    assert ev["probe"]["tampering"] == [] and "tampering" not in ev["flags"]


def test_window_close_and_print_are_contained(evaluate):
    ev = run(evaluate, "window_close_print", case({"action": "click", "selector": "#go"}, ALIVE))
    assert ev["events"]["contained"].get("close", 0) > 0 and ev["events"]["contained"].get("print", 0) > 0
    assert ev["tests"][0]["passed"]


def test_text_addressed_to_a_judge_changes_nothing_but_text(evaluate, cfg):
    from webmend.evaluate.scoring import score

    item = {"id": "j", "test_cases": [case({"action": "click", "selector": "#show"}, {"action": "assert_visible", "selector": "#count"})]}
    injected = evaluate(fixture_html("hostile/judge_injection.html"), item)
    clean = evaluate(fixture_html("hostile/judge_injection_clean.html"), item)
    a, b = score(injected, cfg, True), score(clean, cfg, True)
    # Fast mode reads no page text as instructions: only the extra visible paragraph may move the
    # visual estimate a little; nothing can lift the page towards the maximum. The injected
    # sentences hidden in 1 px or same-coloured text count as unreadable text (layer 1), which may
    # only lower rendering.
    for dim in ("functionality", "interaction", "code_quality"):
        assert a[dim] == b[dim], dim
    assert a["rendering"] <= b["rendering"]
    assert abs(a["visual_design"] - b["visual_design"]) < 1.0
    assert a["total"] <= b["total"] + 1.0  # the injected sentences lift nothing


def test_a_worker_that_fails_to_start_does_not_use_up_the_cap(evaluate):
    html = """<!doctype html><html lang=en><title>w</title><h1>w</h1><script>
    try { new Worker('https://elsewhere.example/w.js'); } catch (e) { window.firstFailed = e.name; }
    const src = URL.createObjectURL(new Blob(['postMessage(7)'], {type: 'text/javascript'}));
    try { new Worker(src); window.secondStarted = true; } catch (e) { window.secondStarted = e.name; }
    </script></html>"""
    ev = evaluate(html, {"id": "w", "test_cases": [case(
        {"action": "assert_js_value", "expression": "window.firstFailed", "expected": "SecurityError"},
        {"action": "assert_js_value", "expression": "window.secondStarted", "expected": True})]})
    assert ev["tests"][0]["passed"], ev["tests"]
    assert "workers_blocked" not in ev["flags"]


def test_a_navigation_left_in_flight_does_not_break_the_next_fresh_load(evaluate):
    html = "<!doctype html><html lang=en><title>n</title><h1 id=t>alive</h1><form><input id=q name=q></form></html>"
    leave = [case({"action": "type", "selector": "#q", "text": "x"}, {"action": "press_key", "key": "Enter"}, id="submit"),
             case({"action": "eval_js", "expression": "location.href = location.href + '?again'"}, id="reload")]
    check = [case({"action": "assert_text_contains", "selector": "#t", "text": "alive"}, id=f"after{i}") for i in range(2)]
    ev = evaluate(html, {"id": "n", "test_cases": [leave[0], check[0], leave[1], check[1]]})
    assert [t["passed"] for t in ev["tests"]][1::2] == [True, True], ev["tests"]
    assert all(t["failed_action"] != "load" for t in ev["tests"]), ev["tests"]


def test_site_wide_cookies_do_not_reach_the_next_test_case(evaluate):
    html = "<!doctype html><html lang=en><title>c</title><h1>c</h1></html>"
    set_cookie = case({"action": "eval_js", "expression": "document.cookie = 'k=1; domain=page.test; path=/'"},
                      {"action": "assert_js_value", "expression": "document.cookie.includes('k=1')", "expected": True}, id="set")
    fresh = case({"action": "assert_js_value", "expression": "document.cookie", "expected": ""}, id="fresh")
    ev = evaluate(html, {"id": "c", "test_cases": [set_cookie, fresh]})
    assert [t["passed"] for t in ev["tests"]] == [True, True], ev["tests"]
