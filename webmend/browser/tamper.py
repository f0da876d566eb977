"""Detect pages that overwrite built-in APIs to fool checks.

The inspection uses CDP object descriptions, which V8 computes natively: a page that also
replaces Function.prototype.toString cannot make its JavaScript look like native code here.
"""

from __future__ import annotations

import re

# (expression in the page's world, expected native function name)
FUNCTIONS = (
    ("Document.prototype.querySelector", "querySelector"),
    ("Document.prototype.querySelectorAll", "querySelectorAll"),
    ("Document.prototype.getElementById", "getElementById"),
    ("Element.prototype.querySelector", "querySelector"),
    ("Element.prototype.querySelectorAll", "querySelectorAll"),
    ("Element.prototype.getAttribute", "getAttribute"),
    ("Element.prototype.getBoundingClientRect", "getBoundingClientRect"),
    ("HTMLElement.prototype.click", "click"),
    ("EventTarget.prototype.addEventListener", "addEventListener"),
    ("EventTarget.prototype.dispatchEvent", "dispatchEvent"),
    ("window.getComputedStyle", "getComputedStyle"),
    ("console.log", "log"),
    ("console.error", "error"),
    ("console.warn", "warn"),
    ("Function.prototype.toString", "toString"),
    ("JSON.stringify", "stringify"),
    ("Object.getOwnPropertyDescriptor", "getOwnPropertyDescriptor"),
)
# (prototype expression, accessor name)
GETTERS = (
    ("HTMLElement.prototype", "innerText"),
    ("Node.prototype", "textContent"),
    ("Element.prototype", "innerHTML"),
    ("HTMLInputElement.prototype", "value"),
)
_NATIVE = re.compile(r"^function (?:get )?([\w$]+)\(\) \{ \[native code\] \}$")


_OUR_CONSOLE = re.compile(r"^\[level\]\(\.\.\.args\) \{ /\*__wm_console__\*/")


def _is_native(description: str | None, name: str) -> bool:
    """Native code with the right name, or init.js's console cap (itself wrapping the native)."""
    text = (description or "").strip()
    if name in ("log", "error", "warn") and _OUR_CONSOLE.match(text):
        return True
    m = _NATIVE.match(text)
    return bool(m) and m.group(1) == name


async def find_tampering(session) -> list[str]:
    """Names of built-ins the page replaced (empty when clean)."""
    cdp = session.cdp
    found: list[str] = []
    array = await session.guard(
        cdp.send("Runtime.evaluate", {"expression": "[" + ",".join(e for e, _ in FUNCTIONS) + "]"}), "tamper"
    )
    if "exceptionDetails" in array:
        return ["builtins unreachable"]
    props = await session.guard(
        cdp.send("Runtime.getProperties", {"objectId": array["result"]["objectId"], "ownProperties": True}), "tamper"
    )
    by_index = {p["name"]: p.get("value", {}) for p in props["result"]}
    for i, (expr, name) in enumerate(FUNCTIONS):
        if not _is_native(by_index.get(str(i), {}).get("description"), name):
            found.append(expr)
    for proto, name in GETTERS:
        if not await _getter_is_native(session, proto, name):
            found.append(f"{proto}.{name}")
    return found


async def _getter_is_native(session, proto: str, name: str) -> bool:
    cdp = session.cdp
    obj = await session.guard(cdp.send("Runtime.evaluate", {"expression": proto}), "tamper")
    if "exceptionDetails" in obj or "objectId" not in obj.get("result", {}):
        return False
    props = await session.guard(
        cdp.send("Runtime.getProperties", {"objectId": obj["result"]["objectId"], "ownProperties": True, "accessorPropertiesOnly": True}),
        "tamper",
    )
    for prop in props["result"]:
        if prop["name"] == name:
            return _is_native((prop.get("get") or {}).get("description"), name)
    return False  # deleted, or redefined as a plain value
