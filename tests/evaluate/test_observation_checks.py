"""The canvas and load-time observations a contract can check (docs/icg-format.md,
"Observations"), on one small canvas page: text drawn once at load into a sprite, a palette, motion
that a key pauses, three Workers on the page clock, the contract's helpers and init script."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from webmend.contracts.validate import validate_contract
from webmend.evaluate.contract_run import execute_contract
from webmend.evaluate.pixels import changed, color_share, coverage, distinct_colors, dominant_color, parse_color

PAGE = (Path(__file__).parent / "fixtures" / "orbit_canvas.html").read_text()


def check(cid: str, check: dict, requirement: str = "R1") -> dict:
    return {"id": cid, "when": "after", "check": check, "requirement": requirement}


def contract(initial: list[dict], pause_checks: list[dict] | None = None, **extra) -> dict:
    return {
        "task": {"id": "orbit", "prompt": "A dot orbits; Space pauses it; + doubles the speed, drawn as 'Speed: Nx'."},
        "requirements": [{"id": "R1", "kind": "explicit", "text": "the dot orbits and its speed is drawn"},
                         {"id": "R2", "kind": "explicit", "text": "Space pauses"}],
        "initial_contract": {"text": "an orbiting dot", "checks": initial},
        "states": [{"id": "S0", "description": "running"}, {"id": "S1", "description": "paused"}],
        "transitions": [{"id": "T1", "from": "S0", "to": "S1", "intent": "pause with Space", "requirements": ["R1", "R2"],
                         "steps": [{"action": "press_key", "key": " "}], "assertions": pause_checks or []}],
        **extra,
    }


def run(c: dict, worker, cfg, html: str = PAGE):
    assert validate_contract(c) == []
    return execute_contract(html, c, cfg, worker=worker)


def test_drawn_text_is_recorded_from_before_the_first_frame(worker, cfg):
    # 'LOADED SPRITE' is drawn once, into an offscreen sprite, by the page's first script.
    got = run(contract([check("A1", {"action": "assert_drawn_text", "text": "^loaded sprite$"}),
                        check("A2", {"action": "assert_drawn_text", "text": "loaded sprite", "within_ms": 100}),
                        check("A3", {"action": "assert_drawn_text", "text": "^Speed: 1x$", "within_ms": 100})]),
              worker, cfg)
    assert got.initial == {"A1": True, "A2": False, "A3": True}
    assert "drawn: " in got.initial_reasons["A2"] and "Speed: 1x" in got.initial_reasons["A2"]


def test_palette_coverage_and_motion_on_a_fixture_canvas(worker, cfg):
    canvas = {"selector": "canvas"}
    got = run(contract(
        [check("P1", {"action": "assert_colors", **canvas, "colors": ["#ff8800", "black"]}),
         check("P2", {"action": "assert_colors", **canvas, "colors": ["#00ff00"]}),
         check("P3", {"action": "assert_colors", **canvas, "min_distinct": 3}),
         check("C1", {"action": "assert_coverage", **canvas, "min_share": 0.001, "max_share": 0.1}),
         check("C2", {"action": "assert_coverage", **canvas, "min_share": 0.5}),
         check("M1", {"action": "assert_animates", **canvas}),
         check("M2", {"action": "assert_still", **canvas})],
        [check("Q1", {"action": "assert_still", **canvas}, "R2"),
         check("Q2", {"action": "assert_animates", **canvas, "ms": 300}, "R2")]), worker, cfg)
    assert got.initial == {"P1": True, "P2": False, "P3": True, "C1": True, "C2": False, "M1": True, "M2": False}
    assert "#00ff00" in got.initial_reasons["P2"]
    assert got.transitions["T1"].assertions == {"Q1": True, "Q2": False}  # paused: still, not animating
    assert got.transitions["T1"].steps == [{"action": "press_key", "ok": True, "reason": ""}]


def test_workers_run_on_the_page_clock_and_give_the_same_results_on_every_run(worker, cfg):
    # Three workers (more than one is allowed) sum seeded random numbers and answer after a timer
    # of 0, 7 and 14 ms: each answer arrives at that page time, in that order, on every run.
    order = "window.results.map((r) => r.id + '@' + (r.t - Date.UTC(2026, 0, 1))).join(',')"
    c = contract([check("W1", {"action": "assert_js_value", "expression": order, "expected": "0@0,1@7,2@14"}),
                  check("W2", {"action": "assert_js_value", "expression": "JSON.stringify(window.results)", "expected": ""})])
    runs = [run(c, worker, cfg) for _ in range(3)]
    assert [r.initial["W1"] for r in runs] == [True] * 3, runs[0].initial_reasons
    sums = {r.initial_reasons["W2"] for r in runs}
    assert len(sums) == 1 and sums.pop().count('\\"s\\"') == 3


def test_an_error_in_a_worker_is_the_pages_error(worker, cfg):
    page = PAGE.replace("let s = 0;", "if (e.data.id === 1) throw new Error('worker failed'); let s = 0;")
    got = run(contract([check("E1", {"action": "assert_console_clean"}),
                        check("E2", {"action": "assert_js_value", "expression": "window.results.length", "expected": 2})]),
              worker, cfg, page)
    assert got.initial == {"E1": False, "E2": True}, got.initial_reasons


def test_helpers_and_observed_are_in_scope_for_expressions(worker, cfg):
    helpers = "function drawn(re) { return observed.drawnText.some((d) => new RegExp(re, 'i').test(d.text)); }"
    expression = "drawn('^speed: 1x$') && observed.frames > 10 && observed.workers.length === 3"
    got = run(contract([check("H1", {"action": "assert_js_value", "expression": expression}),
                        check("H2", {"action": "assert_js_value", "expression": "drawn('GAME OVER')"})],
                       helpers=helpers), worker, cfg)
    assert got.initial == {"H1": True, "H2": False}


def test_the_init_script_runs_before_the_page_scripts(worker, cfg):
    init = "window.sawPage = typeof window.results !== 'undefined'; window.fills = 0; " \
           "const f = CanvasRenderingContext2D.prototype.fillRect; " \
           "CanvasRenderingContext2D.prototype.fillRect = function (...a) { window.fills++; return f.apply(this, a); };"
    got = run(contract([check("I1", {"action": "assert_js_value", "expression": "window.sawPage === false && window.fills > 10"})],
                       init_script=init), worker, cfg)
    assert got.initial == {"I1": True}, got.initial_reasons


def test_an_init_script_that_throws_is_not_the_pages_error(worker, cfg):
    got = run(contract([check("E1", {"action": "assert_console_clean"})], init_script="throw new Error('oops')"),
              worker, cfg)
    assert got.initial == {"E1": True}


def test_pixel_measures():
    img = np.zeros((10, 10, 3), dtype=np.uint8)
    img[:2, :5] = parse_color("#ff8800")
    assert parse_color("rgb(255, 136, 0)") == (255, 136, 0) and parse_color("black") == (0, 0, 0)
    with pytest.raises(ValueError):
        parse_color("not-a-colour")
    assert color_share(img, (255, 136, 0)) == pytest.approx(0.1)
    assert dominant_color(img) == (0, 0, 0) and coverage(img, (0, 0, 0)) == pytest.approx(0.1)
    assert distinct_colors(img, 0.05) == 2 and distinct_colors(img, 0.2) == 1
    moved = img.copy()
    moved[9, 9] = (200, 200, 200)
    assert changed(img, moved) == pytest.approx(0.01) and changed(img, img) == 0.0


def test_each_contract_expression_has_its_own_scope(worker, cfg):
    # The page declares `const sprite` at its top level; a check may declare its own, twice.
    mine = "const sprite = 2; sprite === 2"
    got = run(contract([check("S1", {"action": "assert_js_value", "expression": mine}),
                        check("S2", {"action": "assert_js_value", "expression": mine}),
                        check("S3", {"action": "assert_js_value", "expression": "sprite.width === 100"})]), worker, cfg)
    assert got.initial == {"S1": True, "S2": True, "S3": True}, got.initial_reasons


def test_a_helper_named_like_a_page_global_is_the_contracts_own(worker, cfg):
    # The page has `const sprite`; a helper function of the same name must not collide with it.
    got = run(contract([check("N1", {"action": "assert_js_value", "expression": "sprite() === 'mine' && observed.frames > 0"}),
                        check("N2", {"action": "assert_js_value", "expression": "sprite() === 'mine'"})],
                       helpers="function sprite() { return 'mine'; }"), worker, cfg)
    assert got.initial == {"N1": True, "N2": True}, got.initial_reasons


def test_a_contract_without_transitions_still_runs_its_initial_checks(worker, cfg):
    c = contract([check("L1", {"action": "assert_drawn_text", "text": "^Speed: 1x$"}),
                  check("L2", {"action": "assert_drawn_text", "text": "GAME OVER"})])
    c["transitions"] = []
    got = execute_contract(PAGE, c, cfg, worker=worker)
    assert got.initial == {"L1": True, "L2": False} and got.documents == 1
    assert "drawn: " in got.initial_reasons["L2"]


def test_a_button_drawn_on_the_canvas_is_clicked_where_its_text_was_drawn(worker, cfg):
    where = "JSON.stringify(observed.drawnText.filter((d) => /^(FASTER|Speed: 1x)$/.test(d.text)).map((d) => [d.text, d.x, d.y]))"
    c = contract([check("D1", {"action": "assert_js_value", "expression": where, "expected": ""})])
    c["transitions"][0]["steps"] = [{"action": "click_drawn_text", "text": "^faster$"}]
    c["transitions"][0]["assertions"] = [check("D2", {"action": "assert_drawn_text", "text": "^Speed: 2x$", "within_ms": 100})]
    got = run(c, worker, cfg)
    assert got.transitions["T1"].status == "passed", got.transitions["T1"].reason
    places = {text: (x, y) for text, x, y in json.loads(got.initial_reasons["D1"].split("got ")[1].rsplit(", expected", 1)[0].strip('"').replace('\\"', '"'))}
    assert 330 < places["FASTER"][0] < 390 and 274 <= places["FASTER"][1] <= 292, places  # right-aligned at x 390
    assert 10 < places["Speed: 1x"][0] < 80 and 5 <= places["Speed: 1x"][1] <= 20, places


def test_click_at_a_computed_point_with_a_modifier_and_never_assertions(worker, cfg):
    c = contract([])
    # Where FASTER was drawn, read from the observations at run time; Shift+click halves the speed.
    at = "(() => { const d = observed.drawnText.find((t) => t.text === 'FASTER'); return [d.x, d.y]; })()"
    c["transitions"][0]["steps"] = [{"action": "click_at", "expression": at, "modifiers": ["Shift"]}]
    c["transitions"][0]["assertions"] = [
        check("K1", {"action": "assert_drawn_text", "text": r"^Speed: 0\.5x$", "within_ms": 100}),
        {**check("K2", {"action": "assert_drawn_text", "text": "^Speed: 2x$", "within_ms": 100}), "when": "never"},
        {**check("K3", {"action": "assert_drawn_text", "text": r"^Speed: 0\.5x$", "within_ms": 100}), "when": "never"}]
    got = run(c, worker, cfg)
    assert got.transitions["T1"].assertions == {"K1": True, "K2": True, "K3": False}, got.transitions["T1"].reasons
    assert got.transitions["T1"].reasons["K3"] == "became true after step 0 (click_at)"


def test_a_target_inside_the_row_whose_text_matches(worker, cfg):
    page = ("<!doctype html><html lang=en><body><ul>"
            + "".join(f"<li><input type=checkbox aria-label=done> <span>{t}</span> <button>Delete</button></li>"
                      for t in ("Walk the dog", "Buy milk", "Call mom"))
            + "</ul><script>document.querySelectorAll('button').forEach((b) => b.onclick = () => b.parentNode.remove());"
            "</script></body></html>")
    c = contract([])
    c["transitions"][0]["steps"] = [{"action": "check", "target": {"role": "checkbox", "row": "buy milk"}},
                                    {"action": "click", "target": {"role": "button", "name": "delete", "row": "call mom"}}]
    c["transitions"][0]["assertions"] = [
        check("W1", {"action": "assert_js_value", "expression": "[...document.querySelectorAll('li')].map((li) => "
                     "li.textContent.trim().split(/\\s+/)[0] + (li.querySelector('input').checked ? '+' : '')).join(',')",
                     "expected": "Walk,Buy+"})]
    got = run(c, worker, cfg, page)
    assert got.transitions["T1"].status == "passed", got.transitions["T1"].reasons


def test_circles_regions_and_labelled_screenshots(worker, cfg):
    # The orbiting dot is the one filled circle; the top-left corner holds the speed text (white),
    # the bottom-left corner nothing; Space pauses, so the view matches the one labelled at the start.
    dot = "observed.circles.length === 1 && observed.circles[0].fill === '#ff8800' && observed.circles[0].r === 12"
    canvas = {"selector": "canvas"}
    c = contract([check("C1", {"action": "assert_js_value", "expression": dot}),
                  check("C2", {"action": "assert_colors", **canvas, "region": [0, 0, 0.3, 0.1], "colors": ["#ffffff"]}),
                  check("C3", {"action": "assert_coverage", **canvas, "region": [0, 0.5, 0.2, 0.4], "max_share": 0.0})])
    c["transitions"][0]["steps"] = [{"action": "press_key", "key": " "}, {"action": "screenshot", "label": "paused"},
                                    {"action": "wait", "ms": 300}]
    c["transitions"][0]["assertions"] = [check("C4", {"action": "assert_screenshot_matches", "label": "paused"}),
                                         check("C5", {"action": "assert_screenshot_matches", "label": "nope"})]
    got = run(c, worker, cfg)
    assert got.initial == {"C1": True, "C2": True, "C3": True}, got.initial_reasons
    assert got.transitions["T1"].assertions == {"C4": True, "C5": False}
    assert "no screenshot labelled 'nope'" in got.transitions["T1"].reasons["C5"]


def test_a_circle_takes_the_style_it_is_filled_or_stroked_with(worker, cfg):
    page = ("<!doctype html><html lang=en><body style='margin:0'><canvas width=200 height=100></canvas><script>"
            "const g = document.querySelector('canvas').getContext('2d');"
            "g.beginPath(); g.arc(100, 50, 40, 0, 7); g.strokeStyle = '#333'; g.stroke();"  # an orbit
            "g.beginPath(); g.arc(140, 50, 5, 0, 7); const grad = g.createRadialGradient(140, 50, 0, 140, 50, 5);"
            "grad.addColorStop(0, 'red'); grad.addColorStop(1, 'blue'); g.fillStyle = grad; g.fill();"  # a planet
            "</script></body></html>")
    shapes = "JSON.stringify(observed.circles.map((c) => [c.x, c.y, c.r, c.fill, c.stroke]))"
    got = run(contract([check("F1", {"action": "assert_js_value", "expression": shapes,
                                     "expected": '[[100,50,40,null,"#333333"],[140,50,5,"gradient",null]]'})]), worker, cfg, page)
    assert got.initial == {"F1": True}, got.initial_reasons
