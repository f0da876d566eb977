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
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path

from webmend.config import EvalConfig
from webmend.evaluate.inputs import RawInput, match_item
from webmend.evaluate.run import describe_records
from webmend.schemas.hashing import sha256_hex
from webmend.stage import executors
from webmend.stage.batches import Batch
from webmend.stage.progress import Meter, log_report
from webmend.stage.run import InOrder, run_stage

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


def _evaluate(todo: dict[str, str], items: dict, cfg: EvalConfig, work: Path, workers: int, executor,
              commit) -> None:
    """Execute the pages of `todo` ({sample key: answer text}) through the stage driver, calling
    `commit(records)` with each batch's records in sample order; keyframes go under WORK/eval/."""
    frames = (work / "eval").resolve()
    frames.mkdir(parents=True, exist_ok=True)
    jobs = [(RawInput(n, k, SOURCE, text, None, (match_item(items, k) or {}).get("prompt")), match_item(items, k))
            for n, (k, text) in enumerate(todo.items())]
    size = DASK_BATCH if executor is not None else 1  # a local pool takes one page at a time, as `webmend evaluate`
    batches = [Batch(i, str(i), tuple(jobs[start:start + size])) for i, start in enumerate(range(0, len(jobs), size))]
    cfg_json = cfg.model_dump_json()
    from webmend.browser.worker import closing_new_browsers  # Playwright only where pages run
    from webmend.evaluate.records import evaluate_jobs

    # Here: one browser for the call, closed after it; a pool's or Dask's workers keep theirs.
    with closing_new_browsers(), nullcontext(executor) if executor is not None else executors.local(workers) as ex:
        report = run_stage(batches, submit=lambda b: ex.submit(evaluate_jobs, b.items, cfg_json, str(frames)),
                           completed=ex.completed, commit=InOrder(lambda b, recs: commit(recs), 0),
                           meter=Meter("rl reward", total=len(jobs), report=log_report), describe=describe_records)
    if report.failures:
        raise RuntimeError(f"reward evaluation failed: {report.failures[0][1]!r}")


def score_pages(pages: dict[str, str], items: dict[str, dict], cfg: EvalConfig, work: Path, *, cache: RewardCache,
                weights: RewardWeights, workers: int = 1, executor=None) -> dict[str, PageReward]:
    """{sample key: reward} for {sample key: answer text}; keys are `TASK#...` sample ids."""
    keys = {k: RewardCache.key(text, match_item(items, k), cfg) for k, text in pages.items()}
    todo, seen = {}, set()
    for k, text in pages.items():  # one execution per content, none for what the cache has
        if keys[k] not in cache.entries and keys[k] not in seen:
            seen.add(keys[k])
            todo[k] = text
    if todo:
        (work / RESULTS).parent.mkdir(parents=True, exist_ok=True)
        with open(work / RESULTS, "a", encoding="utf-8") as results:
            def commit(records: list[dict]) -> None:
                for rec in records:
                    reward = reward_from_record(rec, weights)
                    files = [k["file"] for k in rec.get("keyframes") or [] if k.get("file")]
                    reward.frame = str((work / "eval" / files[0]).resolve()) if files else None
                    cache.add(keys[rec["id"]], reward)  # the reward is what a rerun skips by
                    results.write(json.dumps(rec, sort_keys=True) + "\n")
                results.flush()

            _evaluate(todo, items, cfg, work, workers, executor, commit)
    return {k: cache.entries[keys[k]] for k in pages}
