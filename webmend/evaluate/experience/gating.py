"""Tiered gating: layer 3 runs only when layers 1-2 showed deeper interactivity.

Pure: reads layer 1-2 evidence, returns the decision and the reasons, which the record keeps.
"""

from __future__ import annotations

from webmend.evaluate.experience.state import START_PROMPT

MIN_LOOP_FPS = 20.0
MOVEMENT_KEYS = {"ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "KeyW", "KeyA", "KeyS", "KeyD", "Space"}


def layer3_reasons(ev: dict) -> list[str]:
    why = []
    canvases = [c for c in ev.get("canvases") or [] if c.get("visible")]
    motion = ev.get("motion") or {}
    if canvases and ((motion.get("fps_max") or 0) >= MIN_LOOP_FPS or motion.get("animating")):
        why.append("canvas with an animation loop")
    moves = set(ev.get("keys_responsive") or []) & MOVEMENT_KEYS
    if ev.get("keyboard_listeners") and (canvases or moves):
        # Keys on a DOM app (Enter, Escape) are shortcuts; arrows, WASD or Space that do something are play.
        why.append("keyboard-driven play")
    found = ev.get("state_roles") or {}
    if found.get("score") or found.get("lives") or found.get("over"):
        why.append("game state variables")
    if any(START_PROMPT.search(t or "") for t in [ev.get("visible_text") or ""] + list(ev.get("drawn_text") or [])):
        why.append("a start prompt")
    if any((c.get("revealed_controls") or 0) > 0 for c in ev.get("controls") or []):
        why.append("multi-step UI (a control revealed new controls)")
    return why


GAME_REASONS = ("canvas with an animation loop", "keyboard-driven play", "game state variables", "a start prompt")


def game_like(reasons: list[str]) -> bool:
    """Layer 3 ran because the page looked like a game (not only a multi-step UI)."""
    return any(r in GAME_REASONS for r in reasons)


ANIMATION_ONLY = "canvas animation only (no keys, game state, start prompt or multi-step UI): nothing to play"


def decide_layer3(ev: dict, mode: str) -> tuple[bool, list[str]]:
    if mode == "never":
        return False, ["disabled in config"]
    why = layer3_reasons(ev)
    if mode == "always":
        return True, why or ["forced in config"]
    if why == ["canvas with an animation loop"]:
        # A chart that animates, a 3D scene that turns, generative art: a loop on its own is not a
        # game, and a rollout of random taps on it would cost 30 s of its (dear) frames for nothing.
        return False, [ANIMATION_ONLY]
    return bool(why), why or ["no canvas loop, keyboard play, game state, start prompt or multi-step UI"]
