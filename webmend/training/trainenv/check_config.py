"""Parse SFT configs with LlamaFactory's own argument parser, as `llamafactory-cli train` would.

Prints one JSON line per YAML: `{"path", "ok", "error", "parsed"}`, where `parsed` holds the keys
that decide the run as LlamaFactory understood them. Where no GPU is visible, `use_cpu: true` is
added before parsing (and `gpu_checked` is false): transformers' argument checks refuse bf16
without a GPU, the one check that depends on the machine rather than on the config. Run as
`python -m webmend.training.trainenv.check_config A.yaml [B.yaml ...]`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def check(path: Path) -> dict:
    import torch
    from llamafactory.hparams.parser import _parse_train_args
    from omegaconf import OmegaConf

    # read_args does exactly this for a .yaml argv; _parse_train_args is get_train_args minus the
    # checks that need the model and dataset on disk (a hub id for a 27B model is not here).
    config = OmegaConf.to_container(OmegaConf.load(path.absolute()))
    gpu = torch.cuda.is_available()
    if not gpu:
        config["use_cpu"] = True
    try:
        model, data, training, finetuning, _ = _parse_train_args(config)
    except (ValueError, TypeError) as exc:
        return {"path": str(path), "ok": False, "error": f"{type(exc).__name__}: {exc}", "parsed": {},
                "gpu_checked": gpu}
    parsed = {"stage": finetuning.stage, "finetuning_type": finetuning.finetuning_type,
              "model_name_or_path": model.model_name_or_path, "template": data.template,
              "dataset": data.dataset, "dataset_dir": data.dataset_dir, "cutoff_len": data.cutoff_len,
              "packing": data.packing, "default_system": data.default_system,
              "learning_rate": training.learning_rate, "lr_scheduler_type": str(training.lr_scheduler_type.value),
              "warmup_ratio": training.warmup_ratio, "num_train_epochs": training.num_train_epochs,
              "bf16": training.bf16, "deepspeed": training.deepspeed,
              "deepspeed_zero_stage": (training.hf_deepspeed_config.config["zero_optimization"]["stage"]
                                       if training.deepspeed else None)}
    return {"path": str(path), "ok": True, "error": None, "parsed": parsed, "gpu_checked": gpu}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("configs", nargs="+", type=Path)
    args = ap.parse_args(argv)
    results = [check(p) for p in args.configs]
    for r in results:
        print(json.dumps(r, sort_keys=True))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
