"""`webmend model check`: does a model answer in the formats webmend's stages need?

Each check sends the stage's own prompt (built by the stage's code, not a copy) for a tiny task and
reads the answer with the stage's own parser: generation and repair rewrites (a whole HTML document),
repair patches (JSON `old_str`/`new_str` edits that apply to the page), contract construction (its
staged JSON answers, validated), and with `--judge-model` the visual judge (Analyst and Scorer on a
screenshot). No browser runs; a check passes when the answer has the shape the stage needs, not when
the page is good. One line per check; exit 1 when any failed.
"""

from __future__ import annotations

import argparse
import io
import time
from dataclasses import dataclass
from typing import Callable

from webmend.config import JudgeConfig, RepairConfig
from webmend.contracts.build import build_contract
from webmend.evaluate.judge.inputs import JudgeInput
from webmend.evaluate.judge.judge import VisualJudge
from webmend.extract import extract_page
from webmend.generate.prompts import messages_for
from webmend.llm.client import LLMClient, LLMError
from webmend.repair.diagnosis import diagnose
from webmend.repair.patches import PatchError, apply_patches, parse_patches
from webmend.repair.prompts import build_messages

TASK = "A tally counter: a big number, an 'Add one' button that adds one, and a 'Reset' button that sets it back to 0."
# The counter with one defect (Reset does not reset), for the repair checks.
COUNTER = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Counter</title>
<style>body{font-family:sans-serif;text-align:center} #count{font-size:4rem}</style></head>
<body><main><h1>Counter</h1><div id="count">0</div>
<button id="inc">Add one</button> <button id="reset">Reset</button></main>
<script>
  let n = 0;
  const show = () => { document.getElementById('count').textContent = n; };
  document.getElementById('inc').addEventListener('click', () => { n += 1; show(); });
  document.getElementById('reset').addEventListener('click', () => { show(); });
