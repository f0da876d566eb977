"""The RL stage (webloop.txt 3-4): one policy in three roles, every page reward from the browser.

Per update m, for a batch of tasks:
  1. Generator: n_gen pages per task; each executed (the evaluator, with the task's contract when it
     has one) for its reward.
  2. Critic (tasks with a contract, whose labels z exist): the best imperfect draft y_b (highest
     reward below 1) gets n_crit critiques; each is parsed into per-requirement verdicts and scored
     with D against y_b's labels.
  3. Refiner: n_ref rewrites per parseable critique, executed for their rewards; they give the
     critique its helpfulness H. The critic reward is D for the first `critic_warmup` updates, then
     H + lambda D.
  4. Advantages within each role's group (gen:TASK, crit:TASK, ref:TASK:j), then one GRPO update of
     the shared policy over every sample (`trainenv.grpo`, in the policy worker).
Everything an update did goes to OUT/rl_log.jsonl (one line per update) and OUT/updates/NNNN/
(samples.jsonl, the evaluator's records); the policy is saved to OUT/checkpoint in transformers'
format. Pure core: no Prefect; the policy is passed in."""

from __future__ import annotations

import json
import logging
import random
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from webmend.config import EvalConfig
from webmend.schemas.training import RlUpdate
from webmend.training.role_rewards import CRITIC_MIN_REWARD, CriticSchedule, advantages_by_group, discriminability, helpfulness
from webmend.training.rl_prompts import critic_messages, parse_verdicts, refiner_messages
from webmend.training.page_rewards import (PageReward, RewardCache, RewardTiming, RewardWeights, anchor_degradation,
                                         score_pages)
from webmend.training.rollouts import LocalRollouts

log = logging.getLogger(__name__)
ROLES = ("generator", "critic", "refiner")
STATE = "state.json"  # {"update": m, "policy": "policy-NNNN"}: the last update whose policy is saved
PHASES = {"generator": 0, "critic": 1, "refiner": 2}


@dataclass
class RlConfig:
    updates: int = 3
    tasks_per_update: int = 64  # WebLoop's task batch
    n_gen: int = 3
    n_crit: int = 3
    n_ref: int = 3
    roles: tuple[str, ...] = ROLES
    max_new_tokens: int = 30000
    temperature: float = 1.0
    lr: float = 1e-6
    clip_eps: float = 0.2
    kl_coef: float = 0.0
    epochs: int = 1
    critic_warmup: int = 15
    critic_lambda: float = 0.2
    reward_weights: RewardWeights = field(default_factory=RewardWeights)
    seed: int = 0
    workers: int = 1  # browser workers for the rewards
    # WebCatalyst's visual anchor: reward - weight * D for pages of tasks with a reference page
    # (--anchors); 0 turns it off. D is one-sided (page_rewards.anchor_degradation).
    visual_anchor_weight: float = 0.0
    visual_anchor_tolerance: float = 0.05
    # a vision model (litellm) that compares the reference page's screenshot with each sample's
    # (visual_anchor.AnchorJudge); None, or a failed call: the evaluator's visual-design points decide
    visual_anchor_judge: str | None = None
    checkpoint_every: int = 1  # save the policy (and optimizer) every N updates, so a run resumes there

    def __post_init__(self):
        unknown = set(self.roles) - set(ROLES)
        if unknown or "generator" not in self.roles:
            raise ValueError(f"roles must include generator and be among {ROLES}: got {self.roles}")
        if "refiner" in self.roles and "critic" not in self.roles:
            raise ValueError("the refiner acts on critiques: add the critic role")
        counts = {"updates": self.updates, "tasks_per_update": self.tasks_per_update, "n_gen": self.n_gen,
                  "n_crit": self.n_crit, "n_ref": self.n_ref, "max_new_tokens": self.max_new_tokens,
                  "epochs": self.epochs, "checkpoint_every": self.checkpoint_every}
        low = [f"{k}={v}" for k, v in counts.items() if not isinstance(v, int) or v < 1]
        if low:
            raise ValueError(f"RL config: {', '.join(low)}: each must be a whole number of at least 1")


RL_PRESETS = {
    "tiny": {"tasks_per_update": 8, "n_gen": 3, "n_crit": 2, "n_ref": 2, "max_new_tokens": 256, "lr": 1e-4},
    "4b": {"lr": 1e-6}, "9b": {"lr": 1e-6}, "27b": {"lr": 5e-7},
}


@dataclass
class Rollout:
    key: str
    role: str
    group: str
    completion: dict  # the worker's: text, prompt_ids, completion_ids
    reward: float | None = None
    advantage: float = 0.0
    detail: dict = field(default_factory=dict)


