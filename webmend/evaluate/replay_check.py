"""What "the same run" means: an evaluation's evidence with its wall-clock timings left out and
its keyframes reduced to PNG hashes, and the first place two of them differ."""

from __future__ import annotations

import json

from webmend.schemas.hashing import sha256_hex

WALL_CLOCK_KEYS = {"elapsed_s"}  # the only fields allowed to differ between runs


def comparable(ev: dict) -> dict:
    """Everything but timings; keyframes by the hash of their PNG bytes."""
    out = {k: v for k, v in ev.items() if k not in WALL_CLOCK_KEYS}
    out["keyframes"] = [sha256_hex(k.png) + " " + k.annotation for k in ev.get("keyframes") or []]
    return json.loads(json.dumps(out, sort_keys=True, default=str))


def first_difference(a, b, path: str = "") -> str | None:
    """The path of the first value that differs between two comparable() results, else None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{path}.{key} (only in {'second' if key not in a else 'first'})"
            found = first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        return None if len(a) == len(b) else f"{path} (length {len(a)} vs {len(b)})"
    return None if a == b else f"{path}: {json.dumps(a)[:120]} vs {json.dumps(b)[:120]}"
