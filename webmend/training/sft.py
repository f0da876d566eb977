"""SFT from an export manifest: verify it, render the LlamaFactory config, then run it here, print
it, or write a cluster launch script (docs/training.md). Pure core: no Prefect, no torch.

The run folder is named from the manifest version, route, preset and config hash, so the same
request lands in the same folder:

    RUN/train.yaml    the LlamaFactory config that runs (or ran)
    RUN/run.json      TrainRun: manifest, config hash, code version, status, final metrics
    RUN/train.log     LlamaFactory's output (local runs)
    RUN/launch.sh     torchrun over nodes x GPUs (script mode)
    RUN/tiny-model/   the tiny random model, when the tiny preset built one
    RUN/checkpoint/   LlamaFactory's output_dir: the trained model, trainer_log.jsonl, loss plot
"""

from __future__ import annotations

import hashlib
import json
import logging
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from webmend.export.manifest import code_version, verify_manifest
from webmend.schemas.hashing import sha256_hex
from webmend.schemas.training import ManifestRef, TrainMetrics, TrainRun
from webmend.training import env as train_env
from webmend.training.presets import PAPER_GPUS, render_config

log = logging.getLogger(__name__)
CHECKPOINT_DIR = "checkpoint"
TINY_DIR = "tiny-model"


class ManifestRejected(ValueError):
    """The manifest failed verification or cannot feed this run."""


@dataclass
class SftPlan:
    run_dir: Path
    config: dict
    record: TrainRun
    manifest_dir: Path
    train_files: list[Path] = field(default_factory=list)

    @property
    def yaml_path(self) -> Path:
        return self.run_dir / "train.yaml"


def read_verified_manifest(path: str | Path) -> tuple[Path, dict, str]:
    """(version folder, manifest, its sha256) after `webmend manifest verify`'s checks."""
    path = Path(path)
    manifest_file = path / "manifest.json" if path.is_dir() else path
    if not manifest_file.is_file():
        raise ManifestRejected(f"{manifest_file}: no manifest (a local export version folder or its manifest.json)")
    problems = verify_manifest(str(manifest_file))
    if problems:
        raise ManifestRejected("manifest verification failed: " + "; ".join(problems))
    raw = manifest_file.read_bytes()
    return manifest_file.parent.resolve(), json.loads(raw), hashlib.sha256(raw).hexdigest()


def pick_dataset(manifest: dict, route: str, fmt: str) -> tuple[str, dict]:
    for name, ds in sorted(manifest["datasets"].items()):
        if ds["route"] == route and ds["format"] == fmt:
            if ds["rows"] == 0:
                raise ManifestRejected(f"dataset {name} ({route}/{fmt}) has no rows: nothing to train on")
            return name, ds
    known = sorted(f"{d['route']}/{d['format']}" for d in manifest["datasets"].values())
    raise ManifestRejected(f"the manifest has no {route}/{fmt} dataset (it has {', '.join(known)})")


