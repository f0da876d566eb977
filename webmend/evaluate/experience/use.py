"""Layer 2, ordinary use: every prominent control used once (with its hover state, wiring and
response latency), a key scan, scrolling, and forms filled with plausible values and submitted."""

from __future__ import annotations

import json
import logging

from webmend.browser.page_errors import BudgetExhausted, PageCrashed, PageHung
from webmend.browser.session import PageSession
from webmend.evaluate.experience import state
from webmend.evaluate.experience.trace import Trace
from webmend.evaluate.keys import normalize_key
from webmend.evaluate.similarity import screenshot_diff

log = logging.getLogger(__name__)

CHANGE_EPS = 0.01
BLUR = "document.activeElement && document.activeElement.blur && document.activeElement.blur(), true"
TEXT_INPUTS = {"", "text", "search", "email", "url", "tel", "password", "number"}
# Inputs whose click opens the browser's own picker, which headless Chromium never shows: they are
# used by setting a value, as a user's pick would (PICK_VALUES).
PICKERS = {"color", "date", "time", "month", "week", "datetime-local"}
PICK_VALUES = {"color": "#3366cc", "date": "2026-01-15", "time": "09:30", "month": "2026-01", "week": "2026-W03",
               "datetime-local": "2026-01-15T09:30"}
KEY_EVENTS = {"keydown", "keyup", "keypress"}
# Plausible values by input type, then by what the field's name/label/placeholder says.
BY_TYPE = {"email": "ada@example.com", "tel": "+1 555 0100", "url": "https://example.com", "number": "42",
           "date": "2026-01-15", "time": "09:30", "month": "2026-01", "week": "2026-W03", "color": "#3366cc",
           "range": None, "password": "Secret-123"}
BY_HINT = (("mail", "ada@example.com"), ("phone", "+1 555 0100"), ("name", "Ada Lovelace"), ("age", "36"),
           ("zip", "10001"), ("city", "London"), ("message", "Hello, I would like to know more."),
           ("comment", "Hello, I would like to know more."), ("search", "weather"))


class Look:
    """What the page looks like now, compared by DOM and form state, and by pixels where needed."""

    def __init__(self, sig: str, thumb):
        self.sig, self.thumb = sig, thumb

    @classmethod
    async def take(cls, s: PageSession, pixels: bool) -> "Look":
        return cls(await s.iso("__wm.signature()"), await s.thumb() if pixels else None)

    async def changed(self, s: PageSession, pixels: bool, with_values: bool = True) -> bool:
        after = await s.iso("__wm.signature()")
        parts = 2 if with_values else 1
        if after.split(":")[:parts] != self.sig.split(":")[:parts]:
            return True
        return bool(pixels and self.thumb is not None and screenshot_diff(self.thumb, await s.thumb()) > CHANGE_EPS)


async def use(s: PageSession, tr: Trace, ev: dict, pixels: bool) -> None:
    await _controls(s, tr, ev, s.cfg.probe_controls, pixels)
    await _keys(s, tr, ev, pixels)
    await _scroll(s, tr, ev)
    await _forms(s, tr, ev)


async def _listeners(s: PageSession, expression: str) -> list[str]:
    """Event types the page attached to one target (addEventListener and on* handlers), via CDP.

    DevTools reports only the listeners of the world an object belongs to, so a node found in
    our isolated world is resolved again in the page's world by its backend id.
    """
    async def send(method: str, params: dict) -> dict:
        return await s.guard(s.cdp.send(method, params), "listeners")

    if expression == "window":  # the global object cannot be faked by the page
        oid = (await send("Runtime.evaluate", {"expression": "window"}))["result"].get("objectId")
    else:
        res = await s.world_eval({"expression": expression}, "listeners")
        node = res.get("result", {}).get("objectId")
        if not node:
            return []
        backend = (await send("DOM.describeNode", {"objectId": node}))["node"]["backendNodeId"]
        await send("Runtime.releaseObject", {"objectId": node})
        oid = (await send("DOM.resolveNode", {"backendNodeId": backend}))["object"].get("objectId")
    if not oid:
        return []
    got = await send("DOMDebugger.getEventListeners", {"objectId": oid})
    await send("Runtime.releaseObject", {"objectId": oid})
    return sorted({x["type"] for x in got.get("listeners", [])})


