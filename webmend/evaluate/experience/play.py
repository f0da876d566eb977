"""Layer 3, a task-driven rollout: start the game or flow, play it with the inputs it responds
to for a budget of page time, and record what the play changed.

Generic by construction: the start attempts, the action set and the state it watches come from
layers 1-2 and from the page's own globals, never from knowledge of one game. Random choices
come from a generator seeded by the sandbox seed, so a rollout replays identically.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from webmend.browser.page_errors import PageHung
from webmend.browser.page_input import PARKED_POINTER
from webmend.browser.session import PageSession
from webmend.evaluate.experience import state
from webmend.evaluate.experience.trace import Trace
from webmend.evaluate.keys import normalize_key
from webmend.evaluate.similarity import visibly_changed

START_TEXT = re.compile(r"\b(start|play|begin|new game|restart)\b", re.I)
PLAY_KEYS = ("ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Space")
# Controls a player does not press while playing: they stop, reset or leave the game.
NOT_PLAY = re.compile(r"\b(pause|resume|restart|reset|stop|menu|quit|exit|mute|sound|music|settings|options|help|fullscreen|back)\b", re.I)
LOOK_EVERY = 5  # steps between thumbnails during play


@dataclass
class Observation:
    page_ms: int
    flat: dict
    text: str
    drawn: list[str]
    thumb: object
    frames: int | None
    pending_frames: int | None
    sig: str

    def over_text(self) -> bool:
        return state.says_game_over([self.text] + self.drawn)

    def prompt(self) -> bool:
        return any(state.START_PROMPT.search(t or "") for t in [self.text] + self.drawn)

    def shown_score(self) -> int | None:
        for t in [self.text] + self.drawn[::-1]:
            if (v := state.text_score(t)) is not None:
                return v
        return None


@dataclass
class Rollout:
    names: list[str]
    since: int = 0  # page time of the previous observation (drawn text since then)
    pointer: tuple[float, float] | None = None  # where the rollout left the mouse

    async def repoint(self, s: PageSession) -> None:
        """Move the mouse onto the point it already rests on. When the layout under a resting
        pointer changes, Chromium updates :hover on a real-time timer; an explicit move makes the
        hover state of every observation and keyframe the same on every run."""
        if self.pointer is not None:
            await s.guard(s.page.mouse.move(*self.pointer), "pointer")

    async def observe(self, s: PageSession, with_thumb: bool = True) -> Observation:
        await self.repoint(s)
        stats = await s.clock_stats()
        now = int(s.vnow - s.doc_start)
        obs = Observation(
            page_ms=now,
            flat=await state.snapshot(s, self.names),
            text=await s.iso("__wm.visibleText(3000)") or "",
            drawn=await state.drawn_text(s, self.since),
            thumb=await s.thumb() if with_thumb else None,
            frames=stats["fired"]["frame"] if stats else None,
            pending_frames=stats["pending"]["frame"] if stats else None,
            sig=(await s.iso("__wm.signature()")).split(":")[0],
        )
        self.since = now
        return obs


def moved(a: Observation, b: Observation) -> bool:
    """Did anything change between two observations (pixels, DOM, or the page's numbers)?"""
    if a.thumb is not None and b.thumb is not None and visibly_changed(a.thumb, b.thumb):
        return True
    return a.sig != b.sig or any(a.flat.get(k) != v for k, v in b.flat.items() if isinstance(v, (int, float)) and not isinstance(v, bool))


async def play(s: PageSession, tr: Trace, ev: dict, seed: int, game: bool = True) -> dict:
    """The rollout. For a page that looked like a game it first finds how to start it; a
    multi-step UI (game=False) has nothing to start, so play begins at once."""
    tr.doc = "play"
    errors0 = s.shared.events.page_error_count
    await s.load("play")
    ro = Rollout(names=await state.global_names(s))
    start = await ro.observe(s)
    out = {"state_names": len(ro.names), "roles": state.roles(start.flat), "start_action": None, "steps": 0}
    tr.add(s, 3, "load", target="play document", change=None, globals=len(ro.names), roles={k: v[:4] for k, v in out["roles"].items() if v})
    if game:
        started, first = await _start(s, tr, ro, ev, start, out)
    else:
        started, first = True, start
        out.update(start_action="none (a multi-step UI)", started_at_ms=start.page_ms)
    if not started:
        out["outcome"] = "did_not_start"
        await tr.keyframe(s, 3, "no start action made anything happen", len(tr.events) - 1)
        return out
    await tr.keyframe(s, 3, f"started by {out['start_action']}", len(tr.events) - 1)
    x = s.cfg.experience
    budget = x.play_budget_ms if game else x.multi_step_budget_ms
    await _rollout(s, tr, ro, ev, first, out, random.Random(seed), budget, x.scene_budget_ms if game else None)
    _outcome(out, s, errors0)
    return out


def start_attempts(ev: dict, clickables: list[dict]) -> list[tuple[str, dict]]:
    """Ways a user would try to start: a start button, the usual keys, a click on the canvas,
    and last a click on the first piece of a board."""
    out: list[tuple[str, dict]] = []
    for c in clickables:
        if c["tag"] != "canvas" and START_TEXT.search(c["text"] or ""):
            out.append((f"click {c['selector']}", c))
            break
    if ev.get("keyboard_listeners"):
        out += [("Space", {}), ("Enter", {})]
    canvases = [c for c in clickables if c["tag"] == "canvas"]
    if canvases:
        big = max(canvases, key=lambda c: c["width"] * c["height"])
        out.append(("click canvas", big))
    if ev.get("keyboard_listeners"):
        out += [("ArrowRight", {}), ("ArrowUp", {}), ("KeyD", {})]
    # A board with nothing to start (a card or tile game): a user simply clicks a piece.
    piece = next((c for c in clickables if c["tag"] != "canvas" and not START_TEXT.search(c["text"] or "")
                  and not NOT_PLAY.search(c["text"] or "")), None)
    if piece:
        out.append((f"click {piece['selector']}", piece))
    return out


async def _do(s: PageSession, action: str, target: dict, hold_ms: int, ro: "Rollout | None" = None) -> None:
    if action.startswith("click") or action.startswith("tap") or action.startswith("move"):
        if ro is not None:
            # After a click on a page element the pointer is parked in the corner: where it rests
            # decides :hover, which Chromium re-evaluates on a real-time timer after layout changes.
            ro.pointer = PARKED_POINTER if action.startswith("click") else (target["x"], target["y"])
        mouse = s.page.mouse
        await s.guard(mouse.click(target["x"], target["y"]) if not action.startswith("move") else mouse.move(target["x"], target["y"]), action)
        # The move restyles :hover (and starts its transitions) in Chromium's next real frame;
        # let that frame come before page time runs, or the transition starts mid-run.
        await s.pointer_landed()
        await s.advance(hold_ms)
    else:
        key = normalize_key(action)
        await s.guard(s.page.keyboard.down(key), f"press {action}")
        await s.advance(hold_ms)
        await s.guard(s.page.keyboard.up(key), f"release {action}")


async def _start(s: PageSession, tr: Trace, ro: Rollout, ev: dict, start: Observation, out: dict):
    x = s.cfg.experience
    await s.advance(x.start_wait_ms)
    idle = await ro.observe(s)
    running = moved(start, idle) and not (start.prompt() or idle.prompt())
    tr.add(s, 3, "watch", target=f"{x.start_wait_ms} ms without input", change=running, prompt=idle.prompt() or None)
    if running:
        out["start_action"] = "none (already running)"
        out["started_at_ms"] = start.page_ms
        return True, idle
    before = idle
    for action, target in start_attempts(ev, await s.iso("__wm.clickables(40)"))[:6]:
        try:
            await _do(s, action, target, 50, ro)
            await s.advance(x.start_wait_ms)
        except PageHung:
            tr.add(s, 3, action, change=None, hung=True)
            continue
        after = await ro.observe(s)
        began = (before.prompt() and not after.prompt()) or moved(before, after)
        tr.add(s, 3, "start attempt", target=action, change=began)
        if began:
            out["start_action"] = action
            out["started_at_ms"] = before.page_ms
            return True, after
        before = after
    return False, before


def action_set(ev: dict, clickables: list[dict]) -> list[tuple[str, dict]]:
    """The inputs the rollout chooses from: keys the page listens for, clicks and pointer moves."""
    acts: list[tuple[str, dict]] = []
    if ev.get("keyboard_listeners"):
        keys = list(PLAY_KEYS) + [k for k in ev.get("keys_responsive") or [] if k not in PLAY_KEYS and k not in ("Escape", "Enter")]
        acts += [(k, {}) for k in keys]
    for c in [c for c in clickables if not NOT_PLAY.search(c["text"] or "")][:12]:
        acts.append((f"click {c['selector']}" if c["tag"] != "canvas" else "tap canvas", c))
    return acts


async def _actions(s: PageSession, ev: dict) -> list[tuple[str, dict]]:
    return action_set(ev, await s.iso("__wm.clickables(40)")) or [("wait", {})]


def _point(rng: random.Random, target: dict) -> dict:
    """A seeded point inside a target (canvases are clicked anywhere, controls at their centre)."""
    if target.get("tag") != "canvas":
        return target
    return {"x": target["x"] + (rng.random() - 0.5) * target["width"] * 0.8,
            "y": target["y"] + (rng.random() - 0.5) * target["height"] * 0.8}


def keeps_progress(obs: Observation) -> bool:
    """Does the page keep state a player advances: a score, lives, a level or a game-over flag
    among its globals, or a score on screen?"""
    found = state.roles(obs.flat)
    return any(found[r] for r in ("score", "lives", "level", "over")) or obs.shown_score() is not None


async def _rollout(s: PageSession, tr: Trace, ro: Rollout, ev: dict, first: Observation, out: dict,
                   rng: random.Random, budget_ms: int, scene_ms: int | None = None) -> Observation:
    """Play for budget_ms; a page without progress state (keeps_progress) only for scene_ms,
    until such state shows up: with nothing to advance, longer play only revisits the states the
    first seconds showed (a scene's camera, a timer's start and pause)."""
    x = s.cfg.experience
    prev = first
    steps = budget_ms // x.play_step_ms
    limit = steps
    if scene_ms is not None and scene_ms < budget_ms and not keeps_progress(first):
        limit = scene_ms // x.play_step_ms
    out["budget_ms"] = limit * x.play_step_ms
    acts = await _actions(s, ev)
    out["actions"] = sorted({a for a, _ in acts})
    taken: list[str] = []
    state_changed = False
    taken_steps = 0
    while taken_steps < limit:
        action, target = acts[rng.randrange(len(acts))]
        try:
            if action == "wait":
                await s.advance(x.play_step_ms)
            else:
                await _do(s, action, _point(rng, target), x.play_step_ms, ro)
        except PageHung:
            tr.add(s, 3, "play", target=action, change=None, hung=True)
            out["hung"] = True
            break
        taken.append(action)
        taken_steps += 1
        out["steps"] = taken_steps
        if taken_steps % LOOK_EVERY and taken_steps != limit:
            continue
        obs = await ro.observe(s)
        if limit < steps and keeps_progress(obs):
            limit = steps  # a score or lives appeared: a game after all
            out["budget_ms"] = budget_ms
        changes = _changes(prev, obs)
        out.setdefault("changed", set()).update(changes)
        tr.add(s, 3, "play", target=", ".join(sorted(set(taken))), change=bool(changes), changes=changes or None)
        taken = []
        if changes.get("game_over"):
            out["game_over_at_ms"] = obs.page_ms
            await tr.keyframe(s, 3, "game over", len(tr.events) - 1)
            return obs
        if changes.get("score") and not out.get("_score_frame"):
            out["_score_frame"] = await tr.keyframe(s, 3, "score changed during play", len(tr.events) - 1)
        prev = obs
        state_changed = state_changed or bool(set(changes) & {"score", "lives", "level", "position", "dom"})
        if not state_changed and obs.page_ms - first.page_ms >= x.play_idle_stop_ms:
            out["stopped_early"] = "no game state, DOM or position changed"
            break
        # Targets come and go (a game's sprites, a flow's next step): look for them again.
        acts = await _actions(s, ev)
        out["actions"] = sorted(set(out["actions"]) | {a for a, _ in acts})
    # A frame loop that ran (before or during play) and no longer requests frames has stopped.
    if prev.pending_frames == 0 and (prev.frames or 0) > 0:
        out["loop_stopped"] = True
    await ro.repoint(s)
    await tr.keyframe(s, 3, f"after {out['steps'] * x.play_step_ms} ms of play", len(tr.events) - 1)
    return prev


def _changes(a: Observation, b: Observation) -> dict:
    roles = state.roles({**a.flat, **b.flat})
    ch = {r: state.changed_keys(a.flat, b.flat, keys) for r, keys in roles.items()}
    ch = {r: keys[:4] for r, keys in ch.items() if keys}
    if a.shown_score() != b.shown_score() and b.shown_score() is not None:
        ch.setdefault("score", []).append("shown score")
    over = any(b.flat.get(k) is True and a.flat.get(k) is False for k in roles["over"])
    lives_out = any(b.flat.get(k) == 0 and (a.flat.get(k) or 0) > 0 for k in roles["lives"])
    if over or lives_out or (b.over_text() and not a.over_text()):
        ch["game_over"] = ["flag" if over else "lives 0" if lives_out else "text"]
    if a.thumb is not None and b.thumb is not None and visibly_changed(a.thumb, b.thumb):
        # Only that they changed, not by how much: a frame reaches the compositor in real time, so
        # the size of a thumbnail difference mid-transition depends on how busy the machine is
        # (0.03 on a quiet run, 0.04 beside a busy loop: data/bench viz_plotly_climate_001).
        ch["pixels"] = ["changed"]
    if a.sig != b.sig:
        ch["dom"] = ["changed"]
    return ch


def _outcome(out: dict, s: PageSession, errors0: int) -> None:
    """What the play amounted to (layer3_outcome in the trace summary)."""
    seen = set(out.pop("changed", []))
    out.pop("_score_frame", None)
    out["game_over"] = "game_over_at_ms" in out
    out["score_changed"] = "score" in seen
    # Pixels stand in for positions only when the page keeps no position variables.
    out["position_changed"] = "position" in seen or ("pixels" in seen and not out["roles"]["position"])
    out["page_errors_during_play"] = s.shared.events.page_error_count - errors0
    if out["game_over"]:
        out["outcome"] = "played"
    elif out.get("loop_stopped") and out["page_errors_during_play"]:
        out["outcome"] = "error"
    elif out.get("loop_stopped") or out.get("hung"):
        out["outcome"] = "stalled"
    elif out["score_changed"] or out["position_changed"]:
        out["outcome"] = "played"
    else:
        out["outcome"] = "stalled"  # nothing the rollout did changed the page's state
