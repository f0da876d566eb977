"""Whole training jobs, shared by `webmend train` and the Prefect `train` flow: SFT from a
manifest, RL from an initial checkpoint, and the RL plot. Pure core (no Prefect)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from webmend.config import EvalConfig
from webmend.export.manifest import code_version
from webmend.schemas.hashing import sha256_hex
from webmend.schemas.training import RlRun
from webmend.training import env as train_env
from webmend.training import rl, rollouts, sft
from webmend.training.evaluation import read_checkpoint


class ConfigRejected(ValueError):
    """LlamaFactory's parser refused the rendered config."""


def resolve_manifest(path: str | Path) -> Path:
    """A version folder or manifest.json as given; an export folder (with LATEST.json) -> its latest version."""
    p = Path(path)
    latest = p / "LATEST.json"
    if p.is_dir() and latest.is_file() and not (p / "manifest.json").exists():
        return p / json.loads(latest.read_text())["version"]
    return p


def run_sft_job(manifest: str | Path, *, route: str = "refined", fmt: str = "sharegpt", preset: str = "tiny",
                model: str | None = None, out: str | Path | None = None, overrides: dict | None = None,
                launch: str = "local", nodes: int | None = None, gpus: int | None = None, echo=None,
                threads: int | None = None) -> sft.SftPlan:
    """Plan, write and (local) run one SFT; raises ManifestRejected, ConfigRejected, TrainEnvMissing."""
    plan = sft.plan_sft(resolve_manifest(manifest), route=route, preset=preset, model=model, out=out,
                        overrides=overrides, fmt=fmt, launch=launch)
    if preset == "tiny" and not model:
        sft.build_tiny_model(plan)
    sft.write_plan(plan)
    if launch != "local":
        # A cluster job should fail here, not after its nodes start: LlamaFactory's parser checks
        # every key. Local runs skip it, since the trainer parses the same file at once.
        problems = sft.check_config(plan)
        if problems:
            raise ConfigRejected(f"{plan.yaml_path}: " + "; ".join(problems))
    if launch == "script":
        sft.write_launch_script(plan, nodes, gpus)
    elif launch == "local":
        sft.run_local(plan, echo=echo, threads=threads)
    return plan