async def _controls(s: PageSession, tr: Trace, ev: dict, limit: int, pixels: bool) -> None:
    census = await s.iso(f"__wm.census({limit * 3})")
    ev["controls_total"] = len(census)
    chosen = sorted(census, key=lambda c: (not c["inViewport"], -c["area"]))[:limit]
    known = [c["selector"] for c in census]
    ev["controls"] = [await _try_control(s, tr, c, pixels, known) for c in chosen]


async def _try_control(s: PageSession, tr: Trace, c: dict, pixels: bool, known: list[str]) -> dict:
    out = {"selector": c["selector"], "tag": c["tag"], "type": c["type"], "text": c["text"], "responded": False}
    is_text = c["tag"] == "textarea" or (c["tag"] == "input" and c["type"] in TEXT_INPUTS)
    is_picker = c["tag"] == "input" and c["type"] in PICKERS
    loc = s.page.locator(c["selector"]).first
    sel = json.dumps(c["selector"])
    action = ("fill" if is_text else "pick" if is_picker else "select" if c["tag"] == "select"
              else "drag" if c.get("draggable") else "click")
    out["action"] = action  # how it was used: repair's evidence says so
    try:
        out["listeners"] = await _listeners(s, f"document.querySelector({sel})")
        await s.iso(BLUR)  # a focus ring leaving the previous control is not this control's doing
        if not is_text:
            look = await s.iso(f"__wm.look({sel})")
            await s.guard(loc.hover(timeout=1000), "hover")
            await s.pointer_landed()
            await s.advance(s.cfg.limits.settle_ms)
            out["hover_changed"] = await s.iso(f"__wm.look({sel})") != look
            # The control is used from a parked pointer and the pointer is parked again right
            # after, so the before/after pair compares resting states, never hover styling.
            await s.park_pointer()
            await s.advance(s.cfg.limits.settle_ms)
        # A text field or a picker shows its new value by itself (pixels and its own value change
        # whatever the page does): it counts only when the page reacted in the DOM (live filtering,
        # Enter adding an item, a label showing the colour); otherwise it is neutral (None), not dead.
        quiet_ok = is_text or is_picker
        before = await Look.take(s, pixels and not quiet_ok)
        want_pair = tr.wants_keyframe(2)
        await _use(s, loc, c, action)
        out["latency_ms"] = await _response(s, before, pixels and not quiet_ok, with_values=not quiet_ok)
        out["responded"] = out["latency_ms"] is not None or (None if quiet_ok else False)
        out["revealed_controls"] = await s.iso(f"__wm.newControls({json.dumps(known)})")
    except PageHung:
        out["hung"] = True  # the control started a runaway script; it was stopped, and the probe goes on
        want_pair = False
    except (PageCrashed, BudgetExhausted):
        raise
    except Exception as exc:
        out["error"] = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
        want_pair = False
    i = tr.add(s, 2, action, target=c["selector"], change=out["responded"], text=c["text"] or None,
               latency_ms=out.get("latency_ms"), hover_changed=out.get("hover_changed"), listeners=out.get("listeners"),
               hung=out.get("hung"), error=out.get("error"))
    if want_pair and out["responded"] is not None and (out["responded"] or not any(e["layer"] == 2 and e["change"] is False for e in tr.events[:-1])):
        what = "responded" if out["responded"] else "did nothing"  # the pointer is parked since the action
        await tr.keyframe(s, 2, f"after {action} on {c['tag']} \"{c['text'][:30]}\" ({what})", i)
    return out


async def _response(s: PageSession, before: Look, pixels: bool, with_values: bool = True) -> int | None:
    """Page time (of the configured checkpoints) at which the action's effect showed, or None."""
    waited = 0
    for at in s.cfg.experience.latency_checks_ms:
        await s.advance(at - waited)
        waited = at
        if await before.changed(s, pixels, with_values=with_values):
            return at
    return None


