"""Key names as LLM-written test cases spell them, mapped to Playwright's names."""

_ALIASES = {
    "space": "Space", "spacebar": "Space", "esc": "Escape", "escape": "Escape",
    "return": "Enter", "enter": "Enter", "up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft",
    "right": "ArrowRight", "arrowup": "ArrowUp", "arrowdown": "ArrowDown", "arrowleft": "ArrowLeft",
    "arrowright": "ArrowRight", "tab": "Tab", "backspace": "Backspace", "delete": "Delete",
    "del": "Delete", "ctrl": "Control", "control": "Control", "cmd": "Meta", "meta": "Meta",
    "shift": "Shift", "alt": "Alt", "pageup": "PageUp", "pagedown": "PageDown", "home": "Home", "end": "End",
}


def normalize_key(key: str) -> str:
    """'ctrl+k' -> 'Control+k', 'space' -> 'Space'; unknown names pass through unchanged."""
    key = str(key)
    if key == " ":
        return "Space"
    parts = key.split("+") if len(key) > 1 else [key]
    return "+".join(_ALIASES.get(p.lower(), p) if len(p) > 1 else p for p in parts)
