"""The bounded visual judge: Analyst (vision, observes and audits) -> Scorer (text, scores) ->
guardrails. `VisualJudge.judge(inp)` never raises: any failure returns the fast-mode estimate with
the reason recorded. Data flow, prompts and defences: docs/judge.md.

    judge = VisualJudge("openai/gpt-4o", JudgeConfig(), cache_dir="runs/judge-cache")
    result = judge.judge(JudgeInput(...))   # JudgeResult
"""

from __future__ import annotations

import logging
import os

from pydantic import ValidationError

from webmend.config import JudgeConfig
from webmend.evaluate.judge import analyst, scorer
from webmend.evaluate.judge.ask import Asker, CallStats, JudgeFailure
from webmend.evaluate.judge.guardrails import bound_functionality, bound_visual
from webmend.evaluate.judge.inputs import JudgeInput
from webmend.llm.cache import ResponseCache
from webmend.llm.client import LLMClient
from webmend.llm.retry import Backoff
from webmend.schemas.judge import AnalystReport, GuardrailHit, JudgeResult

log = logging.getLogger(__name__)


class VisualJudge:
    """One judge model for a run. `client` may be given (tests, shared limiters); else it is built
    from the model string (keys and API bases from the environment, as for generation)."""

    def __init__(self, model: str, cfg: JudgeConfig | None = None, *, cache_dir: str | os.PathLike | None = None,
                 client: LLMClient | None = None):
        self.cfg = cfg or JudgeConfig()
        self.client = client or LLMClient(model, backoff=Backoff(max_retries=self.cfg.max_retries, seed=self.cfg.seed),
                                          timeout_s=self.cfg.timeout_s)
        self.model = model
        self.cache = ResponseCache(cache_dir) if cache_dir is not None else None

    def _params(self, max_tokens: int) -> dict:
        return {"temperature": self.cfg.temperature, "seed": self.cfg.seed, "max_tokens": max_tokens}

    def judge(self, inp: JudgeInput | dict) -> JudgeResult:
        """Scores for one page; see the module docstring. Never raises."""
        stats = CallStats()
        try:
            inp = inp if isinstance(inp, JudgeInput) else JudgeInput.model_validate(inp)
        except ValidationError as exc:
            return JudgeResult(model=self.model, source="fallback", visual_design=None,
                               fallback_reason=f"invalid judge input: {exc.error_count()} errors")
        state: dict = {"skipped": []}
        try:
            return self._run(inp, stats, state)
        except JudgeFailure as exc:
            reason = str(exc)
        except Exception as exc:  # a bug must cost this page its judge, never the evaluation
            log.exception("visual judge failed")
            reason = f"internal error: {type(exc).__name__}: {str(exc)[:200]}"
        log.warning("visual judge fell back to the fast-mode estimate: %s", reason)
        return self._fallback(inp, stats, state, reason)

    def _frames(self, inp: JudgeInput, skipped: list[str]) -> list[tuple[bytes, str]]:
        frames = []
        for i, kf in enumerate(inp.keyframes[: self.cfg.max_keyframes]):
            try:
                frames.append((kf.load(self.cfg.max_keyframe_bytes), kf.annotation))
            except (OSError, ValueError) as exc:
                skipped.append(f"keyframe {i + 1}: {type(exc).__name__}: {str(exc)[:120]}")
        return frames

    def _run(self, inp: JudgeInput, stats: CallStats, state: dict) -> JudgeResult:
        frames = self._frames(inp, state["skipped"])
        if not frames:
            raise JudgeFailure("no usable keyframes")
        asker = Asker(self.client, self.cache, self.cfg.reasks, stats)
        report = asker.ask("analyst", analyst.build_messages(inp, frames, self.cfg),
                           self._params(self.cfg.analyst_max_tokens), lambda o: analyst.validate(o, inp))
        state["report"] = report
        answer = asker.ask("scorer", scorer.build_messages(inp, analyst.scorer_view(report, inp)),
                           self._params(self.cfg.scorer_max_tokens), lambda o: scorer.validate(o, inp))
        hits: list[GuardrailHit] = []
        raw = {"visual_design": answer.visual_design.score}
        visual = bound_visual(answer.visual_design.score, inp.metrics, self.cfg, hits)
        functionality = reason = None
        if inp.judge_functionality:
            raw["functionality"] = answer.functionality.score
            functionality = bound_functionality(answer.functionality.score, inp.metrics, self.cfg, hits)
            reason = answer.functionality.reason
        return JudgeResult(
            model=self.model, source="judge", visual_design=visual, visual_design_reason=answer.visual_design.reason,
            functionality=functionality, functionality_reason=reason, raw_scores=raw, guardrails=hits,
            **_report_fields(report), **_stat_fields(stats), skipped_keyframes=state["skipped"],
        )

    def _fallback(self, inp: JudgeInput, stats: CallStats, state: dict, reason: str) -> JudgeResult:
        report: AnalystReport | None = state.get("report")
        fields = _report_fields(report) if report is not None else {}
        return JudgeResult(
            model=self.model, source="fallback", fallback_reason=reason,
            visual_design=inp.metrics.fast_scores.visual_design,
            visual_design_reason="fast-mode estimate (judge unavailable)",
            **fields, **_stat_fields(stats), skipped_keyframes=state["skipped"],
        )


def _report_fields(report: AnalystReport) -> dict:
    return {
        "requirements": report.requirements,
        "audit_summary": analyst.audit_summary(report),
        "observations": report.model_dump(mode="json", exclude={"requirements"}),
    }


def _stat_fields(stats: CallStats) -> dict:
    return {"calls": stats.calls, "cache_hits": stats.cache_hits, "retries": stats.retries,
            "reasks": stats.reasks, "repaired_json": stats.repaired_json}