async def _use(s: PageSession, loc, c: dict, action: str) -> None:
    """Use the control the way `action` (from _try_control) says."""
    if action == "fill":
        await s.guard(loc.fill("42" if c["type"] == "number" else "test", timeout=1000), "fill")
        await s.guard(loc.press("Enter", timeout=1000), "enter")
    elif action == "pick":
        await s.guard(loc.fill(PICK_VALUES[c["type"]], timeout=1000), "pick")
    elif action == "select":
        # Another option than the one shown: choosing the selected option again changes nothing,
        # and a select whose second option is its default would read as dead.
        index = await s.iso(f"(() => {{ const el = document.querySelector({json.dumps(c['selector'])}); "
                            "if (!el || !el.options) return -1; for (let i = 0; i < el.options.length; i++) "
                            "if (i !== el.selectedIndex && !el.options[i].disabled) return i; return -1; })()")
        if isinstance(index, int) and index >= 0:
            await s.guard(loc.select_option(index=index, timeout=1000), "select")
    else:
        if action == "drag":
            await _drag(s, loc)
        else:
            await s.guard(loc.click(timeout=1000), "click")
        await s.park_pointer()  # only a click or a drag moves the pointer onto the page


async def _drag(s: PageSession, loc) -> None:
    """Drag a draggable element sideways and drop it, in small real mouse steps."""
    box = await s.guard(loc.bounding_box(timeout=1000), "drag")
    if not box:
        return
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    mouse = s.page.mouse
    await s.guard(mouse.move(x, y), "drag")
    await s.guard(mouse.down(), "drag")
    await s.guard(mouse.move(x + 120, y + 40, steps=6), "drag")
    await s.guard(mouse.up(), "drag")


async def keyboard_listeners(s: PageSession) -> list[str]:
    """Where the page listens for keys: window, document, body and canvases (the usual places)."""
    where = []
    targets = {"window": "window", "document": "document", "body": "document.body"}
    for i in range(4):
        targets[f"canvas {i}"] = f"document.querySelectorAll('canvas')[{i}]"
    for name, expr in targets.items():
        if KEY_EVENTS & set(await _listeners(s, expr)):
            where.append(name)
    return where


async def _keys(s: PageSession, tr: Trace, ev: dict, pixels: bool) -> None:
    """Press each scan key once. On a page that changes by itself (a running game), a change
    proves nothing: there a key counts only if it changed how the page's own state moves,
    compared with an equal window without the key just before."""
    await s.iso(BLUR)
    ev["keyboard_listeners"] = await keyboard_listeners(s)
    worked: list[str] = []
    ev["keys_responsive"] = worked
    if not ev["keyboard_listeners"]:
        tr.add(s, 2, "key scan", change=False, skipped="no keyboard listeners on window, document, body or canvases")
        return
    names = await state.global_names(s)
    window = s.cfg.limits.settle_ms * 3
    moving = await _changes_by_itself(s, pixels, window)
    for key in s.cfg.experience.keys:
        try:
            changed = await (_key_changes_state(s, key, names, window) if moving else _key_changes_look(s, key, pixels, window))
        except PageHung:
            ev["steps_hung"].append(f"press {key}")
            changed = False
        if changed:
            worked.append(key)
        i = tr.add(s, 2, "press", target=key, change=changed, judged_by="state" if moving else "look")
        if changed and len(worked) == 1:
            await tr.keyframe(s, 2, f"after pressing {key}", i)
        if changed and not moving:
            moving = await _changes_by_itself(s, pixels, window)  # the key may have started something


async def _changes_by_itself(s: PageSession, pixels: bool, window: int) -> bool:
    before = await Look.take(s, True)
    await s.advance(window)
    return await before.changed(s, True)


