"""Contrastive visual feedback: a judge model compares the checkpoint's and a candidate's keyframes.

The deterministic before/after diff (tests that flipped, dimensions that moved, controls that came
alive or died) is always in the attempt record; with a judge model configured, paired keyframes
(same position in the experience protocol) go to it with the contrastive prompt of htmlcure.txt
D.6.3, and its verdict travels into the next round's prompt as the attempt's `visual_feedback`.
A failed or unparseable comparison leaves the feedback empty: it informs, it never decides.
"""

from __future__ import annotations

import base64
import json
import logging
import re
from pathlib import Path

from webmend.llm.client import LLMError
from webmend.repair.model import RepairModel
from webmend.schemas.vocab import DIMENSIONS

log = logging.getLogger(__name__)

MAX_PAIRS = 3
_OUTCOME = re.compile(r"\s*\(([^()]*)\)\s*$")  # a frame annotation's outcome: "(did nothing)"
PROMPT = (
    "You compare two versions of an HTML page. It was modified between BEFORE and AFTER.\n"
    "## Task\n{task}\n## Score change\n{before} -> {after}\nDimension changes: {dims}\n"
    "## Frame pairs\n{pairs} pairs follow; in each, BEFORE is the old version and AFTER the new one at the same "
    "point of the interaction (named with each pair: the protocol layer, what was done, and what it did in each "
    "version). Classify every visible difference as improved, regressed, or an issue unchanged in "
    "both. Look at functional and visual differences, not pixel shifts.\n"
    'Reply with JSON only: {{"improved": ["..."], "regressed": ["..."], "unchanged_issues": ["..."], '
    '"priority_fix": "the single most important thing to fix next"}}'
)


def frame_pairs(before: dict, after: dict, frames_dirs: list[Path]) -> list[tuple[bytes, bytes, str]]:
    """(before PNG, after PNG, what the frame shows) for keyframes both records took at the same point
    of the protocol: the same layer and what was done there (the annotation without its outcome,
    "(did nothing)" or "(responded)"), first ones first. Matched by that key, never by list position: two versions of a
    page take different numbers of frames, and the n-th frame of one may be a phone view where the
    other's is the desktop. Equal frames (the same file: names are content hashes) are left out."""
    unused = list(after.get("keyframes") or [])
    pairs = []
    for b in before.get("keyframes") or []:
        a = next((k for k in unused if _point(k) == _point(b)), None)
        if a is None:
            continue
        unused.remove(a)
        if b.get("file") and a.get("file") and b["file"] != a["file"]:
            pb, pa = _find(b["file"], frames_dirs), _find(a["file"], frames_dirs)
            if pb and pa:
                pairs.append((pb.read_bytes(), pa.read_bytes(), _label(b, a)))
        if len(pairs) == MAX_PAIRS:
            break
    return pairs


def _point(k: dict) -> tuple:
    return k.get("layer"), _OUTCOME.sub("", str(k.get("annotation") or ""))


def _outcome(k: dict) -> str:
    m = _OUTCOME.search(str(k.get("annotation") or ""))
    return m.group(1) if m else ""


def _label(b: dict, a: dict) -> str:
    text = f"layer {b.get('layer')}: {_point(b)[1] or 'frame'}"
    if _outcome(b) or _outcome(a):
        text += f" (before: {_outcome(b) or '-'}; after: {_outcome(a) or '-'})"
    return text


def _find(name: str, dirs: list[Path]) -> Path | None:
    return next((d / name for d in dirs if (d / name).is_file()), None)


def visual_comparison(judge: RepairModel, task: str, before: dict, after: dict,
                      frames_dirs: list[Path]) -> tuple[str | None, dict]:
    """(feedback text or None, usage) for one evaluated candidate against its checkpoint; frames
    are looked up in `frames_dirs` (the run's folder, the stored evaluation's)."""
    pairs = frame_pairs(before, after, frames_dirs)
    if not pairs:
        return None, {}
    sb, sa = before.get("score") or {}, after.get("score") or {}
    dims = ", ".join(f"{d} {sb.get(d)}->{sa.get(d)}" for d in DIMENSIONS if sb.get(d) != sa.get(d)) or "none"
    parts: list[dict] = [{"type": "text", "text": PROMPT.format(task=task or "(none)", before=sb.get("total"),
                                                                 after=sa.get("total"), dims=dims, pairs=len(pairs))}]
    for i, (b, a, label) in enumerate(pairs, 1):
        parts += [{"type": "text", "text": f"\nPair {i}, {label}. BEFORE:"}, image_part(b),
                  {"type": "text", "text": f"Pair {i}. AFTER:"}, image_part(a)]
    try:
        answer = judge.ask([{"role": "user", "content": parts}])
    except LLMError as exc:
        log.warning("visual comparison failed: %s", exc)
        return None, {}
    return _summary(answer.text), answer.usage


def image_part(png: bytes) -> dict:
    return {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(png).decode("ascii")}}


def _summary(text: str) -> str | None:
    start, end = text.find("{"), text.rfind("}")
    try:
        obj = json.loads(text[start:end + 1]) if start >= 0 else None
    except json.JSONDecodeError:
        obj = None
    if not isinstance(obj, dict):
        return None
    bits = []
    for key in ("improved", "regressed", "unchanged_issues"):
        items = [str(x)[:160] for x in obj.get(key) or [] if isinstance(x, (str, int, float))][:4]
        if items:
            bits.append(f"{key.replace('_', ' ')}: " + "; ".join(items))
    if isinstance(obj.get("priority_fix"), str) and obj["priority_fix"].strip():
        bits.append("priority fix: " + obj["priority_fix"].strip()[:200])
    return " | ".join(bits) or None