</script></body></html>"""
RESET_CASE = {"id": "reset", "name": "Reset sets the count to 0", "weight": 3, "steps": [
    {"action": "click", "selector": "#inc"}, {"action": "click", "selector": "#reset"},
    {"action": "assert_text_contains", "selector": "#count", "text": "^0$"}]}


@dataclass
class Result:
    check: str
    ok: bool
    detail: str
    seconds: float


def counter_record() -> dict:
    """A stored evaluation of COUNTER as the evaluator writes one (the Reset case failed)."""
    return {"id": "counter", "status": "ok", "state": "Mid", "interactive": True, "flags": [],
            "score": {"total": 60.0, "rendering": 10.0, "visual_design": 10.0, "functionality": 27.5,
                      "interaction": 8.0, "code_quality": 4.5},
            "tests": [{"id": "reset", "name": RESET_CASE["name"], "passed": False, "weight": 3.0, "failed_step": 2,
                       "failed_action": "assert_text_contains", "error": "text '^0$' not found in '1'"}],
            "trace_summary": {"rendered": True}, "evidence": {"probe": {}, "events": {}, "static": {}}}


def check_generate(client: LLMClient, max_tokens: int) -> str:
    return _page_in(client.complete(messages_for(TASK), max_tokens=max_tokens, temperature=0.0).text)


def _page_in(text: str) -> str:
    """What a page-writing stage reads from an answer (the evaluator's extractor), or why not."""
    page = extract_page(text)
    if page.status != "ok":
        raise ValueError(f"no page in the answer: {page.status}: {page.reason}")
    return f"a {len(page.html)}-character page"


def _repair_messages(strategy: str, mode: str) -> list[dict]:
    cfg = RepairConfig()
    item = {"id": "counter", "prompt": TASK, "test_cases": [RESET_CASE]}
    d = diagnose(counter_record(), cfg.evaluation, item=item)
    return build_messages(strategy, mode, d, COUNTER, TASK, [], None, cfg.max_prompt_html_chars)


def check_patch(client: LLMClient, max_tokens: int) -> str:
    text = client.complete(_repair_messages("interaction_repair", "patch"), max_tokens=max_tokens, temperature=0.0).text
    try:
        patches = parse_patches(text)
        applied = apply_patches(COUNTER, patches, RepairConfig().fuzzy_min_ratio)
    except PatchError as exc:
        raise ValueError(f"patches do not apply: {exc}") from None
    return f"{len(patches)} patch(es) applied ({applied.exact} exact, {applied.whitespace} whitespace, {applied.fuzzy} near)"


def check_rewrite(client: LLMClient, max_tokens: int) -> str:
    return _page_in(client.complete(_repair_messages("holistic_rewrite", "rewrite"), max_tokens=max_tokens,
                                    temperature=0.0).text)


def check_contract(client: LLMClient, max_tokens: int) -> str:
    result = build_contract({"id": "counter", "prompt": TASK},
                            lambda messages: client.complete(messages, max_tokens=max_tokens, temperature=0.0).text)
    if not result.kept:
        raise ValueError("contract rejected: " + "; ".join(result.problems[:3]))
    c = result.contract
    return f"{len(c['transitions'])} transitions, {len(c['requirements'])} requirements" + (
        " (after one send-back)" if result.sent_back else "")


def check_judge(model: str, timeout_s: float, max_retries: int) -> str:
    cfg = JudgeConfig(timeout_s=timeout_s, max_retries=max_retries)
    result = VisualJudge(model, cfg).judge(judge_input())
    if result.source != "judge":
        raise ValueError(f"the judge fell back: {result.fallback_reason}")
    return f"visual design {result.visual_design} of 20"


def judge_input() -> JudgeInput:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (640, 360), "#f4f4f8")
    draw = ImageDraw.Draw(img)
    draw.text((290, 120), "0", fill="#222")
    draw.rectangle((220, 220, 310, 260), outline="#557", width=2)
    draw.rectangle((330, 220, 420, 260), outline="#557", width=2)
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return JudgeInput.model_validate({
        "prompt": TASK, "keyframes": [{"png": buf.getvalue(), "annotation": "first paint"}],
        "metrics": {"fast_scores": {"rendering": 10.0, "visual_design": 8.0, "functionality": 40.0, "interaction": 8.0,
                                    "code_quality": 4.5}, "visual_budget": 20.0, "functionality_budget": 55.0,
                    "interactive": True, "blank_page": False, "overflow_mobile": False, "has_viewport_meta": False,
                    "styled": True, "blank_canvas": False},
        "visible_text": ["Counter", "0", "Add one", "Reset"]})


def run_checks(model: str | None, judge_model: str | None, timeout_s: float, max_retries: int,
               max_tokens: int) -> list[Result]:
    from webmend.llm.retry import Backoff

    checks: list[tuple[str, Callable[[], str]]] = []
    if model:
        client = LLMClient(model, backoff=Backoff(max_retries=max_retries), timeout_s=timeout_s)
        checks += [("generate", lambda: check_generate(client, max_tokens)),
                   ("repair patch", lambda: check_patch(client, max_tokens)),
                   ("repair rewrite", lambda: check_rewrite(client, max_tokens)),
                   ("contract build", lambda: check_contract(client, max_tokens))]
    if judge_model:
        checks.append(("visual judge", lambda: check_judge(judge_model, timeout_s, max_retries)))
    return [_timed(name, fn) for name, fn in checks]


def _timed(name: str, fn: Callable[[], str]) -> Result:
    t0 = time.perf_counter()
    try:
        return Result(name, True, fn(), time.perf_counter() - t0)
    except (ValueError, LLMError) as exc:
        return Result(name, False, str(exc)[:300], time.perf_counter() - t0)


def run_command(args: argparse.Namespace) -> int:
    if not args.model and not args.judge_model:
        raise ValueError("give --model and/or --judge-model")
    results = run_checks(args.model, args.judge_model, args.timeout, args.max_retries, args.max_tokens)
    for r in results:
        print(f"{'ok  ' if r.ok else 'FAIL'} {r.check:<15} {r.seconds:6.1f}s  {r.detail}")
    return 0 if all(r.ok for r in results) else 1
