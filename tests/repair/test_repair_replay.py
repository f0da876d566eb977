"""Real answers a strong model wrote to repair prompts (data/fixtures/repair_real/), replayed by the
scripted server through litellm on the bench page they were written for, in real Chromium."""

from __future__ import annotations

import pytest
from conftest import FIXTURES, ROOT
from llm.llm_fixtures import make_client, server  # noqa: F401 (the server fixture)
from llm.llm_server import chat_reply

from webmend.config import RepairConfig
from webmend.evaluate.inputs import load_items
from webmend.llm.cache import ResponseCache
from webmend.repair.evaluation import evaluate_html
from webmend.repair.loop import repair_page
from webmend.repair.model import RepairModel, llm_proposer

HERE = FIXTURES / "repair_real"
ITEM = load_items(HERE / "items.jsonl")["app_pomodoro_001"]
PAGE = (ROOT / "data" / "bench" / "pages" / "app_pomodoro_001.html").read_text()
CFG = RepairConfig(operators=False, candidates_per_round=1, max_rounds=2, patience=5)


@pytest.fixture(scope="module")
def original(worker):
    return evaluate_html(PAGE, ITEM, CFG.evaluation, worker, "app_pomodoro_001")


def test_a_real_regressing_patch_is_explained_and_the_real_answer_to_that_explanation_is_kept(
        server, original, worker, tmp_path):  # noqa: F811
    n = len(server.requests)
    server.script(*(chat_reply((HERE / f"pomodoro-round{k}.txt").read_text()) for k in (1, 2)))
    model = RepairModel(make_client(), CFG, ResponseCache(tmp_path / "cache"))
    trace = repair_page(PAGE, ITEM, original, CFG, llm_proposer(model, CFG, ITEM["prompt"]), worker=worker)
    first, second = trace.record["attempts"]
    assert first["early_rejected"] and first["tests_broken"] == ["tc_05"]
    assert first["reason"].startswith("regression (early): passing test case tc_05 now fails at step 7 "
                                      "(assert_screenshot_changed): screenshot unchanged")
    assert second["accepted"] and "tc_11" in second["tests_fixed"] and trace.record["final_score"] > original["score"]["total"]
    shown = server.requests[n + 1].user_text
    assert "tests broken: tc_05 (Reset stops the timer)" in shown and "the steps of tc_05, which the checkpoint passes" in shown
    assert "it changed: +2/-0 lines in 2 places: after line" in shown
