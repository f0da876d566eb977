"""Patch-mode answers: read an LLM's `{"patches": [{"old_str", "new_str"}]}` and apply it to a page.

An LLM quotes the page it was shown from memory, so its old_str is often not a byte-exact
substring: indentation drifts, a newline becomes a space, one character is misremembered. Each
patch is therefore matched in three steps, strictest first, and every step must find exactly one
place; a patch that fits several places is refused rather than guessed, since applying it to the
wrong one would silently damage the page:

1. exact: old_str occurs once in the page;
2. whitespace: it occurs once when runs of whitespace are collapsed on both sides;
3. fuzzy: rapidfuzz finds one best near match (on the collapsed text) that scores at least
   `min_ratio`.

`apply_patches` returns an `Applied` with the new page and how many patches matched in each
step, so the repair loop can record how trustworthy a candidate's edits were.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

from rapidfuzz import fuzz
from rapidfuzz.distance import ScoreAlignment

log = logging.getLogger(__name__)

MAX_PATCHES = 50  # more edits than this is a rewrite in disguise, and each one risks a mismatch
# How far fuzzy matching may move each end of the aligned window while looking for the span whose
# similarity is best: rapidfuzz aligns windows of exactly len(old_str), so a near miss with a
# character inserted or dropped leaves the window one character off at an end.
MAX_EDGE_SHIFT = 64
# A near match stands for a long old_str the model copied with a slip. In a short one a few
# characters are the whole point (getElementById('nope') is not getElementById('inc')).
MIN_FUZZY_CHARS = 48
_WHITESPACE = re.compile(r"\s+")
_OBJECT_START = re.compile(r'\{\s*["}]')  # what a JSON object's first characters must be
# JSON answers from LLMs often put raw newlines inside strings (whole HTML blocks); strict=False
# accepts control characters in strings, which is the only leniency taken.
_DECODER = json.JSONDecoder(strict=False)


class PatchError(ValueError):
    """A patch answer that cannot be read or applied; `reason` is one line for the repair record."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Patch:
    old_str: str
    new_str: str


@dataclass(frozen=True)
class Applied:
    """The patched page and how many patches matched exactly, after collapsing whitespace, or fuzzily."""

    html: str
    exact: int = 0
    whitespace: int = 0
    fuzzy: int = 0


# --- reading the answer ---------------------------------------------------------------------------

def parse_patches(text: str) -> list[Patch]:
    """The patches of an answer: the first JSON object with a "patches" key, fenced or amid prose."""
    found = _patches_object(text)
    patches = found["patches"]
    if not isinstance(patches, list):
        raise PatchError('"patches" is not a list')
    if not patches:
        raise PatchError("the patch list is empty")
    if len(patches) > MAX_PATCHES:
        raise PatchError(f"{len(patches)} patches, more than the {MAX_PATCHES} allowed")
    return [_patch(n, item) for n, item in enumerate(patches, 1)]


def _patches_object(text: str) -> dict:
    """Decode from each '{' in turn; a fence or prose around the object is simply never decoded."""
    decoded_any = False
    furthest: tuple[int, json.JSONDecodeError] | None = None  # (start, error) of the longest failed attempt
    pos = text.find("{")
    while pos != -1:
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            # The attempt that got furthest is the one that was really JSON; a brace in prose
            # ("{like this}") never began an object and is no evidence of broken JSON.
            if _OBJECT_START.match(text, pos) and (furthest is None or exc.pos > furthest[1].pos):
                furthest = (pos, exc)
            pos = text.find("{", pos + 1)
            continue
        decoded_any = True
        if isinstance(value, dict) and "patches" in value:
            return value
        pos = text.find("{", end)  # skip the object's insides: its braces are not answers
    # A broken object that got as far as a "patches" key was the answer, whatever else decoded
    # (its well-formed patch objects, say).
    if furthest is not None and ('"patches"' in text[furthest[0]:furthest[1].pos] or not decoded_any):
        exc = furthest[1]
        raise PatchError(f"invalid JSON: {exc.msg} (line {exc.lineno} column {exc.colno})")
    if decoded_any:
        raise PatchError('no JSON object with a "patches" list')
    raise PatchError("no JSON object found")


