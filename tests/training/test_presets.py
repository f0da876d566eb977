"""The SFT presets carry HTMLCure's recipe (D.1) and take overrides; no training environment needed."""

from __future__ import annotations

import json

import pytest

from webmend.training.presets import PRESETS, render_config

RUN = {"dataset_dir": "/corpus/v-1", "dataset": "webmend_refined_sharegpt", "output_dir": "/run/checkpoint",
       "system_prompt": "SYSTEM"}


@pytest.mark.parametrize("preset, lr, model, zero", [
    ("4b", 1e-5, "Qwen/Qwen3.5-4B", "ds_z2.json"), ("9b", 8e-6, "Qwen/Qwen3.5-9B", "ds_z2.json"),
    ("27b", 5e-6, "Qwen/Qwen3.5-27B", "ds_z3.json")])
def test_scale_presets_follow_the_paper(preset, lr, model, zero):
    c = render_config(preset, model=None, **RUN)
    assert (c["stage"], c["finetuning_type"], c["packing"], c["cutoff_len"]) == ("sft", "full", True, 32768)
    assert (c["lr_scheduler_type"], c["warmup_ratio"], c["num_train_epochs"]) == ("cosine", 0.05, 3.0)
    assert c["learning_rate"] == lr and c["model_name_or_path"] == model and c["template"] == "qwen3_5_nothink"
    assert c["deepspeed"].endswith(zero)
    stage = json.loads(open(c["deepspeed"]).read())["zero_optimization"]["stage"]
    assert stage == (3 if preset == "27b" else 2)


def test_the_manifest_system_prompt_is_the_default_system():
    """A row without a system turn must not get the template's own default (qwen's "You are Qwen")."""
    for preset in PRESETS:
        assert render_config(preset, model="m", **RUN)["default_system"] == "SYSTEM"


def test_overrides_win_but_cannot_detach_the_run_from_its_manifest():
    c = render_config("9b", model="/models/mine", overrides={"learning_rate": 2e-6, "max_steps": 7}, **RUN)
    assert (c["learning_rate"], c["max_steps"], c["model_name_or_path"]) == (2e-6, 7, "/models/mine")
    with pytest.raises(ValueError, match="dataset_dir"):
        render_config("9b", model=None, overrides={"dataset_dir": "/elsewhere"}, **RUN)
    with pytest.raises(ValueError, match="unknown preset"):
        render_config("70b", model=None, **RUN)
    with pytest.raises(ValueError, match="pass --model"):
        render_config("tiny", model=None, **RUN)
