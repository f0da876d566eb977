"""Page rewards for RL from real browser execution: the evaluator (and the task's contract, when it
has one) runs every sampled page; rewards are cached by content hash, so a page seen before (a
repeated sample, a resumed run) is not executed again.

Pages run through the stage driver in batches, either here (this process, or a local pool of
`workers` processes started per call) or, given an executor (`webmend.stage.executors.dask`), on
Dask workers that keep one warm browser each across every update of the run. Each batch's rewards
are added to the cache as it completes, so a run killed mid-step executes only the pages whose
rewards it had not stored."""

from __future__ import annotations

import json
import time
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO

from webmend.config import EvalConfig
from webmend.evaluate.inputs import RawInput, match_item
from webmend.evaluate.run import describe_records
from webmend.schemas.hashing import sha256_hex
from webmend.stage import executors
from webmend.stage.batches import Batch
from webmend.stage.driver import Work, drive
from webmend.stage.progress import slowest

DASK_BATCH = 4  # pages per Dask task: few enough to spread, enough to amortise a task's overhead
SOURCE = "rl-sample"  # a reward page's RawInput.source: a sampled answer, not a file
RESULTS = "eval/results.jsonl"  # under the step's work folder: every record executed, for inspection


@dataclass(frozen=True)
class RewardWeights:
    """The evaluator's page reward for tasks without a contract: weighted test-case pass rate and
    total score / 100, mixed by these weights (a page without a score gets 0)."""

    tests: float = 0.5
    score: float = 0.5


@dataclass
class PageReward:
    reward: float
    source: str  # "contract" (r_web) or "evaluator"
    status: str
    labels: dict | None = None  # z, from the contract
    score: float | None = None
    pass_rate: float | None = None
    visual: float | None = None  # the visual_design points, for the visual anchor
    frame: str | None = None  # the page's first keyframe (PNG path), for the visual anchor's judge


def reward_from_record(rec: dict, weights: RewardWeights) -> PageReward:
    contract = rec.get("contract")
    score = (rec.get("score") or {}).get("total")
    visual = (rec.get("score") or {}).get("visual_design")
    tests = rec.get("tests") or []
    total_weight = sum(t["weight"] for t in tests)
    pass_rate = sum(t["weight"] for t in tests if t["passed"]) / total_weight if total_weight else None
    if contract is not None:
        return PageReward(float(contract.get("reward") or 0.0), "contract", rec["status"], contract.get("labels") or {},
                          score, pass_rate, visual)
    if score is None:
        return PageReward(0.0, "evaluator", rec["status"], None, None, pass_rate)
    mixed = weights.score * score / 100 + weights.tests * (pass_rate if pass_rate is not None else score / 100)
    return PageReward(round(mixed / (weights.score + weights.tests), 6), "evaluator", rec["status"], None, score, pass_rate,
                      visual)


def anchor_degradation(reference: float | None, candidate: float | None, budget: float, tolerance: float) -> float:
    """WebCatalyst's one-sided visual degradation against a reference page, in [0, 1]: how far the
    candidate's visual-design points fall below the reference's (as a share of the dimension's
    points), beyond a tolerance; 0 when it is comparable or better. A candidate without a scored
    page is fully degraded; without a scored reference there is no anchor."""
    if reference is None or budget <= 0:
        return 0.0
    if candidate is None:
        return 1.0
    return min(1.0, max(0.0, (reference - candidate) / budget - tolerance))


class RewardCache:
    """JSON lines {hash, reward...}; the hash covers the page text, its task (with its contract) and
    the evaluator's config, so a change in any of them executes the page again."""

    def __init__(self, path: Path):
        self.path = path
        self.entries: dict[str, PageReward] = {}
        if path.exists():
            text = path.read_text()
            if text and not text.endswith("\n"):  # a line torn by a kill mid-write: its page runs again
                text = text[:text.rfind("\n") + 1]
                path.write_text(text)
            for line in text.splitlines():
                row = json.loads(line) if line.strip() else None
                if row:
                    key = row.pop("hash")  # before PageReward(**row): an assignment evaluates its value first
                    self.entries[key] = PageReward(**row)

    @staticmethod
    def key(text: str, item: dict | None, cfg: EvalConfig) -> str:
        task = json.dumps(item or {}, sort_keys=True, default=str)
        return sha256_hex("\0".join([text, task, cfg.config_hash()]))

    def add(self, key: str, reward: PageReward) -> None:
        self.entries[key] = reward
        with open(self.path, "a") as fh:
            fh.write(json.dumps({"hash": key, **asdict(reward)}, sort_keys=True) + "\n")