def _patch(n: int, item: object) -> Patch:
    if not isinstance(item, dict):
        raise PatchError(f"patch {n} is not an object")
    for key in ("old_str", "new_str"):
        if key not in item:
            raise PatchError(f"patch {n} has no {key}")
        if not isinstance(item[key], str):
            raise PatchError(f"patch {n}: {key} is not a string")
    if not item["old_str"]:
        raise PatchError(f"patch {n}: old_str is empty")
    return Patch(item["old_str"], item["new_str"])


# --- applying it ----------------------------------------------------------------------------------

def apply_patches(html: str, patches: list[Patch], min_ratio: float = 0.9) -> Applied:
    """Apply `patches` in order, each to the result of the one before; PatchError names the first that fails.

    `min_ratio` is the least rapidfuzz similarity (fuzz.ratio / 100, on whitespace-collapsed text)
    between old_str and the span a fuzzy match replaces.
    """
    if not patches:
        raise PatchError("the patch list is empty")
    counts = {"exact": 0, "whitespace": 0, "fuzzy": 0}
    for n, patch in enumerate(patches, 1):
        if patch.new_str == patch.old_str:
            raise PatchError(f"patch {n} changes nothing")
        start, end, how = _locate(n, html, patch.old_str, min_ratio)
        new_str = patch.new_str if how == "exact" else _without_shared_edges(patch.old_str, patch.new_str)
        patched = html[:start] + new_str + html[end:]
        if patched == html:  # a near match may already read like new_str
            raise PatchError(f"patch {n} changes nothing")
        html = patched
        counts[how] += 1
        log.debug("patch %d matched (%s) at %d:%d", n, how, start, end)
    return Applied(html, **counts)


def _locate(n: int, html: str, old: str, min_ratio: float) -> tuple[int, int, str]:
    """(start, end, how) of the one span of `html` that patch n's old_str stands for."""
    starts = _occurrences(html, old)
    if len(starts) == 1:
        return starts[0], starts[0] + len(old), "exact"
    if len(starts) > 1:
        raise PatchError(f"patch {n}: old_str matches {len(starts)} places (ambiguous)")
    needle = _WHITESPACE.sub(" ", old).strip()
    if not needle:
        raise PatchError(f"patch {n}: old_str not found")
    page = _Collapsed.of(html)
    starts = _occurrences(page.text, needle)
    if len(starts) > 1:
        raise PatchError(f"patch {n}: old_str matches {len(starts)} places once whitespace is collapsed (ambiguous)")
    if len(starts) == 1:
        return *page.original_span(starts[0], starts[0] + len(needle)), "whitespace"
    if len(needle) < MIN_FUZZY_CHARS:
        raise PatchError(f"patch {n}: old_str not found (too short for a near match)")
    return *page.original_span(*_fuzzy_span(n, page.text, needle, min_ratio)), "fuzzy"


def _occurrences(text: str, sub: str) -> list[int]:
    """Every start of `sub` in `text`, overlapping ones too: "aa" in "aaa" is ambiguous, not unique."""
    found, pos = [], text.find(sub)
    while pos != -1:
        found.append(pos)
        pos = text.find(sub, pos + 1)
    return found


def _without_shared_edges(old: str, new: str) -> str:
    """new_str less the leading/trailing whitespace it shares with old_str.

    A tolerant match covers old_str's text without its edge whitespace (the page's own indentation
    stays), so the same whitespace in new_str would otherwise be added a second time.
    """
    lead = old[:len(old) - len(old.lstrip())]
    trail = old[len(old.rstrip()):]
    if lead and new.startswith(lead):
        new = new[len(lead):]
    if trail and new.endswith(trail):
        new = new[:len(new) - len(trail)]
    return new


