"""The RL policy, seen from the pipeline: a `trainenv.policy_worker` child in the training
environment, driven over JSON lines (sample, update, digest, save). One interface for the loop;
the worker keeps the model in memory between updates."""

from __future__ import annotations

import json
import logging
import select
import subprocess

from webmend.training import env as train_env

log = logging.getLogger(__name__)


class PolicyError(RuntimeError):
    pass


class PolicyWorker:
    def __init__(self, timeout_s: float = 1800.0, threads: int | None = None):
        cmd = [str(train_env.train_bin("python")), "-m", "webmend.training.trainenv.policy_worker"]
        self.timeout_s = timeout_s
        self.proc = subprocess.Popen(cmd, env=train_env.child_env(threads), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=None, text=True, bufsize=1)

    def call(self, op: str, **payload) -> dict:
        if self.proc.poll() is not None:
            raise PolicyError(f"the policy worker exited ({self.proc.returncode})")
        self.proc.stdin.write(json.dumps({"op": op, **payload}) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout_s)
        if not ready:
            self.close(kill=True)
            raise PolicyError(f"{op}: no answer from the policy worker in {self.timeout_s:.0f} s")
        line = self.proc.stdout.readline()
        if not line:
            raise PolicyError(f"{op}: the policy worker exited ({self.proc.wait()})")
        answer = json.loads(line)
        if "error" in answer:
            raise PolicyError(f"{op}: {answer['error']}")
        return answer

    def load(self, model: str, **opts) -> dict:
        return self.call("load", model=model, **opts)

    def sample(self, requests: list[dict], seed: int | None = None) -> list[dict]:
        return self.call("sample", requests=requests, seed=seed)["completions"]

    def tokenize(self, rows: list[dict]) -> list[dict]:
        return self.call("tokenize", rows=rows)["tokens"]

    def update(self, samples: list[dict], epochs: int = 1) -> list[dict]:
        return self.call("update", samples=samples, epochs=epochs)["stats"]

    def digest(self) -> dict:
        return self.call("digest")

    def save(self, path: str, optimizer: bool = False) -> dict:
        return self.call("save", dir=path, optimizer=optimizer)

    def close(self, kill: bool = False) -> None:
        if self.proc.poll() is None:
            if kill:
                self.proc.kill()
            else:
                try:
                    self.proc.stdin.write(json.dumps({"op": "exit"}) + "\n")
                    self.proc.stdin.close()
                    self.proc.wait(timeout=30)
                except (OSError, subprocess.TimeoutExpired):
                    self.proc.kill()
        self.proc.wait()

    def __enter__(self) -> "PolicyWorker":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
