"""The SFT run record `RUN/run.json` (docs/training.md): what a checkpoint was trained from, with
what, and how it ended. `train_run.schema.json` beside this module is generated from it
(python -m webmend.schemas.export)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

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