def _requests(messages_by_key: dict[str, list[dict]], n: int, cfg: RlConfig) -> list[dict]:
    return [{"key": k, "messages": m, "n": n, "max_new_tokens": cfg.max_new_tokens, "temperature": cfg.temperature}
            for k, m in messages_by_key.items()]


def sample_seed(cfg: RlConfig, m: int, role: str) -> int:
    """Sampling is seeded by (run seed, update, role), so a resumed run samples what it would have."""
    return cfg.seed * 1_000_003 + m * 10 + PHASES[role]


def _page_rollouts(sampler, messages: dict[str, list[dict]], n: int, role: str, group_of, cfg: RlConfig,
                   tag: str, m: int) -> list[Rollout]:
    out = []
    for c in sampler.sample(_requests(messages, n, cfg), seed=sample_seed(cfg, m, role)):
        key = f"{c['key']}-{tag}{c['index']}"
        out.append(Rollout(key, role, group_of(c["key"]), c))
    return out


@dataclass
class Anchors:
    """The visual anchor's references: {task id: the reference page's reward (points, frame)} and
    the optional screenshot judge."""

    references: dict[str, PageReward] = field(default_factory=dict)
    judge: object = None  # visual_anchor.AnchorJudge


def anchor_penalty_D(ref: PageReward, got: PageReward, prompt: str, anchors: Anchors, eval_cfg: EvalConfig,
                     cfg: RlConfig) -> tuple[float, str]:
    """(D, what decided it): the judge on the two first keyframes when configured and both exist,
    else the one-sided fall of the visual-design points (page_rewards.anchor_degradation)."""
    if anchors.judge is not None and ref.frame and got.frame:
        d = anchors.judge.degradation(prompt, Path(ref.frame), Path(got.frame))
        if d is not None:
            return round(min(1.0, max(0.0, d - cfg.visual_anchor_tolerance)), 6), "judge"
    return anchor_degradation(ref.visual, got.visual, eval_cfg.budgets.visual_design, cfg.visual_anchor_tolerance), "points"


def _score(rollouts: list[Rollout], items, eval_cfg, work: Path, cache, cfg: RlConfig, executor,
           anchors: Anchors | None = None, timing: RewardTiming | None = None) -> dict[str, PageReward]:
    rewards = score_pages({r.key: r.completion["text"] for r in rollouts}, items, eval_cfg, work, cache=cache,
                          weights=cfg.reward_weights, workers=cfg.workers, executor=executor, timing=timing)
    for r in rollouts:
        got = rewards[r.key]
        r.reward = got.reward
        r.detail.update(source=got.source, status=got.status)
        task = r.key.split("#", 1)[0]
        if cfg.visual_anchor_weight and anchors and task in anchors.references:
            d, by = anchor_penalty_D(anchors.references[task], got, items[task].get("prompt", ""), anchors, eval_cfg, cfg)
            r.reward = round(got.reward - cfg.visual_anchor_weight * d, 6)
            r.detail.update(page_reward=got.reward, anchor_D=d, anchor_by=by)
    return rewards


def anchor_references(anchors: dict[str, str], items, eval_cfg: EvalConfig, work: Path, cache, cfg: RlConfig,
                      executor=None, judge=None) -> Anchors:
    """The reference pages executed once (and cached like every page): their points and frames."""
    if not anchors or not cfg.visual_anchor_weight:
        return Anchors()
    got = score_pages({f"{tid}#anchor": html for tid, html in anchors.items()}, items, eval_cfg, work, cache=cache,
                      weights=cfg.reward_weights, workers=cfg.workers, executor=executor)
    return Anchors({tid: got[f"{tid}#anchor"] for tid in anchors}, judge)


def pick_draft(gens: list[Rollout]) -> Rollout | None:
    """The best imperfect draft: the highest reward below 1 (ties: the first sampled)."""
    imperfect = [g for g in gens if g.reward is not None and g.reward < 1.0 - 1e-9]
    return max(imperfect, key=lambda g: g.reward) if imperfect else None


