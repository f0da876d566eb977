"""Where the training environment is, and how its programs are started.

Training runs in its own virtual environment (`.venv-train`, made by `make train-env` from
requirements/train.txt): llamafactory's pins cannot share the pipeline's interpreter
(docs/training.md). `WEBMEND_TRAIN_ENV` names another one (a cluster image's, say)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import webmend

PACKAGE_PARENT = Path(webmend.__file__).resolve().parent.parent
DEFAULT_ENV = PACKAGE_PARENT / ".venv-train"

# Offline by default: a run must never reach a model hub behind the user's back; a GPU machine
# with hub access sets WEBMEND_TRAIN_ONLINE=1.
OFFLINE_VARS = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                "HF_HUB_DISABLE_TELEMETRY": "1", "DO_NOT_TRACK": "1"}


class TrainEnvMissing(RuntimeError):
    pass


def train_env() -> Path:
    return Path(os.environ.get("WEBMEND_TRAIN_ENV") or DEFAULT_ENV)


def train_bin(name: str) -> Path:
    path = train_env() / "bin" / name
    if not path.exists():
        raise TrainEnvMissing(f"{path} not found: create the training environment with `make train-env` "
                              "(or point WEBMEND_TRAIN_ENV at one; docs/training.md)")
    return path


def child_env(threads: int | None = None) -> dict[str, str]:
    """The environment of a training child: ours, offline, with this package importable."""
    env = dict(os.environ)
    if os.environ.get("WEBMEND_TRAIN_ONLINE") != "1":
        env.update(OFFLINE_VARS)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PACKAGE_PARENT), env.get("PYTHONPATH", "")) if p)
    env.pop("VIRTUAL_ENV", None)
    if threads:
        env["OMP_NUM_THREADS"] = str(threads)
    return env


def run_trainenv_module(module: str, args: list[str], timeout: float | None = None) -> subprocess.CompletedProcess:
    """Run `python -m webmend.training.trainenv.MODULE ARGS` in the training environment."""
    cmd = [str(train_bin("python")), "-m", f"webmend.training.trainenv.{module}", *args]
    proc = subprocess.run(cmd, env=child_env(), capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"{module} failed (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}")
    return proc
