"""Helpers for judge tests: tiny PNGs, a page's judge input, scripted Analyst/Scorer answers, and a
role-aware script for the shared ScriptedLLMServer (tests/llm/llm_server.py)."""

from __future__ import annotations

import io
import json
import threading
from collections import deque

import pytest
from llm.llm_server import Reply, Request, chat_reply, error_reply
from PIL import Image

from webmend.evaluate.judge import analyst, scorer
from webmend.evaluate.judge.inputs import JudgeInput
from webmend.llm.client import Limiters, LLMClient
from webmend.llm.limits import Limits
from webmend.llm.retry import Backoff

MODEL = "openai/judge-model"
PROMPT = "Build a pomodoro timer with start and reset buttons and a round counter."
REQUIREMENTS = ["a start button starts the countdown", "a reset button resets it", "a round counter"]


@pytest.fixture
def judge_server(llm_server, monkeypatch):
    """The scripted server as provider `openai` (key and base from the environment, as in production)."""
    monkeypatch.setenv("OPENAI_API_BASE", llm_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-judge")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return llm_server


class Sleeps(list):
    """An injected sleep: records the delays instead of waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def make_client(sleeps: Sleeps | None = None, *, max_retries: int = 2, timeout_s: float = 5.0) -> LLMClient:
    sleeps = Sleeps() if sleeps is None else sleeps
    return LLMClient(MODEL, limiters=Limiters(Limits(), sleep=sleeps),
                     backoff=Backoff(max_retries=max_retries, base_s=0.05, seed=1), timeout_s=timeout_s, sleep=sleeps)


def png(color=(40, 90, 200), size=(8, 6)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format="PNG")
    return buf.getvalue()


def metrics(**over) -> dict:
    base = {
        "fast_scores": {"rendering": 9.0, "visual_design": 11.5, "functionality": 40.0, "interaction": 7.0,
                        "code_quality": 4.0},
        "visual_budget": 20, "functionality_budget": 55, "interactive": True, "blank_page": False,
        "overflow_mobile": False, "has_viewport_meta": True, "styled": True, "blank_canvas": False,
        "controls_tested": 2, "controls_responsive": 2, "console_errors": 0, "page_errors": 0,
    }
    base.update(over)
    return base


def judge_input(**over) -> JudgeInput:
    base = {
        "prompt": PROMPT, "requirements": REQUIREMENTS,
        "keyframes": [{"png": png(), "annotation": "first paint"},
                      {"png": png((200, 60, 40)), "annotation": "after click on Start"}],
        "trace_summary": {"layers": [1, 2, 4], "rendered": True, "controls_tested": 2, "controls_responsive": 2,
                          "keys_worked": ["Space"], "animating": True},
        "static_facts": {"size_bytes": 2400, "has_viewport_meta": True, "title": "Pomodoro", "libraries": []},
        "metrics": metrics(),
        "visible_text": ["Pomodoro", "25:00", "Start", "Reset", "Round 1"],
    }
    base.update(over)
    return JudgeInput.model_validate(base)


def analyst_answer(**over) -> dict:
    base = {
        "page_type": "timer app", "visual_state": "complete", "layout_quality": "good", "typography": "good",
        "color_and_contrast": "adequate", "polish": "good", "mobile_layout": "adequate",
        "design_specificity": "specific", "interaction_quality": "good",
        "visual_elements": ["large countdown", "two buttons"], "template_like_signals": [],
        "distinctive_design_signals": ["tomato-red accent"], "working": ["start"], "broken": [],
        "layout_notes": "centred card",
        "requirements": [
            {"id": "R1", "requirement": "start", "status": "done", "evidence": "keyframe 2 shows 24:59"},
            {"id": "R2", "requirement": "reset", "status": "missing", "evidence": "no reset in any frame"},
            {"id": "R3", "requirement": "rounds", "status": "done", "evidence": "Round 1 label"},
        ],
    }
    base.update(over)
    return base


def scorer_answer(visual: float = 15, functionality: float | None = None) -> dict:
    out = {"visual_design": {"score": visual, "reason": "good ratings, specific design"}}
    if functionality is not None:
        out["functionality"] = {"score": functionality, "reason": "2 of 3 requirements done"}
    return out


def answer(obj: dict | str, **kw) -> Reply:
    return chat_reply(obj if isinstance(obj, str) else json.dumps(obj), **kw)


def role_of(request: Request) -> str:
    system = " ".join(str(m.get("content")) for m in request.messages if m.get("role") == "system")
    if analyst.ROLE_MARKER in system:
        return "analyst"
    if scorer.ROLE_MARKER in system:
        return "scorer"
    return "unknown"


class RoleScript:
    """A server fallback that answers by role: per-role queues of replies (the last one repeats).

    `override(request, role)` may return a reply that takes precedence (the injection rule).
    """

    def __init__(self, analyst: list[Reply], scorer: list[Reply], override=None):
        self.queues = {"analyst": deque(analyst), "scorer": deque(scorer)}
        self.override = override
        self._lock = threading.Lock()

    def __call__(self, request: Request) -> Reply:
        role = role_of(request)
        if self.override is not None:
            special = self.override(request, role)
            if special is not None:
                return special
        with self._lock:
            queue = self.queues.get(role)
            if not queue:
                return error_reply(500, f"unscripted {role} call")
            return queue.popleft() if len(queue) > 1 else queue[0]


def requests_of(server, role: str) -> list[Request]:
    return [r for r in server.requests if role_of(r) == role]