async def _key_changes_look(s: PageSession, key: str, pixels: bool, window: int) -> bool:
    before = await Look.take(s, pixels)
    await s.guard(s.page.keyboard.press(normalize_key(key)), f"press {key}")
    await s.advance(window)
    return await before.changed(s, pixels)


async def _key_changes_state(s: PageSession, key: str, names: list[str], window: int) -> bool:
    s0 = await state.snapshot(s, names)
    await s.advance(window)
    s1 = await state.snapshot(s, names)
    await s.guard(s.page.keyboard.press(normalize_key(key)), f"press {key}")
    await s.advance(window)
    return state.steered(s0, s1, await state.snapshot(s, names))


async def _scroll(s: PageSession, tr: Trace, ev: dict) -> None:
    """Scroll to the bottom and back: does anything appear or change besides the scroll position?"""
    fold = ev.get("below_fold") or {}
    if fold.get("scrollHeight", 0) <= fold.get("viewportHeight", 0) + 8:
        ev["scroll"] = {"scrollable": False, "changed": False}
        return
    before = await Look.take(s, False)
    steps = min(6, max(1, fold["scrollHeight"] // max(1, fold["viewportHeight"])))
    for n in range(1, steps + 1):
        await s.scroll_to(n * fold["viewportHeight"])
        await s.advance(s.cfg.limits.settle_ms * 2)
    changed = await before.changed(s, False, with_values=False)
    i = tr.add(s, 2, "scroll", target="bottom", change=changed, steps=steps)
    if changed:
        await tr.keyframe(s, 2, "scrolled to the bottom (content changed)", i)
    await s.scroll_to(0)
    await s.advance(s.cfg.limits.settle_ms)
    ev["scroll"] = {"scrollable": True, "changed": changed}


def plausible_value(field: dict) -> str | None:
    if field["type"] in BY_TYPE:
        return BY_TYPE[field["type"]]
    for word, value in BY_HINT:
        if word in field["hint"]:
            return value
    return "Hello there" if field["tag"] == "textarea" else "Test value"


async def _forms(s: PageSession, tr: Trace, ev: dict) -> None:
    results = []
    for form in await s.iso(f"__wm.forms({s.cfg.experience.max_forms})"):
        results.append(await _submit_form(s, tr, form))
    ev["forms"] = results


async def _submit_form(s: PageSession, tr: Trace, form: dict) -> dict:
    out = {"selector": form["selector"], "fields": len(form["fields"]), "submitted": False, "changed": False}
    blocked = s.shared.policy.log.blocked_total
    try:
        for f in form["fields"]:
            loc = s.page.locator(f["selector"]).first
            if f["tag"] == "select":
                if f["options"] > 1:
                    await s.guard(loc.select_option(index=1, timeout=1000), "select")
            elif f["type"] in ("checkbox", "radio"):
                await s.guard(loc.check(timeout=1000), "check")
            elif (value := plausible_value(f)) is not None:
                await s.guard(loc.fill(value, timeout=1000), "fill")
        await s.advance(s.cfg.limits.settle_ms)
        before = await Look.take(s, False)
        if form["submit"]:
            await s.guard(s.page.locator(form["submit"]).first.click(timeout=1000), "submit")
            await s.park_pointer()
        else:
            await s.iso(f"document.querySelector({json.dumps(form['selector'])}).requestSubmit(), true")
        out["submitted"] = True
        out["latency_ms"] = await _response(s, before, False)
        out["changed"] = out["latency_ms"] is not None
    except PageHung:
        out["hung"] = True
    except (PageCrashed, BudgetExhausted):
        raise
    except Exception as exc:
        out["error"] = str(exc).splitlines()[0][:160]
    out["navigation_attempted"] = s.shared.policy.log.blocked_total > blocked
    i = tr.add(s, 2, "submit form", target=form["selector"], change=out["changed"], fields=out["fields"],
               latency_ms=out.get("latency_ms"), error=out.get("error"))
    await tr.keyframe(s, 2, f"after submitting the form ({'changed' if out['changed'] else 'nothing happened'})", i)
    return out
