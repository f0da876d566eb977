"""The experience trace: an ordered list of what the evaluator did and what it saw.

Every event carries the page time of the document it happened in, so a trace reads the same on
every run. Keyframes are taken while the run happens (a moment cannot be captured afterwards),
within per-layer slots, so the decisive moments of every layer fit under the overall cap.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Keyframe:
    png: bytes
    annotation: str
    layer: int
    page_ms: int
    event: int | None  # index of the trace event that led to this frame


@dataclass
class Trace:
    max_keyframes: int
    slots: dict[int, int]  # layer -> keyframes it may take
    events: list[dict] = field(default_factory=list)
    keyframes: list[Keyframe] = field(default_factory=list)
    doc: str = "probe"  # which document the events happen in ("probe", "play")

    def add(self, s, layer: int, action: str, target: str | None = None, change: bool | None = None, **evidence) -> int:
        """Record one event; returns its index (keyframes and later events refer to it)."""
        self.events.append({
            "i": len(self.events),
            "layer": layer,
            "doc": self.doc,
            "page_ms": int(s.vnow - s.doc_start),
            "action": action,
            "target": target,
            "change": change,
            "evidence": {k: v for k, v in evidence.items() if v is not None},
        })
        return len(self.events) - 1

    def wants_keyframe(self, layer: int) -> bool:
        used = sum(1 for k in self.keyframes if k.layer == layer)
        return used < self.slots.get(layer, 0) and len(self.keyframes) < self.max_keyframes

    async def keyframe(self, s, layer: int, annotation: str, event: int | None = None) -> bool:
        """Capture the viewport as a keyframe if this layer still has a slot."""
        if not self.wants_keyframe(layer):
            return False
        png = await s.screenshot_png()
        self.keyframes.append(Keyframe(png, annotation, layer, int(s.vnow - s.doc_start), event))
        return True

    def keyframe_records(self) -> list[dict]:
        """What the result record keeps about each keyframe (the PNG is written by the caller)."""
        return [
            {"n": n, "annotation": k.annotation, "layer": k.layer, "page_ms": k.page_ms, "event": k.event}
            for n, k in enumerate(self.keyframes)
        ]
