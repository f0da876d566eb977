"""Evidence gathered without test cases: render, motion, layout per viewport, control census,
key response, design features and tampering. Scores read this; it never decides anything.
"""

from __future__ import annotations

import json
import logging

from webmend.browser.session import PageCrashed, PageHung, PageSession
from webmend.browser.tamper import find_tampering
from webmend.tasks.keys import normalize_key
from webmend.tasks.similarity import is_blank, screenshot_diff

log = logging.getLogger(__name__)

PROBE_KEYS = ("ArrowRight", "ArrowUp", "Space", "Enter")
CHANGE_EPS = 0.01  # screenshot diff above this counts as a visible change
BLUR = "document.activeElement && document.activeElement.blur && document.activeElement.blur(), true"
TEXT_INPUTS = {"", "text", "search", "email", "url", "tel", "password", "number"}


async def run_probe(s: PageSession) -> dict:
    """Gather evidence on document 0 of the session (the test cases use the later ones)."""
    cfg = s.cfg
    ev: dict = {"load_hang": False, "crashed": False, "steps_hung": []}
    try:
        try:
            await s.load(0)
        except PageHung:
            ev["load_hang"] = True
        await _look(s, ev)
        await _mobile(s, ev)
        # On a page that animates by itself, pixels change without any input: only DOM
        # changes can then show that a control or key did something.
        # Without a visible canvas every visible change is a DOM change, so pixels add nothing.
        canvas = any(c.get("visible") for c in ev.get("canvases") or [])
        pixels = canvas and max(ev["motion_diff"], ev["motion_late_diff"]) <= CHANGE_EPS
        await _controls(s, ev, cfg.probe_controls, pixels)
        await _keys(s, ev, pixels)
        ev["tampering"] = await find_tampering(s)
        ev["dom_nodes_final"] = (await s.iso("__wm.doc()"))["nodes"]
    except PageCrashed as exc:
        ev["crashed"] = True
        ev["crash_during"] = str(exc)
    except PageHung as exc:
        ev["steps_hung"].append(str(exc))
    except Exception as exc:  # keep what was gathered; the reason is part of the evidence
        log.warning("probe stopped early: %s", exc)
        ev["probe_error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
    return ev


async def _look(s: PageSession, ev: dict) -> None:
    first = await s.thumb()
    ev["doc"] = await s.iso("__wm.doc()")
    ev["blank"] = is_blank(first)
    ev["canvases"] = await s.iso("__wm.canvases()")
    ev["design"] = await s.iso("__wm.design()")
    ev["a11y"] = await s.iso("__wm.a11y()")
    ev["overflow_desktop"] = await s.iso("__wm.overflow()")
    await s.advance(500)
    second = await s.thumb()
    ev["motion_diff"] = screenshot_diff(first, second)
    await s.advance(1000)
    # Compared with the second frame, not the first: a loop that stalls shows up here.
    ev["motion_late_diff"] = screenshot_diff(second, await s.thumb())


async def _mobile(s: PageSession, ev: dict) -> None:
    desktop = s.viewport
    mobile = s.cfg.mobile_viewport
    await s.set_viewport(mobile.width, mobile.height)
    await s.advance(s.cfg.limits.settle_ms)
    ev["overflow_mobile"] = await s.iso("__wm.overflow()")
    ev["design_mobile"] = await s.iso("__wm.design()")
    await s.set_viewport(desktop.width, desktop.height)
    await s.advance(s.cfg.limits.settle_ms)


async def _changed(s: PageSession, before_sig: str, before_thumb, use_pixels: bool) -> bool:
    after_sig = await s.iso("__wm.signature()")
    if after_sig.split(":")[0] != before_sig.split(":")[0]:
        return True
    if use_pixels:
        return screenshot_diff(before_thumb, await s.thumb()) > CHANGE_EPS
    return False


async def _controls(s: PageSession, ev: dict, limit: int, pixels: bool) -> None:
    census = await s.iso(f"__wm.census({limit * 3})")
    ev["controls_total"] = len(census)
    chosen = sorted(census, key=lambda c: (not c["inViewport"], -c["area"]))[:limit]
    results = []
    for c in chosen:
        results.append(await _try_control(s, c, pixels))
    ev["controls"] = results


async def _try_control(s: PageSession, c: dict, pixels: bool) -> dict:
    out = {"selector": c["selector"], "tag": c["tag"], "type": c["type"], "text": c["text"], "responded": False}
    is_text = c["tag"] == "textarea" or (c["tag"] == "input" and c["type"] in TEXT_INPUTS)
    loc = s.page.locator(c["selector"]).first
    sel = json.dumps(c["selector"])
    try:
        await s.iso(BLUR)  # a focus ring leaving the previous control is not this control's doing
        if not is_text:
            # Hover first, so the before/after pair isolates the click from hover styling
            # (and from the previous control losing its hover state).
            look = await s.iso(f"__wm.look({sel})")
            await s.guard(loc.hover(timeout=1000), "hover")
            await s.advance(s.cfg.limits.settle_ms)
            out["hover_changed"] = await s.iso(f"__wm.look({sel})") != look
        sig, thumb = await s.iso("__wm.signature()"), (await s.thumb() if pixels else None)
        await _use(s, loc, c, is_text)
        await s.advance(s.cfg.limits.settle_ms * 3)
        out["responded"] = await _changed(s, sig, thumb, use_pixels=pixels and not is_text)
    except PageHung:
        # The control started a runaway script; it was stopped, and the probe goes on.
        out["hung"] = True
    except PageCrashed:
        raise
    except Exception as exc:
        out["error"] = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
    return out


async def _use(s: PageSession, loc, c: dict, is_text: bool) -> None:
    if is_text:
        await s.guard(loc.fill("42" if c["type"] == "number" else "test", timeout=1000), "fill")
        await s.guard(loc.press("Enter", timeout=1000), "enter")
    elif c["tag"] == "select":
        await s.guard(loc.select_option(index=1, timeout=1000), "select")
    else:
        await s.guard(loc.click(timeout=1000), "click")


async def _keys(s: PageSession, ev: dict, pixels: bool) -> None:
    await s.iso(BLUR)
    worked = []
    for key in PROBE_KEYS:
        try:
            sig, thumb = await s.iso("__wm.signature()"), (await s.thumb() if pixels else None)
            await s.guard(s.page.keyboard.press(normalize_key(key)), f"press {key}")
            await s.advance(s.cfg.limits.settle_ms * 3)
            if await _changed(s, sig, thumb, use_pixels=pixels):
                worked.append(key)
        except PageHung:
            ev["steps_hung"].append(f"press {key}")
    ev["keys_responsive"] = worked
