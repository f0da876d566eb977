"""The experience protocol: how a page behaves for a user when nobody wrote tests.

Layer 1 views it (view.py), layer 2 uses it (use.py), layer 3 plays it when layers 1-2 ask for
it (gating.py, play.py), layer 4 keeps keyframes of the decisive moments (trace.py). The result
is the probe evidence the scores read, plus an ordered trace that repair reads. Rules and
thresholds: docs/experience.md.
"""

from __future__ import annotations

import logging

from webmend.browser.page_errors import BudgetExhausted, PageCrashed, PageHung
from webmend.browser.session import PageSession
from webmend.browser.tamper import find_tampering
from webmend.evaluate.experience import state
from webmend.evaluate.experience.gating import decide_layer3, game_like
from webmend.evaluate.experience.play import play
from webmend.evaluate.experience.trace import Keyframe, Trace
from webmend.evaluate.experience.use import use
from webmend.evaluate.experience.view import view

log = logging.getLogger(__name__)


def new_trace(s: PageSession) -> Trace:
    x = s.cfg.experience
    keep = s.cfg.mode == "full" or x.keyframes_in_fast_mode
    return Trace(max_keyframes=x.max_keyframes if keep else 0, slots=dict(x.keyframe_slots))


async def run_experience(s: PageSession) -> tuple[dict, dict, list[Keyframe]]:
    """Layers 1-4 on fresh documents of the session. Returns (probe evidence, experience, keyframes)."""
    tr = new_trace(s)
    ev: dict = {"load_hang": False, "crashed": False, "steps_hung": []}
    layers: list[int] = []
    why: dict[str, list[str]] = {}
    try:
        try:
            await s.load(0)
        except PageHung:
            ev["load_hang"] = True
            tr.add(s, 1, "load", change=None, hung=True)
        layers.append(1)
        why["1"] = ["every page"]
        await view(s, tr, ev)
        layers.append(2)
        why["2"] = ["every page"]
        # Pixels tell whether an action did something only on a canvas page that is still;
        # without a visible canvas every visible change is a DOM change.
        canvas = any(c.get("visible") for c in ev.get("canvases") or [])
        await use(s, tr, ev, pixels=canvas and not ev["motion"]["animating"])
        await _page_state(s, ev)
        run3, why["3"] = decide_layer3(ev, s.cfg.experience.layer3)
        if run3 and not ev["load_hang"]:
            layers.append(3)
            ev["play"] = await play(s, tr, ev, s.cfg.sandbox.seed, game=game_like(why["3"]))
    except PageCrashed as exc:
        ev["crashed"] = True
        ev["crash_during"] = str(exc)
    except PageHung as exc:
        ev["steps_hung"].append(str(exc))
    except BudgetExhausted as exc:  # the page's wall-clock budget ran out: keep what was gathered
        ev["budget_exhausted_during"] = str(exc)
    except Exception as exc:  # keep what was gathered; the reason is part of the evidence
        log.warning("experience stopped early: %s", exc, exc_info=log.isEnabledFor(logging.DEBUG))
        ev["probe_error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
    if tr.keyframes:
        layers.append(4)
        why["4"] = [f"{len(tr.keyframes)} keyframes"]
    experience = {"layers": layers, "layers_why": why, "trace": tr.events, "keyframes": tr.keyframe_records()}
    return ev, experience, tr.keyframes


async def _page_state(s: PageSession, ev: dict) -> None:
    """End of layer 2: what the page shows and keeps, for gating layer 3 and for tampering."""
    # Errors of the viewed and used document only (test cases and the rollout add their own).
    ev["document_errors"] = {"console": s.shared.events.console_error_count, "page": s.shared.events.page_error_count}
    ev["visible_text"] = await s.iso("__wm.visibleText(2000)")
    ev["drawn_text"] = await state.drawn_text(s, 0)
    names = await state.global_names(s)
    ev["state_roles"] = {k: v[:6] for k, v in state.roles(await state.snapshot(s, names)).items()}
    ev["tampering"] = await find_tampering(s)
    ev["dom_nodes_final"] = (await s.iso("__wm.doc()"))["nodes"]
