"""The trace summary: the experience in one record, recomputable from stored evidence.

Pure (no browser): `webmend rescore` and the repair stage rebuild it from `evidence`. Its keys
are the ones the visual judge reads (docs/judge.md, TraceSummary) plus the findings repair needs.
"""

from __future__ import annotations

from webmend.evaluate.experience.gating import game_like
from webmend.evaluate.facts import is_animating
from webmend.schemas.vocab import VIEWPORTS


def _viewport(info: dict | None) -> dict:
    info = info or {}
    return {
        "overflow": bool(info.get("overflow")),
        "offscreen_controls": int(info.get("offscreen_controls") or 0),
        "overlapping_controls": int(info.get("overlapping_controls") or 0),
        "unreadable_text": int(bool(info.get("unreadable_text"))),
    }


def trace_summary(evidence: dict) -> dict:
    probe = evidence.get("probe") or {}
    events = evidence.get("events") or {}
    exp = evidence.get("experience") or {}
    motion = probe.get("motion") or {}
    # Text fields that only showed what was typed are neutral (responded None): not counted.
    controls = [c for c in probe.get("controls") or [] if c.get("responded") is not None]
    pixels = probe.get("canvas_pixels") or []
    play = probe.get("play") or {}
    fold = probe.get("below_fold") or {}
    forms = probe.get("forms") or []
    doc_errors = probe.get("document_errors") or {}
    responsive = [c for c in controls if c.get("responded")]
    return {
        "layers": list(exp.get("layers") or []),
        "rendered": not probe.get("blank", True) and not probe.get("load_hang"),
        # Errors while viewing and using the page (layers 1-2); the record's events count all documents.
        "console_errors": int(doc_errors.get("console", events.get("console_error_count")) or 0),
        "page_errors": int(doc_errors.get("page", events.get("page_error_count")) or 0),
        "viewports": {name: _viewport((probe.get("viewports") or {}).get(name)) for name in VIEWPORTS},
        "below_fold": bool(fold.get("elements")),
        "controls_total": int(probe.get("controls_total") or 0),
        "controls_tested": len(controls),
        "controls_responsive": len(responsive),
        "responsive_ratio": round(len(responsive) / len(controls), 3) if controls else None,
        "dead_controls": [c["selector"] for c in controls if not c.get("responded") and not c.get("hung")],
        # Wiring: a listener on the control itself (addEventListener or on*); delegated listeners
        # on an ancestor are not seen, so "unwired" means no handler of its own.
        "wired_controls": sum(1 for c in controls if c.get("listeners")),
        "dead_unwired_controls": [c["selector"] for c in controls
                                  if not c.get("responded") and not c.get("hung") and not c.get("listeners")],
        "hover_controls": sum(1 for c in controls if c.get("hover_changed")),
        "slowest_response_ms": max((c["latency_ms"] for c in responsive if c.get("latency_ms")), default=None),
        "keys_worked": list(probe.get("keys_responsive") or []),
        "scroll_changes": bool((probe.get("scroll") or {}).get("changed")),
        "forms": len(forms),
        "forms_responding": sum(1 for f in forms if f.get("changed")),
        "animating": is_animating(probe),
        "animation_stalled": bool(motion.get("stalled")),
        "fps": motion.get("fps_max"),
        "canvases": sum(1 for c in probe.get("canvases") or [] if c.get("visible")),
        "blank_canvases": sum(1 for c in pixels if c.get("blank")),
        # A rollout through a multi-step UI is not a game (gating.game_like).
        "game_detected": 3 in (exp.get("layers") or []) and game_like((exp.get("layers_why") or {}).get("3") or []),
        "start_action": play.get("start_action"),
        "score_changed": bool(play.get("score_changed")),
        "position_changed": bool(play.get("position_changed")),
        "game_over_detected": bool(play.get("game_over")),
        "layer3_outcome": play.get("outcome", "not_run") if 3 in (exp.get("layers") or []) else "not_run",
        "keyframes": [{"n": k["n"], "annotation": k["annotation"]} for k in exp.get("keyframes") or []],
    }
