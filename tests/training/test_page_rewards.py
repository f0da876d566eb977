"""RL page rewards through the stage driver: each distinct page runs once, and a reward step
killed with SIGKILL in the middle keeps the rewards of its finished batches; the rerun executes
only the rest."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import sigkill_when

from webmend.config import EvalConfig
from webmend.training.page_rewards import RESULTS, RewardCache, RewardTiming, RewardWeights, score_pages

FIX = Path(__file__).resolve().parents[2] / "data" / "fixtures" / "training"
PAGES = {f"counter#s{n}": (FIX / "counter.html").read_text().replace("</body>", f"<!-- {n} --></body>")
         for n in range(10)}
STEP = """
import json, sys
from pathlib import Path
from webmend.config import EvalConfig
from webmend.training.page_rewards import RewardCache, RewardWeights, score_pages
pages, work = json.loads(Path(sys.argv[1]).read_text()), Path(sys.argv[2])
score_pages(pages, {}, EvalConfig(), work, cache=RewardCache(work / "cache.jsonl"), weights=RewardWeights())
"""


def executed(work: Path) -> list[str]:
    path = work / RESULTS
    return [json.loads(line)["id"] for line in path.read_text().splitlines()] if path.exists() else []


def test_a_killed_reward_step_keeps_finished_rewards_and_runs_only_the_rest(tmp_path):
    work, spec = tmp_path / "work", tmp_path / "pages.json"
    work.mkdir()
    spec.write_text(json.dumps({**PAGES, "counter#again": PAGES["counter#s0"]}))  # a repeat runs once
    sigkill_when(["-c", STEP, str(spec), str(work)], lambda: len(executed(work)) >= 1)
    cache = RewardCache(work / "cache.jsonl")
    stored = {k for k, text in PAGES.items() if RewardCache.key(text, None, EvalConfig()) in cache.entries}
    assert 1 <= len(stored) < len(PAGES)
    before = len(executed(work))
    timing = RewardTiming()
    rewards = score_pages({**PAGES, "counter#again": PAGES["counter#s0"]}, {}, EvalConfig(), work, cache=cache,
                          weights=RewardWeights(), timing=timing)
    assert sorted(executed(work)[before:]) == sorted(set(PAGES) - stored)  # only what had no stored reward
    assert set(timing.pages) == set(PAGES) - stored and all(s > 0 for s in timing.pages.values())
    step = timing.summary()  # what the update's log line reports
    assert step["pages"] == len(PAGES) - len(stored) and timing.pages[step["slowest_page"]] == max(timing.pages.values())
    assert 0 < step["slowest_share"] <= 1
    assert len(RewardCache(work / "cache.jsonl").entries) == len(PAGES)
    assert rewards["counter#again"] == rewards["counter#s0"] and all(r.status == "ok" for r in rewards.values())


def test_the_reward_step_names_its_slowest_page_and_its_share():
    timing = RewardTiming(wall_s=20.0, pages={"a#1": 2.0, "b#1": 15.0, "c#1": 3.0})
    assert timing.summary() == {"wall_s": 20.0, "pages": 3, "slowest_page": "b#1", "slowest_s": 15.0,
                                "slowest_share": 0.75}
    assert RewardTiming().summary() is None  # every reward from the cache: nothing to report


def test_a_cache_line_torn_by_a_kill_is_dropped_and_its_page_runs_again(tmp_path):
    path = tmp_path / "cache.jsonl"
    whole = json.dumps({"hash": "a" * 64, "reward": 1.0, "source": "evaluator", "status": "ok"})
    path.write_text(whole + "\n" + whole[:20])
    cache = RewardCache(path)
    assert list(cache.entries) == ["a" * 64]
    assert path.read_text() == whole + "\n"
