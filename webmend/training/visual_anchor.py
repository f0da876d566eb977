"""WebCatalyst's reference-based visual comparison (3.2, A.5.5): a vision model sees the reference
page's screenshot, then a sampled page's, and says how far the sample's visual quality falls below
the reference. Its answer is the degradation D in [0, 1] of the one-sided anchor penalty.

The judge is passed in (a litellm model string through the pipeline's client, retries on 429/5xx
only). Answers are cached by (model, reference frame, candidate frame), so a repeated page or a
resumed run asks nothing again. A call that fails or an answer without a usable number gives None:
the caller falls back to the evaluator's visual-design points and records which one decided."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

from webmend.repair.contrast import image_part
from webmend.schemas.hashing import sha256_hex

log = logging.getLogger(__name__)

PROMPT = (
    "You judge the visual quality of a web page against a reference rendering of the same task.\n"
    "## Task\n{task}\n"
    "The first image is the REFERENCE page; the second is the CANDIDATE page, captured the same way. Judge only how "
    "the candidate looks next to the reference: layout, completeness of the visible features, typography, colour, "
    "polish. Do not reward or punish a different but equally good design, and ignore function.\n"
    'Reply with JSON only: {{"degradation": a number from 0 (as good as the reference or better) to 1 (far worse, '
    'or nothing usable shown), "reasons": ["..."]}}'
)
NUMBER = re.compile(r'"degradation"\s*:\s*(-?\d+(?:\.\d+)?)')


class AnchorJudge:
    def __init__(self, model: str, cache_path: Path, client=None, max_tokens: int = 400):
        self.model = model
        self.max_tokens = max_tokens
        self.cache_path = cache_path
        self.cache: dict[str, float | None] = {}
        if cache_path.exists():
            for line in cache_path.read_text().splitlines():
                if line.strip():
                    row = json.loads(line)
                    self.cache[row["key"]] = row["degradation"]
        if client is None:
            from webmend.llm.client import LLMClient  # litellm imports slowly: only when a judge is configured

            client = LLMClient(model)
        self.client = client

    def degradation(self, task: str, reference: Path, candidate: Path) -> float | None:
        ref, cand = reference.read_bytes(), candidate.read_bytes()
        if ref == cand:
            return 0.0  # the same rendering cannot be worse than itself
        key = sha256_hex("\0".join([self.model, sha256_hex(ref), sha256_hex(cand), PROMPT]))
        if key not in self.cache:
            self.cache[key] = self._ask(task, ref, cand)
            with open(self.cache_path, "a") as fh:
                fh.write(json.dumps({"key": key, "degradation": self.cache[key]}) + "\n")
        return self.cache[key]

    def _ask(self, task: str, ref: bytes, cand: bytes) -> float | None:
        from webmend.llm.client import LLMError

        content = [{"type": "text", "text": PROMPT.format(task=task or "(none)")},
                   {"type": "text", "text": "REFERENCE"}, image_part(ref), {"type": "text", "text": "CANDIDATE"}, image_part(cand)]
        try:
            answer = self.client.complete([{"role": "user", "content": content}], temperature=0.0,
                                          max_tokens=self.max_tokens)
        except LLMError as exc:
            log.warning("visual anchor judge failed: %s", exc)
            return None
        return parse_degradation(answer.text)


def parse_degradation(text: str) -> float | None:
    """The judge's degradation clamped to [0, 1], from its JSON (or the key in prose); None if absent."""
    start, end = text.find("{"), text.rfind("}")
    value = None
    try:
        obj = json.loads(text[start:end + 1]) if start >= 0 else None
        if isinstance(obj, dict) and isinstance(obj.get("degradation"), (int, float)):
            value = float(obj["degradation"])
    except json.JSONDecodeError:
        pass
    if value is None:
        match = NUMBER.search(text)
        value = float(match.group(1)) if match else None
    return None if value is None else min(1.0, max(0.0, value))