def run_update(m: int, tasks: list[dict], sampler, items: dict, eval_cfg: EvalConfig, cfg: RlConfig, system: str,
               work: Path, cache: RewardCache, executor=None, anchors: Anchors | None = None) -> tuple[list[Rollout], dict]:
    """Sample (from `sampler`, a webmend.training.rollouts backend), execute and score every role for
    update m (1-based); returns the rollouts and notes."""
    def task_of(key: str) -> str:
        return key.split("#", 1)[0]

    gen_msgs = {f"{t['id']}#u{m}": [{"role": "system", "content": system}, {"role": "user", "content": t["prompt"]}]
                for t in tasks}
    gens = _page_rollouts(sampler, gen_msgs, cfg.n_gen, "generator", lambda k: f"gen:{task_of(k)}", cfg, "g", m)
    timing = RewardTiming()
    gen_rewards = _score(gens, items, eval_cfg, work / "gen", cache, cfg, executor, anchors, timing)
    notes = {"critic_skipped": {}, "reward_step": timing.summary()}
    if "critic" not in cfg.roles:
        return gens, notes
    drafts: dict[str, tuple[Rollout, dict]] = {}
    for t in tasks:
        contract = t.get("contract")
        if not contract:
            notes["critic_skipped"][t["id"]] = "no contract: no requirement labels"
            continue
        draft = pick_draft([g for g in gens if task_of(g.key) == t["id"]])
        if draft is None:
            notes["critic_skipped"][t["id"]] = "every draft was perfect"
            continue
        drafts[t["id"]] = (draft, gen_rewards[draft.key].labels or {})
    crit_msgs = {f"{tid}#u{m}": critic_messages(system, items[tid]["prompt"], items[tid]["contract"]["requirements"],
                                                d.completion["text"]) for tid, (d, _) in drafts.items()}
    crits = _page_rollouts(sampler, crit_msgs, cfg.n_crit, "critic", lambda k: f"crit:{task_of(k)}", cfg, "c", m)
    for c in crits:
        tid = task_of(c.key)
        req_ids = [r["id"] for r in items[tid]["contract"]["requirements"]]
        c.detail["verdicts"] = parse_verdicts(c.completion["text"], req_ids)
        c.detail["draft"] = drafts[tid][0].key
    refs: list[Rollout] = []
    if "refiner" in cfg.roles:
        ref_msgs = {c.key: refiner_messages(system, items[task_of(c.key)]["prompt"],
                                            drafts[task_of(c.key)][0].completion["text"], c.completion["text"])
                    for c in crits if c.detail["verdicts"] is not None}
        refs = _page_rollouts(sampler, ref_msgs, cfg.n_ref, "refiner", lambda k: f"ref:{k.split('#', 1)[1]}@{task_of(k)}",
                              cfg, "r", m)
        if refs:
            _score(refs, items, eval_cfg, work / "ref", cache, cfg, executor, anchors, timing)
            notes["reward_step"] = timing.summary()
    schedule = CriticSchedule(cfg.critic_warmup, cfg.critic_lambda)
    for c in crits:
        draft, labels = drafts[task_of(c.key)]
        if c.detail["verdicts"] is None:
            c.reward = CRITIC_MIN_REWARD
            continue
        d = discriminability(labels, c.detail["verdicts"])
        mine = [r.reward for r in refs if r.key.startswith(c.key + "-")]
        h = helpfulness(mine, draft.reward) if mine else None
        c.detail.update(D=d, H=h)
        c.reward = schedule.reward(m, d, h) if (h is not None or m <= cfg.critic_warmup) else d
    return gens + crits + refs, notes


def assign_advantages(rollouts: list[Rollout]) -> dict[str, list[float]]:
    groups: dict[str, list[Rollout]] = {}
    for r in rollouts:
        groups.setdefault(r.group, []).append(r)
    advantages = advantages_by_group({g: [r.reward for r in rs] for g, rs in groups.items()})
    for g, rs in groups.items():
        for r, a in zip(rs, advantages[g]):
            r.advantage = a
    return advantages


def _role_summary(rollouts: list[Rollout]) -> dict:
    out = {}
    for role in ROLES:
        rs = [r.reward for r in rollouts if r.role == role]
        if rs:
            out[role] = {"n": len(rs), "mean_reward": round(sum(rs) / len(rs), 6), "rewards": rs}
    crits = [r for r in rollouts if r.role == "critic"]
    if crits:
        out["critic"]["parsed"] = sum(c.detail.get("verdicts") is not None for c in crits)
        ds = [c.detail["D"] for c in crits if "D" in c.detail]
        hs = [c.detail["H"] for c in crits if c.detail.get("H") is not None]
        out["critic"]["mean_D"] = sum(ds) / len(ds) if ds else None
        out["critic"]["mean_H"] = sum(hs) / len(hs) if hs else None
    return out


def task_batches(tasks: list[dict], cfg: RlConfig):
    """Update m's tasks: a seeded shuffle, cycled through in batches of tasks_per_update."""
    order = list(tasks)
    random.Random(cfg.seed).shuffle(order)
    size = min(cfg.tasks_per_update, len(order))
    for m in range(1, cfg.updates + 1):
        start = ((m - 1) * size) % len(order)
        yield m, (order + order)[start:start + size]


