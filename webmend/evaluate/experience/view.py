"""Layer 1, ordinary viewing: first paint, motion over page time, layout at three viewports,
content below the fold, and canvases that stay blank."""

from __future__ import annotations

import numpy as np

from webmend.browser.session import PageSession
from webmend.config import Viewport
from webmend.evaluate.experience.trace import Trace
from webmend.evaluate.similarity import changed_share, is_blank, screenshot_diff, visibly_changed

LOOP_FPS = 20.0  # a frame loop at least this fast that stops requesting frames has stalled


async def view(s: PageSession, tr: Trace, ev: dict) -> None:
    first = await s.thumb()
    ev["doc"] = await s.iso("__wm.doc()")
    ev["blank"] = is_blank(first)
    i = tr.add(s, 1, "load", change=None, rendered=not ev["blank"], nodes=ev["doc"]["nodes"], text_chars=ev["doc"]["textChars"])
    await tr.keyframe(s, 1, "first paint", i)
    ev["canvases"] = await s.iso("__wm.canvases()")
    ev["design"] = await s.iso("__wm.design()")
    ev["a11y"] = await s.iso("__wm.a11y()")
    ev["below_fold"] = await s.iso("__wm.belowFold()")
    desktop, ev["_text_runs"] = await _layout(s)
    ev["viewports"] = {"desktop": desktop}
    ev["overflow_desktop"] = ev["viewports"]["desktop"]["overflow_info"]
    await _motion(s, tr, ev, first)
    ev["canvas_pixels"] = await _canvas_pixels(s)
    blank = [c["selector"] for c in ev["canvas_pixels"] if c["blank"]]
    if ev["canvas_pixels"]:
        tr.add(s, 1, "inspect canvases", change=None, canvases=len(ev["canvas_pixels"]), blank=blank)
    for name in ("tablet", "mobile"):
        await _at_viewport(s, tr, ev, name)


async def _layout(s: PageSession) -> tuple[dict, list[dict]]:
    """What a user sees wrong at the current viewport, and the visible text runs."""
    x = s.cfg.experience
    overflow = await s.iso("__wm.overflow()")
    controls = await s.iso("__wm.controlsLayout()")
    runs = [r for r in await s.iso("__wm.textRuns(300)") if r["visible"]]
    bad = [r for r in runs if r["font_px"] < x.min_readable_px or (r["contrast_ratio"] is not None and r["contrast_ratio"] < x.min_contrast)]
    return {
        "overflow": bool(overflow["overflowing"]),
        "overflow_info": overflow,
        "offscreen_controls": controls["offscreen"],
        "offscreen_selectors": controls["offscreenSelectors"],
        "overlapping_controls": controls["overlapping"],
        "overlapping_pairs": controls["overlappingPairs"],
        "text_runs": len(runs),
        "unreadable_runs": len(bad),
        "unreadable_text": bool(runs) and len(bad) / len(runs) >= x.unreadable_share,
    }, runs


async def _motion(s: PageSession, tr: Trace, ev: dict, first: np.ndarray) -> None:
    """Look at the idle page at successive page times: does anything move, how fast, does it stop."""
    windows = []
    prev, stats = first, await s.clock_stats()
    for ms in s.cfg.experience.motion_windows_ms:
        await s.advance(ms)
        thumb, now = await s.thumb(), await s.clock_stats()
        frames = now["fired"]["frame"] - stats["fired"]["frame"] if stats and now else None
        diff, share = screenshot_diff(prev, thumb), changed_share(prev, thumb)
        windows.append({"ms": ms, "diff": diff, "changed_share": share, "moved": visibly_changed(prev, thumb), "frames": frames,
                        "pending_frames": now["pending"]["frame"] if now else None})
        tr.add(s, 1, "watch", target=f"{ms} ms", change=windows[-1]["moved"], diff=round(diff, 3), frames=frames)
        prev, stats = thumb, now
    ev["motion"] = summarize_motion(windows)
    # The two figures the fast scores have always read: the first look, and the later ones.
    ev["motion_diff"] = windows[0]["diff"]
    ev["motion_late_diff"] = max(w["diff"] for w in windows[1:]) if len(windows) > 1 else 0.0
    if ev["motion"]["animating"]:
        await tr.keyframe(s, 1, f"after {sum(w['ms'] for w in windows)} ms idle ({'stalled' if ev['motion']['stalled'] else 'animating'})", len(tr.events) - 1)


