"""What the evaluator hands the judge, and the filters that keep page-controlled text out of it.

Every field the judge reads is declared here with a closed type: numbers, booleans, short enums and
key names. Strings written by the page (visible text, keyframe annotations) live in exactly two
fields, `visible_text` and `Keyframe.annotation`, and reach the Analyst only as escaped data inside
its <page_data> block. Unknown keys in the dicts below are dropped, never forwarded. Shapes and the
reasons: docs/judge.md.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from webmend.config import JudgeConfig
from webmend.evaluate.facts import is_animating
from webmend.evaluate.static_facts import RESOURCE_KINDS
from webmend.schemas.vocab import LAYER3_OUTCOMES, VIEWPORTS

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_KEY_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9]{0,19}$")  # "Space", "ArrowLeft", "KeyW", "Digit1"
_IDENT = re.compile(r"^[a-z0-9_\-]{1,24}$")  # library names, input types
_INPUT_TYPES = frozenset({
    "button", "checkbox", "color", "date", "datetime-local", "email", "file", "hidden", "image", "month",
    "number", "password", "radio", "range", "reset", "search", "submit", "tel", "text", "time", "url",
    "week", "select", "textarea",
})


class _Lenient(BaseModel):
    """Unknown keys are dropped: only declared, closed-type fields ever reach a prompt."""

    model_config = ConfigDict(extra="ignore")


class Keyframe(BaseModel):
    model_config = ConfigDict(extra="forbid")

    png: bytes | None = None
    path: str | None = None
    annotation: str = Field(default="", description="the event that led to it; page data (quoted)")

    @model_validator(mode="after")
    def _one_source(self):
        if (self.png is None) == (self.path is None):
            raise ValueError("a keyframe has exactly one of png (bytes) or path")
        return self

    def load(self, max_bytes: int) -> bytes:
        """The PNG bytes; ValueError when missing, too large or not a PNG."""
        data = self.png if self.png is not None else Path(self.path).read_bytes()
        if len(data) > max_bytes:
            raise ValueError(f"{len(data)} bytes > {max_bytes}")
        if not data.startswith(PNG_SIGNATURE):
            raise ValueError("not a PNG")
        return data


class ViewportFinding(_Lenient):
    overflow: bool = False
    offscreen_controls: int = 0
    overlapping_controls: int = 0
    unreadable_text: int = 0


class TraceSummary(_Lenient):
    """The experience trace's summary, reduced to facts that carry no page text."""

    layers: list[int] = []
    rendered: bool | None = None
    console_errors: int = 0
    page_errors: int = 0
    viewports: dict[Literal[VIEWPORTS], ViewportFinding] = {}
    controls_tested: int = 0
    controls_responsive: int = 0
    keys_worked: list[str] = Field(default=[], description="key names; anything else is dropped")
    animating: bool | None = None
    animation_stalled: bool | None = None
    fps: float | None = None
    canvases: int = 0
    blank_canvases: int = 0
    game_detected: bool = False
    score_changed: bool | None = None
    position_changed: bool | None = None
    game_over_detected: bool | None = None
    layer3_outcome: Literal[LAYER3_OUTCOMES] = "not_run"

    @field_validator("keys_worked", mode="before")
    @classmethod
    def _key_names_only(cls, keys):
        return [k for k in keys or [] if isinstance(k, str) and _KEY_NAME.match(k)]


class FastScores(_Lenient):
    """The fast-mode points per dimension (webmend.evaluate.scoring.score)."""

    rendering: float
    visual_design: float
    functionality: float
    interaction: float | None = None
    code_quality: float


class ObjectiveMetrics(_Lenient):
    """Probe facts the Scorer sees and the guardrails read. Guardrail inputs have no defaults."""

    fast_scores: FastScores
    visual_budget: float
    functionality_budget: float
    interactive: bool
    blank_page: bool
    overflow_mobile: bool
    has_viewport_meta: bool
    styled: bool
    blank_canvas: bool
    overflow_desktop: bool = False
    console_errors: int = 0
    page_errors: int = 0
    controls_tested: int = 0
    controls_responsive: int = 0
    keys_responsive: bool = False
    animating: bool = False
    low_contrast_share: float = 0.0
    small_text_share: float = 0.0
    text_overlaps: int = 0


class JudgeInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    prompt: str
    requirements: list[str] | None = Field(default=None, description="None: the Analyst derives them")
    keyframes: list[Keyframe]
    trace_summary: TraceSummary = TraceSummary()
    static_facts: dict = Field(default={}, description="static_facts(html); projected by safe_static_facts")
    metrics: ObjectiveMetrics
    visible_text: list[str] = Field(default=[], description="from select_visible_text; page data (quoted)")
    judge_functionality: bool = Field(
        default=False, description="the page has no test cases and no contract: the judge may inform "
                                   "functionality, within the probe bounds")