def parse_overrides(pairs: list[str]) -> dict:
    """`key=value` pairs; values read as YAML scalars (`max_steps=4`, `bf16=false`)."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set {pair!r}: expected KEY=VALUE")
        out[key.strip()] = yaml.safe_load(value) if value else None
    return out


def config_hash(config: dict) -> str:
    return sha256_hex(json.dumps(config, sort_keys=True, default=str))[:12]


def plan_sft(manifest: str | Path, *, route: str = "refined", preset: str = "tiny", model: str | None = None,
             out: str | Path | None = None, overrides: dict | None = None, fmt: str = "sharegpt",
             launch: str = "local", runs_root: Path = Path("runs/train")) -> SftPlan:
    manifest_dir, doc, manifest_sha = read_verified_manifest(manifest)
    dataset, ds = pick_dataset(doc, route, fmt)
    tiny = preset == "tiny" and not model
    # The hash covers the request, not the run folder, so the folder can be named from it.
    request = render_config(preset, model=model or "<tiny>", dataset_dir=str(manifest_dir), dataset=dataset,
                            output_dir="<run>", system_prompt=doc["system_prompt"], overrides=overrides)
    run_id = f"sft-{doc['export_version']}-{route}-{preset}-{config_hash(request)}"
    run_dir = Path(out) if out else runs_root / run_id
    run_dir = run_dir.resolve()
    model_path = str(run_dir / TINY_DIR) if tiny else model
    config = render_config(preset, model=model_path, dataset_dir=str(manifest_dir), dataset=dataset,
                           output_dir=str(run_dir / CHECKPOINT_DIR), system_prompt=doc["system_prompt"],
                           overrides=overrides)
    ref = ManifestRef(path=str(manifest_dir / "manifest.json"), sha256=manifest_sha,
                      export_version=doc["export_version"], dataset=dataset, route=route, format=fmt,
                      rows=ds["rows"], system_prompt=doc["system_prompt"])
    record = TrainRun(run_id=run_id, preset=preset, model=str(config["model_name_or_path"]), manifest=ref,
                      config_sha256="", code_version=code_version(), launch=launch, status="planned",
                      checkpoint=CHECKPOINT_DIR)
    files = [manifest_dir / f for f in ds["files"]]
    return SftPlan(run_dir=run_dir, config=config, record=record, manifest_dir=manifest_dir, train_files=files)


def write_plan(plan: SftPlan) -> None:
    plan.run_dir.mkdir(parents=True, exist_ok=True)
    text = yaml.safe_dump(plan.config, sort_keys=True, allow_unicode=True, width=120)
    plan.yaml_path.write_text(text)
    plan.record.config_sha256 = sha256_hex(text)
    save_record(plan)


def save_record(plan: SftPlan) -> None:
    tmp = plan.run_dir / "run.json.tmp"
    tmp.write_text(plan.record.model_dump_json(indent=2) + "\n")
    tmp.replace(plan.run_dir / "run.json")


def build_tiny_model(plan: SftPlan, seed: int = 0) -> dict:
    """The tiny preset's random model and tokenizer, trained on the dataset's own text."""
    out = plan.run_dir / TINY_DIR
    proc = train_env.run_trainenv_module("tiny", ["--data", *map(str, plan.train_files), "--out", str(out),
                                                  "--seed", str(seed)], timeout=600)
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    plan.record.tiny_model = info
    return info


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def run_local(plan: SftPlan, echo=None, threads: int | None = None) -> int:
    """`llamafactory-cli train RUN/train.yaml` as a child; its output streamed to `echo` and kept."""
    cli = train_env.train_bin("llamafactory-cli")
    plan.record.status, plan.record.started_at = "running", now()
    save_record(plan)
    with open(plan.run_dir / "train.log", "w") as logf:
        proc = subprocess.Popen([str(cli), "train", str(plan.yaml_path)], cwd=plan.run_dir,
                                env=train_env.child_env(threads), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, bufsize=1)
        for line in proc.stdout:
            logf.write(line)
            if echo:
                echo(line)
        rc = proc.wait()
    plan.record.exit_code, plan.record.finished_at = rc, now()
    plan.record.metrics = read_metrics(plan.run_dir / CHECKPOINT_DIR)
    plan.record.status = "succeeded" if rc == 0 and plan.record.metrics.steps else "failed"
    save_record(plan)
    return 0 if plan.record.status == "succeeded" else 1


def read_metrics(checkpoint: Path) -> TrainMetrics:
    """Final metrics from LlamaFactory's all_results.json and trainer_log.jsonl (absent after a crash)."""
    results = _json_or_empty(checkpoint / "all_results.json")
    history = []
    log_file = checkpoint / "trainer_log.jsonl"
    if log_file.exists():
        for line in log_file.read_text().splitlines():
            row = json.loads(line) if line.strip() else {}
            if row.get("loss") is not None:
                history.append((int(row["current_steps"]), float(row["loss"])))
    steps = _json_or_empty(checkpoint / "trainer_state.json").get("global_step")
    return TrainMetrics(train_loss=results.get("train_loss"), final_loss=history[-1][1] if history else None,
                        steps=steps if steps is not None else (history[-1][0] if history else None),
                        epoch=results.get("epoch"), train_runtime_s=results.get("train_runtime"),
                        loss_history=history)


def _json_or_empty(path: Path) -> dict:
    return json.loads(path.read_text()) if path.exists() else {}


def write_launch_script(plan: SftPlan, nodes: int | None = None, gpus: int | None = None) -> Path:
    """A bash script that runs this config with torchrun over NODES x GPUS; run it on every node with
    NODE_RANK and MASTER_ADDR set (the first node's address). It uses the training environment
    named by WEBMEND_TRAIN_ENV on the cluster, else the one this script was written next to."""
    default_nodes, default_gpus = PAPER_GPUS.get(plan.record.preset, (1, 1))
    nodes, gpus = nodes or default_nodes, gpus or default_gpus
    venv = shlex.quote(str(train_env.train_env()))
    text = f"""#!/usr/bin/env bash
# webmend SFT run {plan.record.run_id}: {nodes} node(s) x {gpus} GPU(s), config train.yaml beside this file.
# On every node: NODE_RANK=<0..{nodes - 1}> MASTER_ADDR=<node 0's address> bash launch.sh
set -euo pipefail
cd "$(dirname "$0")"
VENV="${{WEBMEND_TRAIN_ENV:-{venv}}}"
LAUNCHER="$("$VENV/bin/python" -c 'import llamafactory.launcher as l; print(l.__file__)')"
exec "$VENV/bin/torchrun" --nnodes {nodes} --nproc_per_node {gpus} \\
  --node_rank "${{NODE_RANK:-0}}" --master_addr "${{MASTER_ADDR:-127.0.0.1}}" --master_port "${{MASTER_PORT:-29500}}" \\
  "$LAUNCHER" train.yaml
"""
    path = plan.run_dir / "launch.sh"
    path.write_text(text)
    path.chmod(0o755)
    return path


def echo_stdout(line: str) -> None:
    sys.stdout.write(line)
    sys.stdout.flush()


def check_config(plan: SftPlan) -> list[str]:
    """Problems LlamaFactory's own parser finds in train.yaml (run in the training environment)."""
    cmd = [str(train_env.train_bin("python")), "-m", "webmend.training.trainenv.check_config", str(plan.yaml_path)]
    proc = subprocess.run(cmd, env=train_env.child_env(), capture_output=True, text=True, timeout=300)
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    if not lines:
        return [f"the config check did not run (exit {proc.returncode}): {proc.stderr.strip()[-1000:]}"]
    return [r["error"] for r in lines if not r["ok"]]
