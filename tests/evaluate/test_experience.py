"""The experience protocol on fixture pages written for it (data/fixtures/experience): the trace
must find exactly what each fixture does (expected.json beside the pages)."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES

from webmend.evaluate.inputs import RawInput
from webmend.evaluate.records import evaluate_input

EXPECTED = json.loads((FIXTURES / "experience" / "expected.json").read_text())
PAGES = sorted(EXPECTED)


@pytest.fixture(scope="module")
def records(worker, cfg, tmp_path_factory):
    out = tmp_path_factory.mktemp("experience")
    recs = {}
    for i, name in enumerate(PAGES):
        raw = RawInput(index=i, id=name, source=name, raw=(FIXTURES / "experience" / name).read_bytes())
        recs[name] = evaluate_input(raw, None, cfg, worker, out)
    return out, recs


def _selectors(rec: dict, pred) -> set[str]:
    return {c["selector"] for c in rec["evidence"]["probe"].get("controls") or [] if pred(c)}


@pytest.mark.parametrize("name", PAGES)
def test_trace_finds_what_the_fixture_does(records, name):
    _, recs = records
    rec, want = recs[name], EXPECTED[name]
    got = rec["trace_summary"]
    assert rec["status"] == "ok", rec["reason"]
    checks = {
        "animating": got["animating"],
        "animation_stalled": got["animation_stalled"],
        "page_errors": got["page_errors"],
        "console_errors": got["console_errors"],
        "canvases": got["canvases"],
        "blank_canvases": got["blank_canvases"],
        "controls_total": got["controls_total"],
        "dead_controls": set(got["dead_controls"]),
        "responsive_controls": _selectors(rec, lambda c: c.get("responded")),
        "hover_controls": _selectors(rec, lambda c: c.get("hover_changed")),
        "keys_worked": set(got["keys_worked"]),
        "overflow": {v: got["viewports"][v]["overflow"] for v in ("desktop", "tablet", "mobile")},
        "offscreen_controls_mobile": got["viewports"]["mobile"]["offscreen_controls"] > 0,
        "overlapping_controls": got["viewports"]["desktop"]["overlapping_controls"] > 0,
        "unreadable_text": bool(got["viewports"]["desktop"]["unreadable_text"]),
        "below_fold": got["below_fold"],
        "scroll_changes": got["scroll_changes"],
        "form_submit_changes": got["forms_responding"] > 0,
        "layer3": 3 in rec["layers"],
        "start_action": got["start_action"],
        "layer3_outcome": got["layer3_outcome"],
    }
    wrong = {}
    for key, value in want.items():
        if key not in checks:
            continue
        expected = value
        if key in ("dead_controls", "responsive_controls", "hover_controls", "keys_worked"):
            expected = set(value)
        elif key in ("offscreen_controls_mobile", "overlapping_controls"):
            expected = value > 0
        if checks[key] != expected:
            wrong[key] = {"expected": expected, "got": checks[key]}
    assert not wrong, wrong


def test_wiring_tells_unwired_dead_controls_from_wired_ones(records):
    _, recs = records
    dead = recs["dead_button.html"]["trace_summary"]
    assert dead["dead_unwired_controls"] == ["#refresh"] and dead["wired_controls"] == 0
    hover = recs["hover_menu.html"]
    order = next(c for c in hover["evidence"]["probe"]["controls"] if c["selector"] == "#order")
    assert "click" in order["listeners"]  # attached with addEventListener
    assert hover["trace_summary"]["wired_controls"] >= 1


def test_slow_response_latency_is_measured_in_page_time(records):
    _, recs = records
    ctrl = next(c for c in recs["slow_response.html"]["evidence"]["probe"]["controls"] if c["responded"])
    assert ctrl["latency_ms"] >= EXPECTED["slow_response.html"]["response_latency_ms"]
    fast = [c["latency_ms"] for c in recs["hover_menu.html"]["evidence"]["probe"]["controls"] if c["responded"]]
    assert fast and max(fast) <= 300


def test_layers_and_keyframes_are_recorded(records):
    out, recs = records
    static = recs["static_article.html"]
    assert static["layers"] == [1, 2, 4]
    assert static["trace_summary"]["layer3_outcome"] == "not_run"
    game = recs["space_to_start.html"]
    assert game["layers"] == [1, 2, 3, 4]
    assert game["trace_summary"]["start_action"] == "Space"
    for rec in recs.values():
        assert 0 < len(rec["keyframes"]) <= 12
        for k in rec["keyframes"]:
            path = out / k["file"]
            assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            assert k["annotation"]
        events = rec["evidence"]["experience"]["trace"]
        assert [e["i"] for e in events] == list(range(len(events)))
        assert all(k["event"] is None or 0 <= k["event"] < len(events) for k in rec["keyframes"])


def test_a_dom_card_game_is_found_and_played(records):
    """Cards that are plain divs with a pointer cursor are controls; turn counters are game state;
    with nothing to start, the rollout starts by clicking a card and sees the counters move."""
    _, recs = records
    rec = recs["memory_cards.html"]
    assert "game state variables" in rec["evidence"]["experience"]["layers_why"]["3"]
    play = rec["evidence"]["probe"]["play"]
    assert set(play["roles"]["score"]) == {"moves", "pairs"}
    assert rec["trace_summary"]["score_changed"], play
    cards = [c for c in rec["evidence"]["probe"]["controls"] if c["selector"].startswith("#card-")]
    assert len(cards) == 8 and all(c["tag"] == "div" and c["listeners"] == [] for c in cards)


def test_a_loop_that_throws_is_a_stall_with_an_error(records, worker, cfg, tmp_path):
    _, recs = records
    got = recs["loop_throws.html"]["trace_summary"]
    assert got["animation_stalled"] and got["page_errors"] == 1  # layer 1 sees it
    # An animation with nothing to play gets no rollout; forced, the rollout names the error.
    assert got["layer3_outcome"] == "not_run"
    forced = cfg.model_copy(update={"experience": cfg.experience.model_copy(update={"layer3": "always"})})
    raw = RawInput(index=0, id="loop_throws", source="loop_throws", raw=(FIXTURES / "experience" / "loop_throws.html").read_bytes())
    assert evaluate_input(raw, None, forced, worker, tmp_path)["trace_summary"]["layer3_outcome"] == "error"


DRAG = """<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width"><title>Drag</title></head>
<body style="margin:0;font-family:sans-serif"><div id="card" draggable="true"
style="position:absolute;left:20px;top:20px;width:80px;height:40px;background:#ccd">Card</div>
<div id="zone" style="position:absolute;left:110px;top:0;width:300px;height:200px;border:1px dashed #888">Drop here</div>
<p id="st" style="position:absolute;top:220px">idle</p><script>
const zone = document.getElementById('zone'), card = document.getElementById('card');
zone.addEventListener('dragover', (e) => e.preventDefault());
zone.addEventListener('drop', (e) => { e.preventDefault(); zone.appendChild(card); document.getElementById('st').textContent = 'moved'; });
</script></body></html>"""


def test_draggables_are_dragged_not_clicked(evaluate):
    ev = evaluate(DRAG)
    card = next(c for c in ev["probe"]["controls"] if c["selector"] == "#card")
    assert card["responded"] is True
    assert any(e["action"] == "drag" and e["target"] == "#card" and e["change"] for e in ev["experience"]["trace"])


SELECT = """<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width"><title>Sort</title></head>
<body><label>Sort by <select id="sort"><option>Name</option><option selected>Date</option><option>Size</option></select></label>
<p id="st">by date</p><script>
document.getElementById('sort').addEventListener('change', (e) => {
  document.getElementById('st').textContent = 'by ' + e.target.value.toLowerCase();
});
</script></body></html>"""


def test_a_select_is_used_by_choosing_an_option_other_than_the_one_shown(evaluate):
    # its second option is the default: choosing it again would change nothing and read as dead
    ev = evaluate(SELECT)
    sort = next(c for c in ev["probe"]["controls"] if c["selector"] == "#sort")
    assert sort["action"] == "select" and sort["responded"] is True


PICKER = """<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width"><title>Tint</title></head>
<body><label>Tint <input type="color" id="tint" value="#ff6030"></label> <span id="hex">#ff6030</span>
<label>Shade <input type="color" id="shade" value="#000000"></label><script>
document.getElementById('tint').addEventListener('input', (e) => { document.getElementById('hex').textContent = e.target.value; });
</script></body></html>"""


def test_a_colour_input_is_used_by_picking_a_colour_and_is_never_dead_for_a_picker_nobody_sees(evaluate):
    controls = {c["selector"]: c for c in evaluate(PICKER)["probe"]["controls"]}
    assert controls["#tint"]["action"] == "pick" and controls["#tint"]["responded"] is True
    # the page ignores it: as for a text field nobody reacts to, neutral, not dead
    assert controls["#shade"]["responded"] is None
