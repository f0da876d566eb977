"""Just enough npm-style version matching to pick among installed versions.

pick(spec, installed) returns (version, note): note is None when the served
version satisfies what was asked (exact, range, tag), otherwise a
human-readable reason for the substitution.
"""

from __future__ import annotations

import re

_VER = re.compile(r"^v?(\d+)(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:[-+].*)?$")
_THREE_R = re.compile(r"^r(\d+)$")  # three.js release tags: r128 == 0.128.x


def parse(version: str) -> tuple[int, int, int]:
    m = _VER.match(version.strip())
    if not m:
        raise ValueError(f"not a version: {version!r}")
    return tuple(int(g) if g and g.isdigit() else 0 for g in m.groups())  # type: ignore[return-value]


def _range(spec: str):
    """Return (predicate, target) for a spec; target steers 'nearest' when
    nothing satisfies. None for tags like latest/next/unparsable."""
    spec = spec.strip()
    if spec in ("", "latest", "*", "x", "X"):
        return None
    if m := _THREE_R.match(spec):
        r = int(m.group(1))
        return (lambda v: v[0] == 0 and v[1] == r), (0, r, 0)
    op = ""
    if m := re.match(r"^(\^|~|>=|<=|>|<|=)\s*", spec):
        op, spec = m.group(1), spec[m.end():]
    m = _VER.match(spec)
    if not m:
        return None
    parts = m.groups()
    target = tuple(int(p) if p and p.isdigit() else 0 for p in parts)
    fixed = 1 + sum(1 for p in parts[1:] if p and p.isdigit())  # how many components were given
    if parts[1] and not parts[1].isdigit():
        fixed = 1
    elif parts[2] and not parts[2].isdigit():
        fixed = 2
    if op in (">=", ">"):
        return (lambda v: v > target or (op == ">=" and v == target)), target
    if op in ("<=", "<"):
        return (lambda v: v < target or (op == "<=" and v == target)), target
    if op == "^":
        # npm caret: lock the first non-zero component.
        lock = 1 if target[0] else (2 if target[1] else 3)
        lock = min(lock, fixed)
        return (lambda v: v[:lock] == target[:lock] and v >= target), target
    if op == "~":
        lock = 2 if fixed >= 2 else 1
        return (lambda v: v[:lock] == target[:lock] and v >= target), target
    return (lambda v: v[:fixed] == target[:fixed]), target


def _distance(v, target):
    return tuple(abs(a - b) for a, b in zip(v, target))


def pick(spec: str, installed: list[str]) -> tuple[str, str | None]:
    """Choose an installed version for spec. installed must be non-empty."""
    parsed = sorted(((parse(v), v) for v in installed), reverse=True)
    rng = _range(spec or "")
    if rng is None:
        if spec and spec not in ("latest", "*", "x", "X"):
            return parsed[0][1], f"unknown version tag {spec!r}; served newest installed {parsed[0][1]}"
        return parsed[0][1], None
    pred, target = rng
    for tup, v in parsed:  # newest first: highest satisfying version wins
        if pred(tup):
            return v, None
    # Nothing satisfies: nearest by (major, minor, patch) distance; ties go
    # to the newer version. For three.js (all 0.x) that means nearest r-number.
    same_major = [tv for tv in parsed if tv[0][0] == target[0]]
    if same_major:
        best = min(same_major, key=lambda tv: (_distance(tv[0], target), tuple(-x for x in tv[0])))
        why = "not installed"
    else:  # another major: nearest major, newest within it
        best = min(parsed, key=lambda tv: (abs(tv[0][0] - target[0]), tuple(-x for x in tv[0])))
        why = "no installed version with that major"
    return best[1], f"requested {spec} {why}; served nearest {best[1]}"


def satisfies(spec: str, version: str) -> bool:
    rng = _range(spec or "")
    return rng is None or rng[0](parse(version))
