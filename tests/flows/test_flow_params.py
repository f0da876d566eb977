"""The flows' parameters (build-refined-pool, train): one settings object per stage, validated by
Prefect before a run, the same objects from the direct commands' flags, and documented field by
field. No server: this is the flows' signatures, prefect.yaml and docs/flows.md."""

from __future__ import annotations

from typing import get_args

import pytest
import yaml
from conftest import ROOT
from prefect.exceptions import ParameterTypeError

from webmend.flows import build_refined_pool as module
from webmend.flows import settings
from webmend.flows import train as train_module
from webmend.llm.settings import GenerationSettings
from webmend.training.rl import RL_PRESETS

FLOW = module.build_refined_pool
TRAIN = train_module.train


def deployment_parameters(entrypoint: str = ":build_refined_pool") -> dict[str, dict]:
    spec = yaml.safe_load((ROOT / "prefect.yaml").read_text())
    return {d["name"]: d["parameters"] for d in spec["deployments"] if d["entrypoint"].endswith(entrypoint)}


def test_the_deployments_parameters_validate_into_stage_settings():
    found = deployment_parameters()
    assert set(found) == {"default", "nightly"}
    default = FLOW.validate_parameters(found["default"])
    assert default["corpus"].items == "data/samples/items.jsonl" and default["evaluation"].batch_size == 4
    assert default["repair"] == settings.RepairSettings() and default["export"] == settings.ExportSettings()
    assert default["train"] is default["prompts"] is None  # left out: those stages do not run
    assert FLOW.validate_parameters(found["nightly"])["evaluation"].incremental is True
    tiny = TRAIN.validate_parameters(deployment_parameters(":train")["tiny"])
    assert tiny["sft"] == settings.SftSettings(overrides={"max_steps": 10})
    assert tiny["evaluation"].max_new_tokens == 256 and tiny["rl"] is None
    assert set(get_args(settings.Preset)) == set(RL_PRESETS)  # one closed list of model scales for SFT and RL


@pytest.mark.parametrize("params", [
    {"corpus": {"page": ["x"]}},                      # a misspelt key
    {"repair": {"rounds": 0}},                        # out of range
    {"repair": {"bands": ["Top"]}},                   # not a band
    {"prompts": {"files": ["p.jsonl"]}},              # prompts need a model
    {"export": {"routes": ["all"]}},
    {"train": {"preset": "70b"}},
])
def test_bad_settings_are_refused_before_a_run(params):
    with pytest.raises(ParameterTypeError):
        FLOW.validate_parameters(params)
    with pytest.raises(ParameterTypeError):
        TRAIN.validate_parameters({"manifest": "m", "rl": {"contracts": ["c.json"]}})  # RL needs its tasks


def test_the_direct_command_builds_the_same_settings(monkeypatch, capsys):
    seen = {}
    monkeypatch.setattr(module, "build_refined_pool", lambda **kw: seen.update(kw) or {})
    module.main(["pages", "--responses", "a.jsonl", "--responses", "b.jsonl", "--items", "i.jsonl",
                 "--batch-size", "2", "--n-workers", "1", "--prompts", "p.jsonl", "--model", "openai/m",
                 "--temperatures", "0.2", "0.8", "--repair", "--repair-rounds", "3", "--repair-bands", "Low", "Mid",
                 "--export", "--export-routes", "refined", "--train", "--train-set", "max_steps=4", "--max-tokens", "9"])
    assert seen["corpus"] == settings.CorpusSettings(pages=["pages"], responses=["a.jsonl", "b.jsonl"], items="i.jsonl")
    assert (seen["evaluation"].batch_size, seen["cluster"].n_workers) == (2, 1)
    assert seen["prompts"] == settings.PromptSettings(files=["p.jsonl"], model="openai/m", temperatures=[0.2, 0.8])
    assert seen["repair"] == settings.RepairSettings(rounds=3, bands=["Low", "Mid"])
    assert seen["export"] == settings.ExportSettings(routes=["refined"])
    assert seen["train"] == settings.SftSettings(overrides={"max_steps": 4})
    assert seen["generation"] == GenerationSettings(max_tokens=9)
    seen.clear()
    module.main(["--responses", "a.jsonl"])
    assert seen["repair"] is seen["export"] is seen["train"] is seen["prompts"] is None
    with pytest.raises(SystemExit):  # a bad value is the parser's error, not a traceback
        module.main(["--prompts", "p.jsonl"])
    assert "model" in capsys.readouterr().err


def test_the_train_command_builds_its_settings(monkeypatch):
    seen = {}
    monkeypatch.setattr(train_module, "train", lambda **kw: seen.update(kw) or {})
    train_module.main(["--manifest", "m", "--set", "max_steps=3", "--threads", "1", "--eval-items", "i.jsonl",
                       "--rl-tasks", "t.jsonl", "--rl-set", "n_gen=2", "--rl-rollout", "backend=openai",
                       "--rl-dask-workers", "1"])
    assert seen["sft"] == settings.SftSettings(overrides={"max_steps": 3}, threads=1)
    assert seen["evaluation"] == settings.CheckpointEvalSettings(items="i.jsonl")
    assert seen["rl"] == settings.RLSettings(tasks="t.jsonl", overrides={"n_gen": 2}, rollouts={"backend": "openai"},
                                             dask_workers=1)
    train_module.main(["--manifest", "m"])
    assert seen["evaluation"] is seen["rl"] is None


def test_every_setting_is_documented():
    doc = (ROOT / "docs" / "flows.md").read_text()
    groups = {"corpus": settings.CorpusSettings, "evaluation": settings.EvaluationSettings,
              "cluster": settings.ClusterSettings, "prompts": settings.PromptSettings,
              "repair": settings.RepairSettings, "export": settings.ExportSettings, "train": settings.SftSettings}
    assert set(groups) | {"generation", "data_root", "replace"} == set(FLOW.parameters.properties)
    train_groups = {"sft": settings.SftSettings, "evaluation": settings.CheckpointEvalSettings, "rl": settings.RLSettings}
    assert set(train_groups) | {"manifest", "eval_config"} == set(TRAIN.parameters.properties)
    missing = [f"{g}.{name}" for table in (groups, train_groups) for g, model in table.items()
               for name in model.model_fields if f"`{g}.{name}`" not in doc]
    assert missing == []