def select_visible_text(runs: list[dict], cfg: JudgeConfig | None = None) -> list[str]:
    """The text runs a user can read, in order: hidden, tiny and low-contrast runs are dropped.

    A run is {"text": str, "visible": bool, "font_px": float, "contrast_ratio": float}; a run missing
    any of the three checks counts as unreadable (the judge would rather lose text than be fed text
    nobody sees). Whitespace is collapsed; empty runs vanish.
    """
    cfg = cfg or JudgeConfig()
    kept = []
    for run in runs:
        text = " ".join(str(run.get("text") or "").split())
        if not text or run.get("visible") is not True:
            continue
        font_px, contrast = run.get("font_px"), run.get("contrast_ratio")
        if not isinstance(font_px, (int, float)) or font_px < cfg.min_font_px:
            continue
        if not isinstance(contrast, (int, float)) or contrast < cfg.min_contrast_ratio:
            continue
        kept.append(text)
    return kept


def clip_text(runs: list[str], cfg: JudgeConfig) -> list[str]:
    """The visible text that fits the judge's limits (first runs first)."""
    out, total = [], 0
    for run in runs[: cfg.max_text_runs]:
        run = run[: cfg.max_text_run_chars]
        if total + len(run) > cfg.max_page_text_chars:
            break
        out.append(run)
        total += len(run)
    return out


def _is_number(v) -> bool:
    return isinstance(v, (bool, int, float))


def safe_static_facts(facts: dict) -> dict:
    """static_facts(html) without page-written strings: no title, no URLs, closed names only."""
    out = {k: v for k, v in sorted(facts.items()) if _is_number(v)}
    out["has_title"], out["has_lang"] = bool(facts.get("title")), bool(facts.get("lang"))
    tags = facts.get("semantic_tags") or {}
    out["semantic_tags"] = {k: v for k, v in sorted(tags.items()) if _IDENT.match(str(k)) and _is_number(v)}
    libs = facts.get("libraries") or []
    out["libraries"] = sorted({x for x in libs if isinstance(x, str) and _IDENT.match(x)})[:20]
    kinds = facts.get("input_kinds") or {}
    out["input_kinds"] = {k: v for k, v in sorted(kinds.items()) if k in _INPUT_TYPES and _is_number(v)}
    resources = facts.get("external_resources") or []
    out["external_resources"] = {
        kind: sum(1 for r in resources if isinstance(r, dict) and r.get("kind") == kind) for kind in RESOURCE_KINDS
    }
    return out


def metrics_from_evidence(ev: dict, fast_scores: dict, *, interactive: bool, visual_budget: float,
                          functionality_budget: float, blank_canvas: bool = False) -> ObjectiveMetrics:
    """ObjectiveMetrics from the fast-mode evidence record (probe, events, static) and its scores.

    `blank_canvas` comes from the trace (layer 1 canvas evidence), which the fast probe lacks.
    """
    probe, events, facts = ev.get("probe") or {}, ev.get("events") or {}, ev.get("static") or {}
    design = probe.get("design") or {}
    controls = [c for c in probe.get("controls") or [] if c.get("responded") is not None]  # typed-only fields are neutral
    n_text = max(1, design.get("textElements") or 0)
    return ObjectiveMetrics(
        fast_scores=fast_scores, visual_budget=visual_budget, functionality_budget=functionality_budget,
        interactive=interactive, blank_page=bool(probe.get("blank", True)),
        overflow_mobile=bool((probe.get("overflow_mobile") or {}).get("overflowing")),
        overflow_desktop=bool((probe.get("overflow_desktop") or {}).get("overflowing")),
        has_viewport_meta=bool(facts.get("has_viewport_meta")),
        styled=bool(design.get("cssRules") or facts.get("css_bytes") or facts.get("inline_style_attrs")),
        blank_canvas=blank_canvas,
        console_errors=int(events.get("console_error_count", 0)), page_errors=int(events.get("page_error_count", 0)),
        controls_tested=len(controls), controls_responsive=sum(1 for c in controls if c.get("responded")),
        keys_responsive=bool(probe.get("keys_responsive")), animating=is_animating(probe),
        low_contrast_share=min(1.0, (design.get("lowContrast") or 0) / n_text),
        small_text_share=min(1.0, (design.get("smallText") or 0) / n_text),
        text_overlaps=int(design.get("overlaps") or 0),
    )
