"""Full mode: the bounded visual judge on an evaluated page (docs/judge.md, docs/experience.md).

Pure core: takes the evidence the evaluator produced (keyframes, trace summary, static facts,
visible text runs) and a `VisualJudge`; returns the judge's result, which the record keeps
under `evidence["judge"]` and scoring applies (so `webmend rescore` keeps it without a model).
"""

from __future__ import annotations

import functools
import logging

from webmend.config import EvalConfig
from webmend.evaluate.judge.inputs import JudgeInput, metrics_from_evidence, select_visible_text
from webmend.evaluate.judge.judge import VisualJudge

log = logging.getLogger(__name__)


@functools.lru_cache(maxsize=2)
def _judge(model: str, judge_cfg_json: str, cache_dir: str | None) -> VisualJudge:
    from webmend.config import JudgeConfig

    return VisualJudge(model, JudgeConfig.model_validate_json(judge_cfg_json), cache_dir=cache_dir)


def get_judge(cfg: EvalConfig) -> VisualJudge:
    """One judge per process and setting (its client and cache are reused across pages)."""
    if not cfg.judge.model:
        raise ValueError("--mode full needs a judge model (--judge-model PROVIDER/MODEL or judge.model in the config)")
    return _judge(cfg.judge.model, cfg.judge.settings.model_dump_json(), cfg.judge.cache_dir)


def judge_page(judge: VisualJudge, cfg: EvalConfig, *, prompt: str, evidence: dict, summary: dict, fast: dict,
               interactive: bool, has_tests: bool, text_runs: list[dict], keyframes: list) -> dict:
    """The judge's verdict on one page as a plain dict (JudgeResult)."""
    budgets = cfg.budgets
    metrics = metrics_from_evidence(
        evidence, {k: v for k, v in fast.items() if k != "total"}, interactive=interactive,
        visual_budget=budgets.visual_design,
        functionality_budget=budgets.functionality if interactive else budgets.functionality_static,
        blank_canvas=summary.get("blank_canvases", 0) > 0,
    )
    inp = JudgeInput(
        prompt=prompt or "",
        keyframes=[{"png": k.png, "annotation": k.annotation} for k in keyframes],
        trace_summary=summary,
        static_facts=evidence.get("static") or {},
        metrics=metrics,
        visible_text=select_visible_text(text_runs, judge.cfg),
        judge_functionality=not has_tests,  # test cases or an executed contract keep it deterministic
    )
    return judge.judge(inp).model_dump(mode="json")