def summarize_motion(windows: list[dict]) -> dict:
    """Animating, frame rate and stalls from the successive looks (pure, for tests and rescoring)."""
    moved = [w["moved"] for w in windows]
    fps = [round(w["frames"] * 1000 / w["ms"], 1) if w["frames"] is not None else None for w in windows]
    last = windows[-1] if windows else {}
    was_looping = any(f is not None and f >= LOOP_FPS for f in fps[:-1])
    loop_stopped = was_looping and last.get("pending_frames") == 0
    return {
        "windows": windows,
        "animating": any(moved),
        "moving_at_end": bool(moved and moved[-1]),
        "fps": fps[-1] if fps else None,
        "fps_max": max((f for f in fps if f is not None), default=None),
        # A frame loop that stops requesting frames has stalled (it threw, or the page stopped
        # it); motion that merely ends (an intro animation) has not.
        "stalled": loop_stopped,
        "motion_ended": bool(any(moved[:-1]) and not moved[-1]),
    }


async def _canvas_pixels(s: PageSession) -> list[dict]:
    x = s.cfg.experience
    out = []
    vw, vh = s.viewport.width, s.viewport.height
    for c in (await s.iso("__wm.canvasRects()"))[: x.max_canvases]:
        left, top = max(0.0, c["x"]), max(0.0, c["y"])
        w, h = min(c["x"] + c["width"], vw) - left, min(c["y"] + c["height"], vh) - top
        if not c["visible"] or w < 4 or h < 4:
            continue
        scale = min(1.0, 320 / max(w, h))
        px = await s.clip_rgb(left, top, w, h, scale)
        out.append({"selector": c["selector"], "width": round(c["width"]), "height": round(c["height"]), **pixel_facts(px, x.blank_canvas_std)})
    return out


def pixel_facts(px: np.ndarray, min_std: float) -> dict:
    """A canvas is blank when (almost) every pixel has one colour: cleared, nothing drawn."""
    flat = px.reshape(-1, px.shape[-1]).astype(np.int16)
    mode = _mode_colour(flat)
    off = float((np.abs(flat - mode).max(axis=1) > 8).mean())
    std = float(flat.std())
    return {"std": round(std, 2), "off_mode_share": round(off, 4), "blank": std < min_std or off < 0.002}


def _mode_colour(flat: np.ndarray) -> np.ndarray:
    """The most frequent RGB colour; among equally frequent ones the lowest (r, g, b). Each colour
    is packed into one integer (r << 16 | g << 8 | b, which sorts as the triple does): np.unique
    over rows sorts them lexicographically, 30-100x slower on a 320x180 capture."""
    rgb = flat.astype(np.int32)  # one RGB row per pixel
    values, counts = np.unique((rgb[:, 0] << 16) | (rgb[:, 1] << 8) | rgb[:, 2], return_counts=True)
    packed = int(values[counts.argmax()])
    return np.array([packed >> 16, (packed >> 8) & 255, packed & 255], dtype=np.int16)


async def _at_viewport(s: PageSession, tr: Trace, ev: dict, name: str) -> None:
    vp: Viewport = s.cfg.mobile_viewport if name == "mobile" else s.cfg.experience.tablet_viewport
    desktop = s.viewport
    await s.set_viewport(vp.width, vp.height)
    await s.advance(s.cfg.limits.settle_ms)
    layout, _ = await _layout(s)
    ev["viewports"][name] = layout
    if name == "mobile":
        ev["overflow_mobile"] = layout["overflow_info"]
        ev["design_mobile"] = await s.iso("__wm.design()")
    bad = layout["overflow"] or layout["offscreen_controls"] or layout["overlapping_controls"] or layout["unreadable_text"]
    i = tr.add(s, 1, "resize", target=f"{name} {vp.width}x{vp.height}", change=None, overflow=layout["overflow"],
               offscreen_controls=layout["offscreen_controls"], overlapping_controls=layout["overlapping_controls"],
               unreadable_text=layout["unreadable_text"])
    if name == "mobile" or bad:
        await tr.keyframe(s, 1, f"{name} {vp.width}x{vp.height}" + (" (layout problems)" if bad else ""), i)
    await s.set_viewport(desktop.width, desktop.height)
    await s.advance(s.cfg.limits.settle_ms)
