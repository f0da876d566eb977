"""Settings of the bounded visual judge: limits on what it sees, decoding, retries, guardrails.

Every threshold the judge applies lives here, so a change shows up in the config hash of a run.
Rules and the reasons for each value: docs/judge.md.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class JudgeConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    # What reaches the Analyst.
    max_keyframes: int = Field(default=12, ge=1, description="keyframes sent, in the caller's order")
    max_keyframe_bytes: int = Field(default=4_000_000, description="a larger PNG is skipped, not sent")
    max_text_runs: int = Field(default=200, description="visible text runs sent (first ones)")
    max_text_run_chars: int = Field(default=300, description="each run is cut to this length")
    max_page_text_chars: int = Field(default=6000, description="all visible text together")
    max_annotation_chars: int = 200
    # select_visible_text: text a user cannot read never reaches the judge.
    min_font_px: float = Field(default=11.0, description="smaller text counts as tiny (as in scoring)")
    min_contrast_ratio: float = Field(default=3.0, description="lower contrast counts as unreadable")

    # Decoding and I/O.
    temperature: float = 0.0
    seed: int = 0
    analyst_max_tokens: int = 3000
    scorer_max_tokens: int = 1000
    timeout_s: float = 120.0
    max_retries: int = Field(default=4, description="transient failures (429, 5xx, timeouts) per call")
    reasks: int = Field(default=1, ge=0, le=1, description="re-asks after an unparseable or invalid answer")

    # Guardrails: caps on visual credit, as fractions of the visual-design budget.
    cap_blank_page: float = 0.0
    cap_unstyled: float = 0.3
    cap_blank_canvas: float = 0.4
    cap_overflow_mobile: float = 0.6
    cap_no_viewport: float = 0.7
    # Functionality (only when the caller lets the judge inform it): how far, as a fraction of the
    # functionality budget, the judge may move the probe-based estimate up or down.
    functionality_max_shift: float = 0.2
