"""SFT presets: HTMLCure's recipe (D.1) as LlamaFactory config keys, one per model scale.

Every preset is full-parameter SFT with packing, a 32,768-token cutoff, a cosine schedule with 5 %
warmup and 3 epochs; the learning rate depends on the scale. `tiny` is the same recipe shrunk for
a CPU (a random two-layer model, built on the spot when no model is given). Every key can be
overridden (`--set key=value`); the rendered YAML is what runs."""

from __future__ import annotations

from pathlib import Path

DEEPSPEED_DIR = Path(__file__).parent / "deepspeed"

RECIPE = {
    "stage": "sft", "do_train": True, "finetuning_type": "full",
    "packing": True, "cutoff_len": 32768,
    "lr_scheduler_type": "cosine", "warmup_ratio": 0.05, "num_train_epochs": 3.0,
    "per_device_train_batch_size": 1, "gradient_accumulation_steps": 4,
    "bf16": True, "flash_attn": "auto",
    "logging_steps": 10, "save_strategy": "epoch", "save_only_model": True,
    "plot_loss": True, "report_to": "none",
    "preprocessing_num_workers": 16, "dataloader_num_workers": 4,
    "overwrite_cache": True, "overwrite_output_dir": True, "seed": 42,
}

# LlamaFactory 0.9.5 has no `qwen3_5_text` template (the paper's name); `qwen3_5_nothink` formats
# the same ChatML turns without inserting thinking blocks, which fits one-turn HTML answers.
QWEN35 = {"template": "qwen3_5_nothink", "enable_thinking": False}

PRESETS: dict[str, dict] = {
    "4b": {**RECIPE, **QWEN35, "model_name_or_path": "Qwen/Qwen3.5-4B", "learning_rate": 1.0e-5,
           "deepspeed": str(DEEPSPEED_DIR / "ds_z2.json")},
    "9b": {**RECIPE, **QWEN35, "model_name_or_path": "Qwen/Qwen3.5-9B", "learning_rate": 8.0e-6,
           "deepspeed": str(DEEPSPEED_DIR / "ds_z2.json")},
    "27b": {**RECIPE, **QWEN35, "model_name_or_path": "Qwen/Qwen3.5-27B", "learning_rate": 5.0e-6,
            "gradient_accumulation_steps": 1, "deepspeed": str(DEEPSPEED_DIR / "ds_z3.json")},
    # The tiny model is ChatML through LlamaFactory's `qwen` template; its default system prompt
    # never applies because `default_system` is always set from the manifest (below).
    "tiny": {**RECIPE, "template": "qwen", "model_name_or_path": None, "learning_rate": 1.0e-3,
             "cutoff_len": 2048, "gradient_accumulation_steps": 1, "bf16": False, "flash_attn": "disabled",
             "logging_steps": 1, "save_strategy": "no", "preprocessing_num_workers": 1,
             "dataloader_num_workers": 0},
}

# How many GPUs the paper trained each scale on (D.1): the default of `--launch script`.
PAPER_GPUS = {"4b": (4, 8), "9b": (4, 8), "27b": (16, 8), "tiny": (1, 1)}  # (nodes, GPUs per node)

# Keys the plan sets itself: overriding them would detach the run from its manifest.
PLAN_KEYS = ("dataset_dir", "dataset", "output_dir", "default_system")


def render_config(preset: str, *, model: str | None, dataset_dir: str, dataset: str, output_dir: str,
                  system_prompt: str, overrides: dict | None = None) -> dict:
    """The LlamaFactory config for one run: the preset, the run's own keys, then the overrides.

    `default_system` is the manifest's system prompt, so a row without a system turn trains on the
    same one the export wrote (never the template's own default) and serving uses it too."""
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}: one of {', '.join(PRESETS)}")
    clash = sorted(set(overrides or {}) & set(PLAN_KEYS))
    if clash:
        raise ValueError(f"--set cannot change {', '.join(clash)}: they come from the manifest and --out")
    config = dict(PRESETS[preset])
    if model:
        config["model_name_or_path"] = model
    config.update(dataset_dir=dataset_dir, dataset=dataset, output_dir=output_dir, default_system=system_prompt)
    config.update(overrides or {})
    if not config.get("model_name_or_path"):
        raise ValueError(f"preset {preset} has no model: pass --model")
    return config