@dataclass(frozen=True)
class _Collapsed:
    """A text with each whitespace run collapsed to one space, and where each character came from."""

    text: str
    starts: tuple[int, ...]  # original index where character i's source begins
    ends: tuple[int, ...]  # original index where it ends (a whole run for a collapsed space)

    @classmethod
    def of(cls, original: str) -> _Collapsed:
        chars: list[str] = []
        starts: list[int] = []
        ends: list[int] = []
        pos = 0
        for run in _WHITESPACE.finditer(original):
            chars.extend(original[pos:run.start()])
            starts.extend(range(pos, run.start()))
            ends.extend(range(pos + 1, run.start() + 1))
            chars.append(" ")
            starts.append(run.start())
            ends.append(run.end())
            pos = run.end()
        chars.extend(original[pos:])
        starts.extend(range(pos, len(original)))
        ends.extend(range(pos + 1, len(original) + 1))
        return cls("".join(chars), tuple(starts), tuple(ends))

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        return self.starts[start], self.ends[end - 1]


def _fuzzy_span(n: int, text: str, needle: str, min_ratio: float) -> tuple[int, int]:
    """The one span of `text` that is at least `min_ratio` similar to `needle`.

    Fuzzy matching replaces text the LLM did not quote exactly, so it is allowed only where a
    mistake is unlikely: the span must be nearly the same text (one slip in a long old_str, not a
    different passage) and the best near match must be unique; a second place that scores as well
    means the patch could be meant for either, and guessing would edit the wrong one.
    """
    # rapidfuzz's window has exactly len(needle) characters, so a span with k characters more or
    # less scores about twice as far below 100 in it as in the refined span: search down to there.
    # The cutoff is also what keeps a hopeless search fast (it prunes, seconds become milliseconds).
    best = _best_window(needle, text, cutoff=max(0.0, 200 * min_ratio - 100))
    not_found = PatchError(f"patch {n}: old_str not found (no near match of at least {min_ratio})")
    if best is None:
        raise not_found
    start, end = _refine_edges(needle, text, best.dest_start, best.dest_end)
    if fuzz.ratio(needle, text[start:end]) / 100 < min_ratio:
        raise not_found
    for rest in (text[:start], text[end:]):
        if rest and _best_window(needle, rest, cutoff=best.score) is not None:
            raise PatchError(f"patch {n}: old_str nearly matches several places equally well (ambiguous)")
    return start, end


def _best_window(needle: str, text: str, cutoff: float) -> ScoreAlignment | None:
    """rapidfuzz's best alignment of `needle` inside `text` scoring at least `cutoff`, else None.

    partial_ratio aligns the shorter string inside the longer; padding a short text with a
    character the needle lacks keeps the needle the one being searched for, and the padding
    scores as missing text.
    """
    length = len(text)
    if length < len(needle):
        filler = next(c for c in "\x00\x01\x02\x03" if c not in needle)
        text += filler * (len(needle) - length)
    alignment = fuzz.partial_ratio_alignment(needle, text, score_cutoff=cutoff)
    if alignment is None:
        return None
    alignment.dest_end = min(alignment.dest_end, length)
    return alignment


def _refine_edges(needle: str, text: str, start: int, end: int) -> tuple[int, int]:
    """Move each end of the window to where fuzz.ratio with `needle` is highest (start first, then end).

    Shifts are tried nearest first and a later one must score strictly higher, so ties keep the
    window rapidfuzz chose and the result is deterministic.
    """
    reach = min(MAX_EDGE_SHIFT, len(needle))
    start = _best_edge(lambda s: fuzz.ratio(needle, text[s:end]), start, max(0, start - reach),
                       min(end - 1, start + reach))
    end = _best_edge(lambda e: fuzz.ratio(needle, text[start:e]), end, max(start + 1, end - reach),
                     min(len(text), end + reach))
    return start, end


def _best_edge(score: Callable[[int], float], at: int, lowest: int, highest: int) -> int:
    best, best_score = at, score(at)
    for shift in range(1, max(at - lowest, highest - at) + 1):
        for pos in (at - shift, at + shift):
            if lowest <= pos <= highest and (s := score(pos)) > best_score:
                best, best_score = pos, s
    return best
