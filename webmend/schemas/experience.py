"""Contract of the experience protocol's output in a result record (docs/experience.md)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from webmend.schemas.vocab import LAYER3_OUTCOMES, VIEWPORTS


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class KeyframeRef(_Model):
    n: int = Field(description="position among the page's keyframes")
    file: str | None = Field(description="PNG path relative to the output folder; null when not written")
    annotation: str = Field(description="the event that led to this frame")
    layer: int
    page_ms: int = Field(description="page time in its document")
    event: int | None = Field(description="index of the trace event in evidence.experience.trace")


class ViewportFindings(_Model):
    overflow: bool
    offscreen_controls: int
    overlapping_controls: int
    unreadable_text: int = Field(description="1 when unreadable text runs reach the configured share")


class KeyframeNote(_Model):
    n: int
    annotation: str


class TraceSummary(_Model):
    layers: list[int]
    rendered: bool
    console_errors: int
    page_errors: int
    viewports: dict[Literal[VIEWPORTS], ViewportFindings]
    below_fold: bool
    controls_total: int
    controls_tested: int
    controls_responsive: int
    responsive_ratio: float | None
    dead_controls: list[str] = Field(description="CSS selectors of tested controls that changed nothing")
    wired_controls: int = Field(description="tested controls with a listener of their own (addEventListener or on*)")
    dead_unwired_controls: list[str] = Field(description="dead controls without a listener of their own")
    hover_controls: int
    slowest_response_ms: int | None
    keys_worked: list[str]
    scroll_changes: bool
    forms: int
    forms_responding: int
    animating: bool
    animation_stalled: bool
    fps: float | None = Field(description="fastest frame rate seen in layer 1 (page frames per page second)")
    canvases: int
    blank_canvases: int
    game_detected: bool = Field(description="layer 3 ran because the page looked like a game (not only a multi-step UI)")
    start_action: str | None
    score_changed: bool
    position_changed: bool
    game_over_detected: bool
    layer3_outcome: Literal[LAYER3_OUTCOMES]
    keyframes: list[KeyframeNote]
