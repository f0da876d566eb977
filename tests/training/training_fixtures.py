"""Fixtures of the training tests: the SFT corpus comes from the export tests' data root (real evaluator and repair
runs, built once per session), so its module is importable here too."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "export"))

from webmend.training.env import train_env  # noqa: E402  (after the path above)

FIX = Path(__file__).resolve().parents[2] / "data" / "fixtures" / "training"


@pytest.fixture(scope="session")
def training_env() -> Path:
    """The training environment `make test` installs (`make train-env`); absent, the test fails."""
    python = train_env() / "bin" / "python"
    assert python.exists(), f"{python} missing: run `make train-env` (the training tests need it)"
    return train_env()


@pytest.fixture(scope="session")
def exported_corpus(tmp_path_factory) -> Path:
    """An export version folder (raw and refined routes) of the small traced data root."""
    from export_fixtures import traced_root

    from webmend.cli import main

    data, _ = traced_root(tmp_path_factory)
    out = tmp_path_factory.mktemp("train-corpus")
    assert main(["export", "--data-root", str(data), "--out", str(out), "--routes", "raw,refined"]) == 0
    latest = (out / "LATEST.json").read_text()
    import json

    return out / json.loads(latest)["version"]


@pytest.fixture(scope="session")
def taught(training_env, tmp_path_factory) -> Path:
    """evaluate -> export (raw route) -> SFT of the tiny preset until it writes the two small pages.
    Returns the folder holding corpus/ (the export) and sft/ (the run); shared by the RL tests."""
    import json

    from webmend.cli import main

    tmp = tmp_path_factory.mktemp("taught")
    items = {json.loads(line)["id"]: json.loads(line) for line in (FIX / "items.jsonl").read_text().splitlines()}
    counter, greeting = (FIX / "counter.html").read_text().strip(), (FIX / "greeting.html").read_text().strip()
    answers = [("counter", counter), ("counter#1", counter.replace("<h1>Counter</h1>", "<h1>Click counter</h1>")),
               ("greeting", greeting), ("greeting#1", greeting.replace("Welcome to this page.", "Nice to see you."))]
    responses = tmp / "responses.jsonl"
    responses.write_text("".join(json.dumps({"id": i, "prompt": items[i.split("#")[0]]["prompt"], "response": html}) + "\n"
                                 for i, html in answers))
    assert main(["evaluate", "--responses", str(responses), "--tests", str(FIX / "items.jsonl"), "--out", str(tmp / "eval"),
                 "--data-root", str(tmp / "root")]) == 0
    assert main(["export", "--data-root", str(tmp / "root"), "--out", str(tmp / "corpus"), "--routes", "raw"]) == 0
    version = json.loads((tmp / "corpus" / "LATEST.json").read_text())["version"]
    assert main(["train", "sft", "--manifest", str(tmp / "corpus" / version), "--route", "raw", "--preset", "tiny",
                 "--out", str(tmp / "sft"), "--threads", "1", "--set", "max_steps=120", "--set", "packing=false",
                 "--set", "learning_rate=3.0e-3", "--set", "warmup_ratio=0.0"]) == 0
    return tmp


class Served:
    """A `trainenv.serve` process: an OpenAI-compatible server of one checkpoint, on a free port."""

    def __init__(self, model: Path, log: Path):
        import json
        import subprocess

        from webmend.training.env import child_env

        self.log = log
        self.proc = subprocess.Popen([str(train_env() / "bin" / "python"), "-m", "webmend.training.trainenv.serve",
                                      "--model", str(model), "--name", "policy"], env=child_env(threads=1),
                                     stdout=subprocess.PIPE, stderr=open(log, "w"), text=True)
        line = self.proc.stdout.readline()  # printed once it listens
        assert line, f"the server exited: {log.read_text()[-2000:]}"
        self.url = json.loads(line)["url"]

    def models(self) -> dict:
        import json
        import urllib.request

        with urllib.request.urlopen(self.url + "/models", timeout=30) as resp:
            return json.loads(resp.read())["data"][0]

    def chat_requests(self) -> int:
        return self.log.read_text().count("POST /v1/chat/completions")

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


@pytest.fixture
def served_policy(taught, tmp_path):
    """The taught SFT checkpoint behind a rollout server."""
    server = Served(taught / "sft" / "checkpoint", tmp_path / "serve.log")
    yield server
    server.close()