@dataclass
class RolloutOptions:
    """`train rl --rollouts ...`: the policy worker samples (local), or an OpenAI-compatible server
    (openai) whose weights follow the policy (webmend.training.rollouts)."""

    backend: str = "local"
    model: str | None = None  # litellm's model string for the server, e.g. hosted_vllm/policy
    api_base: str | None = None
    sync: str = "reload"
    sync_url: str | None = None
    sync_command: str | None = None
    concurrency: int = 8

    @classmethod
    def from_mapping(cls, options: dict | None) -> "RolloutOptions":
        """From the flow's rl_rollouts (values may arrive as YAML scalars); unknown keys are refused."""
        options = dict(options or {})
        unknown = sorted(set(options) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError(f"rl_rollouts: unknown {', '.join(unknown)}; known: {', '.join(cls.__dataclass_fields__)}")
        if "concurrency" in options:
            options["concurrency"] = int(options["concurrency"])
        return cls(**{k: v if k == "concurrency" or v is None else str(v) for k, v in options.items()})

    def check(self) -> None:
        if self.backend not in rollouts.ROLLOUT_BACKENDS:
            raise ValueError(f"--rollouts {self.backend!r}: one of {', '.join(rollouts.ROLLOUT_BACKENDS)}")
        if self.backend == "openai" and not self.model:
            raise ValueError("--rollouts openai needs --rollout-model (litellm's name for the served policy)")
        if self.backend == "openai":
            rollouts.check_sync(self.sync, self.api_base, self.sync_url, self.sync_command)

    def identity(self) -> dict:
        """What makes samples differ, for the run folder's name (never the URL: it may carry a token)."""
        return {} if self.backend == "local" else {"rollouts": self.backend, "rollout_model": self.model}

    def build(self, policy):
        if self.backend == "local":
            return rollouts.LocalRollouts(policy)
        return rollouts.ServerRollouts(policy, self.model, api_base=self.api_base, sync_mode=self.sync,
                                       sync_url=self.sync_url, sync_command=self.sync_command,
                                       concurrency=self.concurrency)


@dataclass
class RlOutcome:
    out: Path
    record: dict
    lines: list[dict]


def rl_config(preset: str, overrides: dict | None = None, updates: int | None = None,
              workers: int | None = None) -> rl.RlConfig:
    if preset not in rl.RL_PRESETS:
        raise ValueError(f"unknown RL preset {preset!r}: one of {', '.join(rl.RL_PRESETS)}")
    options = {**rl.RL_PRESETS[preset], **(overrides or {})}
    if updates:
        options["updates"] = updates
    if workers:
        options["workers"] = workers
    if isinstance(options.get("roles"), list):
        options["roles"] = tuple(options["roles"])
    try:
        return rl.RlConfig(**options)
    except TypeError as exc:
        raise ValueError(f"RL config: {exc}") from None


def run_rl_job(tasks_file: str, contracts: list[str], init: str, eval_cfg: EvalConfig, *, preset: str = "tiny",
               overrides: dict | None = None, updates: int | None = None, out: str | Path | None = None,
               workers: int | None = None, threads: int | None = None, dask_address: str | None = None,
               dask_workers: int | None = None, anchors: str | None = None,
               rollout: RolloutOptions | None = None) -> RlOutcome:
    """RL from `init`; with dask_address (a scheduler) or dask_workers (a local cluster) the page
    rewards run on Dask workers with warm browsers, else on a local pool. anchors: a folder of
    reference pages TASK_ID.html for the visual anchor (visual_anchor_weight > 0). rollout: where
    samples come from (default: the policy worker itself)."""
    from contextlib import nullcontext

    from webmend.contracts.command import items_with_contracts
    from webmend.stage import executors
    from webmend.evaluate.inputs import load_items
    from webmend.training.policy import PolicyWorker

    items = items_with_contracts(load_items(tasks_file), contracts)
    tasks = [it for _, it in sorted(items.items()) if it.get("prompt")]
    cfg = rl_config(preset, overrides, updates, workers)
    start = read_checkpoint(init)
    rollout = rollout or RolloutOptions()
    rollout.check()
    request = json.dumps({"init": start.model, "tasks": [t["id"] for t in tasks], "cfg": rl.config_dict(cfg),
                          "eval": eval_cfg.config_hash(), **rollout.identity()}, sort_keys=True, default=str)
    folder = Path(out or f"runs/train/rl-{sha256_hex(request)[:12]}")
    use_dask = bool(dask_address or dask_workers)
    with (executors.dask(dask_address, dask_workers) if use_dask else nullcontext()) as executor, \
            PolicyWorker(threads=threads) as policy:
        done, saved = rl.resume_point(folder)  # a run that stopped goes on from its last saved update
        model = str(saved) if saved else start.model
        optimizer = str(saved / "optimizer.pt") if saved and (saved / "optimizer.pt").exists() else None
        policy.load(model, lr=cfg.lr, seed=cfg.seed, clip_eps=cfg.clip_eps, kl_coef=cfg.kl_coef, optimizer=optimizer)
        sampler = rollout.build(policy)
        lines = rl.train_rl(tasks, items, policy, eval_cfg, cfg, folder, system=start.system_prompt, executor=executor,
                            anchors=load_anchors(anchors, items), rollouts=sampler)
        policy.save(str(folder / "checkpoint"))
    record = {"kind": "rl", "init": start.model, "init_run": start.run_id, "system_prompt": start.system_prompt,
              "preset": preset, "config": rl.config_dict(cfg), "evaluator_config": eval_cfg.config_hash(),
              "tasks": [t["id"] for t in tasks], "code_version": code_version(), "updates": len(lines),
              "resumed_after": done,
              "rewards_on": "dask" if use_dask else "local", "rollouts": sampler.describe(),
              "checkpoint": "checkpoint", "final_params": lines[-1]["params_after"] if lines else None}
    RlRun.model_validate(record)  # the file's contract (rl_run.schema.json)
    (folder / "rl_run.json").write_text(json.dumps(record, indent=2, sort_keys=True, default=str) + "\n")
    return RlOutcome(folder, record, lines)


def load_anchors(folder: str | None, items: dict) -> dict[str, str]:
    """{task id: reference HTML} from FOLDER/TASK_ID.html; a file for no task is an error."""
    if not folder:
        return {}
    pages = {p.stem: p.read_text(encoding="utf-8") for p in sorted(Path(folder).glob("*.html"))}
    unknown = sorted(set(pages) - set(items))
    if unknown:
        raise ValueError(f"--anchors: no task for {', '.join(unknown)}")
    return pages


def plot_rl(out: Path) -> Path:
    """OUT/rl_rewards.png: mean reward per role and the loss, per update (drawn in the training env)."""
    png = out / "rl_rewards.png"
    train_env.run_trainenv_module("plot", ["--rl-log", str(out / "rl_log.jsonl"), "--out", str(png)], timeout=300)
    return png
