"""Pure parts of layer 3's decisions: which page numbers read as game state, what gating makes of
them, and how a rollout tries to start a game (webmend.evaluate.experience state / gating / play)."""

from __future__ import annotations

from webmend.evaluate.experience.gating import ANIMATION_ONLY, decide_layer3, layer3_reasons
from webmend.evaluate.experience.summary import trace_summary
from webmend.evaluate.experience.play import start_attempts
from webmend.evaluate.experience.state import roles


def test_turn_counters_are_score_like_but_retry_and_search_counts_are_not():
    flat = {"moves": 3, "pairs": 1, "game.turns": 2, "flips": 6, "total_pts": 40,
            "exfil.attempts": 2, "tries": 1, "matches": 12, "hiScore": 90, "lives": 3, "over": False}
    got = roles(flat)
    assert set(got["score"]) == {"moves", "pairs", "game.turns", "flips", "total_pts"}
    assert got["lives"] == ["lives"]
    assert got["over"] == ["over"]


def test_constants_are_not_game_state():
    # p5.js in global mode puts its drawing constants on window: POINTS is a shape kind, not a score.
    got = roles({"POINTS": 2, "MAX_LIVES": 3, "GAME_OVER": False, "CONFIG.LEVEL": 4, "points": 7})
    assert got == {"score": ["points"], "lives": [], "level": [], "over": [], "position": []}


def test_game_state_names_ask_for_layer_3_and_app_counters_do_not():
    card_game = {"state_roles": roles({"moves": 0, "pairs": 0})}
    app = {"state_roles": roles({"attempts": 0, "matches": 4})}
    assert "game state variables" in layer3_reasons(card_game)
    assert layer3_reasons(app) == []


def test_an_animated_canvas_alone_is_not_played_but_a_canvas_game_is():
    scene = {"canvases": [{"visible": True}], "motion": {"fps_max": 60, "animating": True}}
    assert decide_layer3(scene, "auto") == (False, [ANIMATION_ONLY])
    game = {**scene, "state_roles": roles({"score": 0})}
    run, why = decide_layer3(game, "auto")
    assert run and why == ["canvas with an animation loop", "game state variables"]
    assert decide_layer3(scene, "always")[0]  # config can still force a rollout


def test_a_multi_step_ui_rollout_is_not_a_detected_game():
    def summary(why):
        return trace_summary({"experience": {"layers": [1, 2, 3], "layers_why": {"3": why}}, "probe": {}})
    assert not summary(["multi-step UI (a control revealed new controls)"])["game_detected"]
    assert summary(["keyboard-driven play"])["game_detected"]


def _control(selector: str, text: str, tag: str = "div") -> dict:
    return {"selector": selector, "tag": tag, "text": text, "x": 10, "y": 10, "width": 90, "height": 90}


def test_a_board_with_nothing_to_start_is_started_by_clicking_a_piece():
    board = [_control("#restart", "Restart", "button"), _control("#card-0", "A"), _control("#card-1", "B")]
    attempts = [action for action, _ in start_attempts({}, board)]
    # A start-like button first (restart reads as one), then the first piece, never a second piece.
    assert attempts == ["click #restart", "click #card-0"]


def test_keys_and_canvas_come_before_a_piece():
    page = [_control("#board", "", "canvas"), _control("#help", "Help", "button"), _control("#cell-0", "")]
    attempts = [action for action, _ in start_attempts({"keyboard_listeners": ["window"]}, page)]
    assert attempts[:3] == ["Space", "Enter", "click canvas"]
    assert attempts[-1] == "click #cell-0"  # #help is not a piece (menu-like), the canvas is layer 3's own target
