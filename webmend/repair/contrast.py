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
from pathlib import Path

from webmend.llm.client import LLMError
from webmend.repair.model import RepairModel
from webmend.schemas.vocab import DIMENSIONS

log = logging.getLogger(__name__)

MAX_PAIRS = 3
PROMPT = (
    "You compare two versions of an HTML page. It was modified between BEFORE and AFTER.\n"
    "## Task\n{task}\n## Score change\n{before} -> {after}\nDimension changes: {dims}\n"
    "## Frame pairs\n{pairs} pairs follow; in each, BEFORE is the old version and AFTER the new one at the same "
    "point of the interaction. Classify every visible difference as improved, regressed, or an issue unchanged in "
    "both. Look at functional and visual differences, not pixel shifts.\n"
    'Reply with JSON only: {{"improved": ["..."], "regressed": ["..."], "unchanged_issues": ["..."], '
    '"priority_fix": "the single most important thing to fix next"}}'
)


def frame_pairs(before: dict, after: dict, frames_dirs: list[Path]) -> list[tuple[bytes, bytes]]:
    """PNG pairs of the keyframes both records took at the same position, first ones first; equal
    frames (the same file: names are content hashes) show no difference and are left out."""
    pairs = []
    for b, a in zip(before.get("keyframes") or [], after.get("keyframes") or []):
        if b.get("file") and a.get("file") and b.get("file") != a.get("file"):
            pb, pa = _find(b["file"], frames_dirs), _find(a["file"], frames_dirs)
            if pb and pa:
                pairs.append((pb.read_bytes(), pa.read_bytes()))
        if len(pairs) == MAX_PAIRS:
            break
    return pairs


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
    for i, (b, a) in enumerate(pairs, 1):
        parts += [{"type": "text", "text": f"Pair {i}: BEFORE"}, image_part(b), {"type": "text", "text": f"Pair {i}: AFTER"},
                  image_part(a)]
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
