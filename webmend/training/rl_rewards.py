"""Page rewards for RL from real browser execution: the evaluator (and the task's contract, when it
has one) runs every sampled page; rewards are cached by content hash, so a page seen before (a
repeated sample, a resumed run) is not executed again."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from webmend.config import EvalConfig
from webmend.evaluate.inputs import iter_responses, match_item
from webmend.evaluate.run import iter_records, run_evaluation
from webmend.schemas.hashing import sha256_hex


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


def reward_from_record(rec: dict, weights: RewardWeights) -> PageReward:
    contract = rec.get("contract")
    score = (rec.get("score") or {}).get("total")
    tests = rec.get("tests") or []
    total_weight = sum(t["weight"] for t in tests)
    pass_rate = sum(t["weight"] for t in tests if t["passed"]) / total_weight if total_weight else None
    if contract is not None:
        return PageReward(float(contract.get("reward") or 0.0), "contract", rec["status"], contract.get("labels") or {},
                          score, pass_rate)
    if score is None:
        return PageReward(0.0, "evaluator", rec["status"], None, None, pass_rate)
    mixed = weights.score * score / 100 + weights.tests * (pass_rate if pass_rate is not None else score / 100)
    return PageReward(round(mixed / (weights.score + weights.tests), 6), "evaluator", rec["status"], None, score, pass_rate)


class RewardCache:
    """JSON lines {hash, reward...}; the hash covers the page text, its task (with its contract) and
    the evaluator's config, so a change in any of them executes the page again."""

    def __init__(self, path: Path):
        self.path = path
        self.entries: dict[str, PageReward] = {}
        if path.exists():
            for line in path.read_text().splitlines():
                row = json.loads(line) if line.strip() else None
                if row:
                    self.entries[row.pop("hash")] = PageReward(**row)

    @staticmethod
    def key(text: str, item: dict | None, cfg: EvalConfig) -> str:
        task = json.dumps(item or {}, sort_keys=True, default=str)
        return sha256_hex("\0".join([text, task, cfg.config_hash()]))

    def add(self, key: str, reward: PageReward) -> None:
        self.entries[key] = reward
        with open(self.path, "a") as fh:
            fh.write(json.dumps({"hash": key, **asdict(reward)}, sort_keys=True) + "\n")


def score_pages(pages: dict[str, str], items: dict[str, dict], cfg: EvalConfig, work: Path, *, cache: RewardCache,
                weights: RewardWeights, workers: int = 1) -> dict[str, PageReward]:
    """{sample key: reward} for {sample key: answer text}; keys are `TASK#...` sample ids."""
    keys = {k: RewardCache.key(text, match_item(items, k), cfg) for k, text in pages.items()}
    todo, seen = {}, set()
    for k, text in pages.items():  # one execution per content, none for what the cache has
        if keys[k] not in cache.entries and keys[k] not in seen:
            seen.add(keys[k])
            todo[k] = text
    if todo:
        work.mkdir(parents=True, exist_ok=True)
        answers = work / "answers.jsonl"
        answers.write_text("".join(json.dumps({"id": k, "prompt": (match_item(items, k) or {}).get("prompt"),
                                               "response": text}) + "\n" for k, text in todo.items()))
        run_evaluation(iter_responses(answers), items, cfg, work / "eval", workers=workers)
        for rec in iter_records(work / "eval" / "results.jsonl"):
            cache.add(keys[rec["id"]], reward_from_record(rec, weights))
    return {k: cache.entries[keys[k]] for k in pages}