def train_rl(tasks: list[dict], items: dict, policy, eval_cfg: EvalConfig, cfg: RlConfig, out: Path, *,
             system: str, executor=None, anchors: dict[str, str] | None = None, rollouts=None,
             anchor_judge=None) -> list[dict]:
    """Run cfg.updates updates; returns the log lines (also OUT/rl_log.jsonl). `executor` (a Dask
    one from webmend.stage.executors) runs the rewards on warm workers; else a local pool per call.
    `anchors`: {task id: reference page HTML} for the visual anchor. `rollouts`: where samples come
    from (webmend.training.rollouts; default the policy worker's own generation). `anchor_judge`:
    the screenshot judge (default: one for cfg.visual_anchor_judge, when set)."""
    if not tasks:
        raise ValueError("no RL tasks")
    out.mkdir(parents=True, exist_ok=True)
    cache = RewardCache(out / "reward_cache.jsonl")
    if anchor_judge is None and cfg.visual_anchor_judge and anchors:
        from webmend.training.visual_anchor import AnchorJudge

        anchor_judge = AnchorJudge(cfg.visual_anchor_judge, out / "anchor_judge.jsonl")
    anchor_points = anchor_references(anchors or {}, items, eval_cfg, out / "anchors", cache, cfg, executor, anchor_judge)
    done, _ = resume_point(out)
    lines = read_log(out)[:done]
    _write_log(out, lines)  # lines of updates whose policy was never saved are done again
    if done:
        log.info("resuming after update %d", done)
    sampler = rollouts or LocalRollouts(policy)
    sampler.sync(out, done)  # a server starts from the weights this run goes on from
    for m, batch in task_batches(tasks, cfg):
        if m <= done:
            continue
        started = time.perf_counter()
        work = out / "updates" / f"{m:04d}"
        before = policy.digest()
        samples, notes = run_update(m, batch, sampler, items, eval_cfg, cfg, system, work, cache, executor, anchor_points)
        advantages = assign_advantages(samples)
        stats = policy.update([{"prompt_ids": r.completion["prompt_ids"], "completion_ids": r.completion["completion_ids"],
                                "advantage": r.advantage, "role": r.role, "group": r.group} for r in samples],
                              epochs=cfg.epochs)
        after = policy.digest()
        synced = sampler.sync(out, m)
        if synced is not None:
            notes["sync"] = synced
        _write_samples(work / "samples.jsonl", samples)
        line = {"update": m, "tasks": [t["id"] for t in batch], "roles": _role_summary(samples),
                "advantages": {g: [round(a, 6) for a in v] for g, v in sorted(advantages.items())},
                "update_stats": stats, "params_before": before, "params_after": after, **notes,
                "elapsed_s": round(time.perf_counter() - started, 2)}
        RlUpdate.model_validate(line)  # the log's contract (rl_update.schema.json)
        with open(out / "rl_log.jsonl", "a") as fh:
            fh.write(json.dumps(line, sort_keys=True) + "\n")
        log.info("update %d: %s", m, {k: v["mean_reward"] for k, v in line["roles"].items()})
        lines.append(line)
        if m % max(1, cfg.checkpoint_every) == 0 or m == cfg.updates:
            save_state(policy, out, m)
    return lines


def resume_point(out: Path) -> tuple[int, Path | None]:
    """(last saved update, its policy folder), or (0, None) for a fresh run."""
    state = out / STATE
    if not state.exists():
        return 0, None
    s = json.loads(state.read_text())
    return int(s["update"]), out / s["policy"]


def save_state(policy, out: Path, m: int) -> None:
    """The policy and its optimizer into OUT/policy-NNNN, then state.json names it (written last, so
    a crash mid-save leaves the previous state), then older policy folders go."""
    name = f"policy-{m:04d}"
    policy.save(str(out / name), optimizer=True)
    tmp = out / f"{STATE}.tmp"
    tmp.write_text(json.dumps({"update": m, "policy": name}) + "\n")
    tmp.replace(out / STATE)
    for old in out.glob("policy-*"):
        if old.name != name and old.is_dir():
            shutil.rmtree(old)


def read_log(out: Path) -> list[dict]:
    path = out / "rl_log.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _write_log(out: Path, lines: list[dict]) -> None:
    tmp = out / "rl_log.jsonl.tmp"
    tmp.write_text("".join(json.dumps(line, sort_keys=True) + "\n" for line in lines))
    tmp.replace(out / "rl_log.jsonl")


def _write_samples(path: Path, rollouts: list[Rollout]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        for r in rollouts:
            row = {"key": r.key, "role": r.role, "group": r.group, "reward": r.reward, "advantage": r.advantage,
                   "text": r.completion["text"], "completion_tokens": len(r.completion["completion_ids"]), **r.detail}
            fh.write(json.dumps(row, sort_keys=True, default=str) + "\n")


def config_dict(cfg: RlConfig) -> dict:
    return asdict(cfg)
