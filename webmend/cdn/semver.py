"""npm-style version matching to pick among installed versions.

pick(spec, installed) returns (version, note): note is None when the served
version satisfies what was asked (exact, range, tag), otherwise a
human-readable reason for the substitution.

Ranges use npm's grammar (comparator sets, `||`, hyphen ranges, x-ranges,
`^`, `~`) through semantic_version.NpmSpec, so prereleases follow npm too: a
range matches a prerelease only when one of its comparators names a
prerelease of the same major.minor.patch. What stays here is what npm ranges
do not cover: dist-tags (`latest`), three.js release names (`r128`), the
"nearest installed version" fallback, and tolerance for spellings CDN URLs
carry (`>= 1.2`, `=v1.2.3`, build metadata).
"""

from __future__ import annotations

import functools
import logging
import re

from semantic_version import NpmSpec, Version

log = logging.getLogger(__name__)

_VER = re.compile(r"^v?(\d+)(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:[-+].*)?$")
_THREE_R = re.compile(r"^r(\d+)$")  # three.js release tags: r128 == 0.128.x
# npm allows a space or a "v" between an operator and its version; NpmSpec
# rejects both, and URLs written by LLMs contain them (">= 1.2", "=v1.2.3").
_OP_GAP = re.compile(r"(>=|<=|>|<|=|\^|~)\s*v?(?=[\dxX*])")
# Build metadata never affects npm matching, but NpmSpec would compare it.
_BUILD = re.compile(r"\+[0-9A-Za-z.-]+")
_FIRST_VERSION = re.compile(r"\d+(?:\.(?:\d+|[xX*])){0,2}")
# Specs meaning "any version": the newest installed one is served as asked.
# "latest" is an npm dist-tag, not a range, so NpmSpec does not know it.
_ANY = ("", "latest", "*", "x", "X")


def parse(version: str) -> tuple[int, int, int]:
    """(major, minor, patch) of a version; x-parts and prerelease/build tags count as nothing."""
    m = _VER.match(version.strip())
    if not m:
        raise ValueError(f"not a version: {version!r}")
    return tuple(int(g) if g and g.isdigit() else 0 for g in m.groups())  # type: ignore[return-value]


def _version(v: str) -> Version:
    try:
        return Version(v.strip().lstrip("v"))
    except ValueError:  # an installed "1.2" still sorts, as 1.2.0
        return Version.coerce(v.strip().lstrip("v"))


@functools.lru_cache(maxsize=1024)  # one parse (and one log line) per distinct spec
def _range(spec: str) -> tuple[NpmSpec, tuple[int, int, int]] | None:
    """(npm range, target) for a spec; the target, the first version it names,
    steers 'nearest' when nothing satisfies. None for any-version specs and
    for what is not an npm range (unknown dist-tags, garbage)."""
    spec = spec.strip()
    if spec in _ANY:
        return None
    if m := _THREE_R.match(spec):
        r = int(m.group(1))
        return NpmSpec(f"0.{r}.x"), (0, r, 0)
    npm = _BUILD.sub("", _OP_GAP.sub(r"\1", spec))
    try:
        rng = NpmSpec(npm)
    except ValueError:
        log.warning("version spec %r is not an npm range or known tag; the newest installed version is served", spec)
        return None
    first = _FIRST_VERSION.search(npm)
    return rng, (parse(first.group()) if first else (0, 0, 0))


def _newest(versions: list[tuple[Version, str]]) -> str:
    """What `latest` means on npm: the newest release, a prerelease only if nothing else is installed."""
    stable = [tv for tv in versions if not tv[0].prerelease]
    return max(stable or versions)[1]


def _nearest(versions: list[tuple[Version, str]], target: tuple[int, int, int]) -> tuple[str, str]:
    """Nearest by (major, minor, patch) distance within the target's major, ties
    to the newer; for three.js (all 0.x) that is the nearest r-number. Another
    major only as a last resort: the nearest major, newest within it."""
    newest_first = sorted(versions, reverse=True)  # min() keeps the first of equals: the newer one
    same_major = [tv for tv in newest_first if tv[0].major == target[0]]
    if same_major:
        best = min(same_major, key=lambda tv: tuple(abs(a - b) for a, b in zip(parse(tv[1]), target)))
        return best[1], "not installed"
    best = min(newest_first, key=lambda tv: abs(tv[0].major - target[0]))
    return best[1], "no installed version with that major"


def pick(spec: str, installed: list[str]) -> tuple[str, str | None]:
    """Choose an installed version for spec. installed must be non-empty."""
    versions = [(_version(v), v) for v in installed]
    rng = _range(spec or "")
    if rng is None:
        newest = _newest(versions)
        if spec and spec.strip() not in _ANY:  # documented fallback for unparseable specs (docs/cdn-mirror.md)
            return newest, f"unknown version tag {spec!r}; served newest installed {newest}"
        return newest, None
    npm, target = rng
    by_version = {v: s for v, s in versions}
    chosen = npm.select(by_version)  # highest satisfying version wins
    if chosen is not None:
        return by_version[chosen], None
    best, why = _nearest(versions, target)
    return best, f"requested {spec} {why}; served nearest {best}"


def satisfies(spec: str, version: str) -> bool:
    """Whether version meets spec. Any-version specs, and unknown tags (which
    cannot be checked, and for which pick serves the newest), count as met."""
    rng = _range(spec or "")
    return rng is None or rng[0].match(_version(version))
