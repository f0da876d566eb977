"""The SFT run record `RUN/run.json` (docs/training.md): what a checkpoint was trained from, with
what, and how it ended. `train_run.schema.json` beside this module is generated from it
(python -m webmend.schemas.export)."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from webmend.schemas.vocab import STATES

TRAIN_RUN_VERSION = "1"
LAUNCH_MODES = ("local", "print", "script")
RUN_STATUSES = ("planned", "running", "succeeded", "failed")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ManifestRef(_Model):
    path: str = Field(description="the manifest.json the run trained from (absolute)")
    sha256: str = Field(description="of the manifest file")
    export_version: str
    dataset: str = Field(description="the dataset_info.json name trained on")
    route: str
    format: str
    rows: int
    system_prompt: str = Field(description="the system turn of every row; also the config's default_system")


class TrainMetrics(_Model):
    train_loss: float | None = Field(None, description="LlamaFactory's mean training loss (all_results.json)")
    final_loss: float | None = Field(None, description="the last logged step loss")
    steps: int | None = Field(None, description="optimizer steps run")
    epoch: float | None = None
    train_runtime_s: float | None = None
    loss_history: list[tuple[int, float]] = Field(default_factory=list, description="(step, loss) as logged")


class TrainRun(_Model):
    run_version: Literal["1"] = TRAIN_RUN_VERSION
    kind: Literal["sft"] = "sft"
    run_id: str = Field(description="sft-<export version>-<route>-<preset>-<config hash>: the default folder name")
    preset: str
    model: str = Field(description="model_name_or_path as trained (a hub id, a folder, or the tiny model built here)")
    tiny_model: dict | None = Field(None, description="how the tiny random model was built, when it was")
    manifest: ManifestRef
    config_sha256: str = Field(description="of train.yaml as written")
    code_version: str
    launch: Literal["local", "print", "script"]
    status: Literal["planned", "running", "succeeded", "failed"]
    exit_code: int | None = None
    started_at: str | None = None
    finished_at: str | None = None
    checkpoint: str = Field(description="the output_dir, relative to the run folder")
    metrics: TrainMetrics = Field(default_factory=TrainMetrics)


class FamilyRow(_Model):
    items: int
    scored: int
    mean_score: float | None = Field(description="mean total over the items; an item without a scored page counts 0")
    weight_passed: float
    weight_total: float
    pass_rate: float | None = Field(description="weighted test-case pass rate; an answer with no page fails all its cases")
    bands: dict[Literal[(*STATES, "unscored")], int]


class CheckpointReport(_Model):
    """`webmend train eval`'s DIR/NN-LABEL/report.json."""

    checkpoint: str = Field(description="N:ROUTE/PRESET or N:FOLDER, numbered in the order given")
    model: str
    run_id: str | None
    backend: Literal["transformers", "openai"]
    system_prompt: str
    max_new_tokens: int
    evaluator_config: str
    pages_by_status: dict[str, int]
    families: dict[str, FamilyRow] = Field(description="per family and `all`")


class RoleSummary(_Model):
    n: int
    mean_reward: float
    rewards: list[float]
    parsed: int | None = Field(None, description="critic: critiques with usable verdicts")
    mean_D: float | None = None
    mean_H: float | None = None


class RewardStep(_Model):
    """How long an update waited for its page rewards, and whether one page dominated the wait."""

    wall_s: float = Field(description="seconds the update's reward steps took, start to end")
    pages: int = Field(description="pages executed (cached rewards cost nothing and are not counted)")
    slowest_page: str = Field(description="sample key of the page that took longest")
    slowest_s: float = Field(description="its evaluation's seconds")
    slowest_share: float = Field(description="slowest_s / wall_s: near 1, the step waited on that page alone")


class ParamDigest(_Model):
    digest: str = Field(description="sha256 over every parameter (name and bytes)")
    norm: float


RolloutBackend = Literal["local", "openai"]
SyncMode = Literal["reload", "command", "none"]
ROLLOUT_BACKENDS = get_args(RolloutBackend)
SYNC_MODES = get_args(SyncMode)


class RolloutSync(_Model):
    mode: SyncMode
    served: str | None = Field(default=None, description="the weights the server was given, relative to OUT")
    seconds: float | None = None


class Rollouts(_Model):
    backend: RolloutBackend
    model: str | None = Field(default=None, description="openai: the litellm model string")
    sync: SyncMode | None = None


class RlUpdate(_Model):
    """One line of `webmend train rl`'s OUT/rl_log.jsonl."""

    update: int
    tasks: list[str]
    roles: dict[Literal["generator", "critic", "refiner"], RoleSummary]
    advantages: dict[str, list[float]] = Field(description="per comparison group: gen:TASK, crit:TASK, ref:CRITIQUE@TASK")
    update_stats: list[dict] = Field(description="per epoch: loss, tokens, clip_fraction, ratio_mean, kl, grad_norm")
    params_before: ParamDigest
    params_after: ParamDigest
    critic_skipped: dict[str, str] = Field(default_factory=dict, description="task -> why it had no Critic")
    sync: RolloutSync | None = Field(default=None, description="a rollout server's weight sync after this update")
    reward_step: RewardStep | None = Field(default=None, description="null when every reward came from the cache")
    elapsed_s: float


class RlRun(_Model):
    """`webmend train rl`'s OUT/rl_run.json."""

    kind: Literal["rl"] = "rl"
    init: str = Field(description="the policy it started from")
    init_run: str | None = Field(description="the `train sft` run id of the initial policy, when it was one")
    system_prompt: str
    preset: str
    config: dict = Field(description="RlConfig as run")
    evaluator_config: str
    tasks: list[str]
    code_version: str
    updates: int
    resumed_after: int = Field(description="updates taken from an earlier, stopped run (0: none)")
    rewards_on: Literal["local", "dask"]
    rollouts: Rollouts = Field(default_factory=lambda: Rollouts(backend="local"),
                               description="where samples came from: the policy worker or an OpenAI-compatible server")
    checkpoint: str = Field(description="the final policy, relative to OUT")
    final_params: ParamDigest | None
