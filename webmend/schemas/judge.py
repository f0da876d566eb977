"""The visual judge's contracts: the Analyst's answer (what the model must return) and JudgeResult
(what the judge returns to the evaluator and what results keep). Rules: docs/judge.md.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

JUDGE_VERSION = "2"  # bump whenever a prompt, a projection or a guardrail changes (2: the Scorer is told a score is a number)

Rating = Literal["broken", "poor", "adequate", "good", "excellent"]
_ENUM_FIELDS = ("visual_state", "layout_quality", "typography", "color_and_contrast", "polish",
                "mobile_layout", "design_specificity", "interaction_quality")
_REQ_ID = re.compile(r"^\s*R?\s*(\d{1,3})\s*$", re.IGNORECASE)


class _Answer(BaseModel):
    # A model's extra keys (a "score" the Analyst was told not to give, say) are dropped.
    model_config = ConfigDict(extra="ignore")


class RequirementCheck(_Answer):
    id: str = Field(description="R1, R2, ... in the order of the requirement list")
    requirement: str = ""
    status: Literal["done", "broken", "missing"]
    evidence: str = ""

    @field_validator("id", mode="before")
    @classmethod
    def _normalise_id(cls, v):
        m = _REQ_ID.match(str(v))
        if not m:
            raise ValueError("requirement id must look like R1")
        return f"R{int(m.group(1))}"

    @field_validator("status", mode="before")
    @classmethod
    def _lower(cls, v):
        return v.strip().lower() if isinstance(v, str) else v


class AnalystReport(_Answer):
    """What the Analyst returns. Closed fields feed the Scorer; free text is kept, never scored."""

    page_type: str = ""
    visual_state: Literal["blank", "broken", "sparse", "complete"]
    layout_quality: Rating
    typography: Rating
    color_and_contrast: Rating
    polish: Rating
    mobile_layout: Rating | Literal["not_shown"]
    design_specificity: Literal["template", "generic", "specific"]
    interaction_quality: Rating | Literal["none"]
    visual_elements: list[str] = []
    template_like_signals: list[str] = []
    distinctive_design_signals: list[str] = []
    working: list[str] = []
    broken: list[str] = []
    layout_notes: str = ""
    requirements: list[RequirementCheck]

    @model_validator(mode="before")
    @classmethod
    def _lower_enums(cls, data):
        if isinstance(data, dict):
            data = dict(data)
            for key in _ENUM_FIELDS:
                if isinstance(data.get(key), str):
                    data[key] = data[key].strip().lower().replace(" ", "_")
            reqs = data.get("requirements")
            if isinstance(reqs, list):  # ids missing: the list order is the numbering
                data["requirements"] = [
                    {"id": f"R{i + 1}", **r} if isinstance(r, dict) and "id" not in r else r
                    for i, r in enumerate(reqs)
                ]
        return data


class AuditSummary(BaseModel):
    model_config = ConfigDict(extra="forbid")
    total: int = 0
    done: int = 0
    broken: int = 0
    missing: int = 0


class GuardrailHit(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rule: str
    dimension: Literal["visual_design", "functionality"]
    limit: float = Field(description="the bound applied, in points")
    before: float
    after: float


class JudgeResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    judge_version: str = JUDGE_VERSION
    model: str
    source: Literal["judge", "fallback"]
    fallback_reason: str | None = None
    visual_design: float | None = Field(description="points; None only when the input itself was invalid")
    visual_design_reason: str = ""
    functionality: float | None = Field(
        default=None, description="points; None: keep the deterministic functionality score")
    functionality_reason: str | None = None
    raw_scores: dict[str, float] = Field(default={}, description="the Scorer's points before guardrails")
    guardrails: list[GuardrailHit] = []
    requirements: list[RequirementCheck] = Field(default=[], description="the audit: start of the repair diagnosis")
    audit_summary: AuditSummary = AuditSummary()
    observations: dict | None = Field(
        default=None, description="the Analyst's report without the audit; kept for diagnosis, never scored")
    calls: int = Field(default=0, description="completions fetched from the provider")
    cache_hits: int = 0
    retries: int = Field(default=0, description="transient failures retried inside those calls")
    reasks: int = 0
    repaired_json: int = 0
    skipped_keyframes: list[str] = []