@dataclass
class RewardTiming:
    """The wall time of an update's reward steps and each executed page's evaluation seconds: a
    step waits for its slowest page, so that page's share says when one page dominates the step."""

    wall_s: float = 0.0
    pages: dict[str, float] = field(default_factory=dict)

    def summary(self) -> dict | None:
        """RlUpdate.reward_step; None when every reward came from the cache."""
        return slowest(self.pages, self.wall_s)


@dataclass
class RewardStage:
    """One reward step's pages as a stage: batches of distinct pages (by reward key), a batch done
    when every page of it has a stored reward (the cache is the marker), committed by storing the
    rewards and appending the records to WORK/eval/results.jsonl."""

    pages: dict[str, str]  # {sample key: answer text}, one per reward key
    keys: dict[str, str]  # {sample key: reward key}
    items: dict
    cfg_json: str
    work_dir: Path
    cache: RewardCache
    weights: RewardWeights
    results: IO[str]
    size: int
    name: str = "rl reward"
    elapsed: dict[str, float] = field(default_factory=dict)  # {sample key: evaluation seconds} of this call

    def batches(self) -> list[Batch]:
        listed = list(self.pages)
        return [Batch(i, str(i), tuple(listed[start:start + self.size]))
                for i, start in enumerate(range(0, len(listed), self.size))]

    def total(self) -> int:
        return len(self.pages)

    def is_committed(self, batch: Batch) -> bool:
        return all(self.keys[k] in self.cache.entries for k in batch.items)

    def work(self, batch: Batch) -> Work:
        from webmend.evaluate.records import evaluate_jobs  # Playwright only where pages run

        todo = [k for k in batch.items if self.keys[k] not in self.cache.entries]
        jobs = tuple((RawInput(n, k, SOURCE, self.pages[k], None, (match_item(self.items, k) or {}).get("prompt")),
                      match_item(self.items, k)) for n, k in enumerate(todo))
        return Work(batch.index, evaluate_jobs, (jobs, self.cfg_json, str((self.work_dir / "eval").resolve())))

    def commit(self, batch: Batch, records: list[dict]) -> None:
        for rec in records:
            reward = reward_from_record(rec, self.weights)
            files = [k["file"] for k in rec.get("keyframes") or [] if k.get("file")]
            reward.frame = str((self.work_dir / "eval" / files[0]).resolve()) if files else None
            self.cache.add(self.keys[rec["id"]], reward)  # the reward is what a rerun skips by
            self.elapsed[rec["id"]] = rec["elapsed_s"]
            self.results.write(json.dumps(rec, sort_keys=True) + "\n")
        self.results.flush()

    def describe(self, records: list[dict]) -> str:
        return describe_records(records)


def score_pages(pages: dict[str, str], items: dict[str, dict], cfg: EvalConfig, work: Path, *, cache: RewardCache,
                weights: RewardWeights, workers: int = 1, executor=None,
                timing: RewardTiming | None = None) -> dict[str, PageReward]:
    """{sample key: reward} for {sample key: answer text}; keys are `TASK#...` sample ids. timing:
    gets this call's wall time and the seconds of each page it executed."""
    from webmend.browser.worker import closing_new_browsers  # Playwright only where pages run

    keys = {k: RewardCache.key(text, match_item(items, k), cfg) for k, text in pages.items()}
    distinct, seen = {}, set()
    for k, text in pages.items():  # one execution per content
        if keys[k] not in seen:
            seen.add(keys[k])
            distinct[k] = text
    if any(keys[k] not in cache.entries for k in distinct):
        (work / RESULTS).parent.mkdir(parents=True, exist_ok=True)
        with open(work / RESULTS, "a", encoding="utf-8") as results:
            # A local pool takes one page at a time, as `webmend evaluate`; Dask tasks take a few.
            stage = RewardStage(distinct, keys, items, cfg.model_dump_json(), work, cache, weights, results,
                                DASK_BATCH if executor is not None else 1)
            # Here: one browser for the call, closed after it; a pool's or Dask's workers keep theirs.
            started = time.perf_counter()
            with closing_new_browsers(), nullcontext(executor) if executor is not None else executors.local(workers) as ex:
                outcome = drive(stage, ex, in_order=True)
            if timing is not None:
                timing.wall_s += time.perf_counter() - started
                timing.pages.update(stage.elapsed)
        if outcome.failures:
            raise RuntimeError(f"reward evaluation failed: {outcome.failures[0][1]!r}")
    return {k: cache.entries[keys[k]] for k in pages}
