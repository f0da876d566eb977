"""The Scorer: text only. It sees the task, the Analyst's closed-vocabulary view and the objective
metrics; never images, never page text. It returns points with reasons under deterministic
decoding (the caller passes temperature 0 and a seed).
"""

from __future__ import annotations

import json
import math

from pydantic import BaseModel, ConfigDict, field_validator

from webmend.evaluate.judge.inputs import JudgeInput

ROLE_MARKER = "You are the Scorer of an HTML page evaluation."

SYSTEM = ROLE_MARKER + """ You receive a structured report from an Analyst who \
looked at the page, plus objective metrics measured by a browser. You have no screenshots. Score \
only from this evidence, conservatively; a feature not supported by the report or the metrics does \
not exist.

Rules:
- Visual design: judge from the Analyst's visual ratings, visual state and design specificity. A \
polished but generic template does not get a top score without prompt-specific design signals. \
Horizontal overflow on mobile, a missing viewport, absent styling or a blank canvas keep it low.
- Functionality (only when asked for): driven by the requirement statuses. Done raises the score; \
broken costs more than missing. Objective metrics that contradict the report win.
- Every reason cites the evidence it rests on.

Reply with ONLY one JSON object."""


class DimensionScore(BaseModel):
    model_config = ConfigDict(extra="ignore")
    score: float
    reason: str = ""

    @field_validator("score")
    @classmethod
    def _finite(cls, v: float) -> float:
        if not math.isfinite(v):
            raise ValueError("score must be a finite number")
        return v


class ScorerAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    visual_design: DimensionScore
    functionality: DimensionScore | None = None


def _shape(inp: JudgeInput) -> str:
    m = inp.metrics
    shape = {"visual_design": {"score": f"0..{m.visual_budget:g}", "reason": "..."}}
    if inp.judge_functionality:
        shape["functionality"] = {"score": f"0..{m.functionality_budget:g}", "reason": "..."}
    return json.dumps(shape)


def build_messages(inp: JudgeInput, analyst_view: dict) -> list[dict]:
    metrics = inp.metrics.model_dump(mode="json")
    asked = "visual design and functionality" if inp.judge_functionality else "visual design only"
    text = "\n\n".join([
        f"## Task\n{inp.prompt}",
        f"## Analyst report (JSON)\n{json.dumps(analyst_view, sort_keys=True)}",
        f"## Objective metrics (JSON; fast_scores are the deterministic estimates in points)\n"
        f"{json.dumps(metrics, sort_keys=True)}",
        f"## Answer\nScore {asked}, in points of each budget. Reply with this JSON shape, where each \"score\" is "
        f"a JSON number (decimals allowed) within the range shown, not a string:\n{_shape(inp)}",
    ])
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}]


def validate(obj: dict, inp: JudgeInput) -> ScorerAnswer:
    answer = ScorerAnswer.model_validate(obj)
    if inp.judge_functionality and answer.functionality is None:
        raise ValueError("functionality was asked for and is missing")
    return answer
