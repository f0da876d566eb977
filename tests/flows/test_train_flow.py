"""The train flow on a real Prefect server: SFT on an exported manifest, the checkpoint's
evaluation and one RL update, each task with its artifacts; build-refined-pool refuses to train
without an export."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import FIXTURES, ROOT

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "training"))
from training_fixtures import exported_corpus, training_env  # noqa: E402,F401  (fixtures)

PREFECT = str(Path(sys.executable).parent / "prefect")


def run(cmd: list[str], env: dict, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


def test_train_flow_runs_sft_eval_and_rl_with_artifacts(prefect_api, training_env, exported_corpus, tmp_path):  # noqa: F811
    _, env = prefect_api
    tasks = FIXTURES / "training"
    done = run([sys.executable, "-m", "webmend.flows.train", "--manifest", str(exported_corpus.parent),
                "--set", "max_steps=3", "--out", str(tmp_path / "run"), "--eval-items", str(tasks / "items.jsonl"),
                "--eval-max-new-tokens", "16", "--rl-tasks", str(tasks / "items.jsonl"), "--rl-updates", "1",
                "--rl-dask-workers", "1",
                "--rl-set", "n_gen=2", "--rl-set", "roles=[generator]", "--rl-set", "max_new_tokens=16",
                "--threads", "1"], env)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout[done.stdout.index("{"):])
    assert result["sft"]["steps"] == 3 and result["sft"]["run_dir"] == str(tmp_path / "run")
    assert "| 0:refined/tiny | all | 2 |" in result["eval"]["table"]
    (update,) = result["rl"]["updates"]
    assert update["update"] == 1 and "generator_reward" in update and Path(result["rl"]["plot"]).exists()
    assert (tmp_path / "run" / "rl" / "checkpoint" / "config.json").exists()
    assert json.loads((tmp_path / "run" / "rl" / "rl_run.json").read_text())["rewards_on"] == "dask"
    for key, expected in (("train-sft", "loss"), ("train-eval", "mean_score"), ("train-rl", "generator_reward"),
                          ("train-sft-summary", "data:image/png;base64,"), ("train-rl-summary", "data:image/png;base64,")):
        shown = run([PREFECT, "artifact", "inspect", key], env, timeout=120)
        assert shown.returncode == 0 and expected in shown.stdout, (key, shown.stdout[-500:])


def test_build_refined_pool_trains_only_on_its_export(prefect_api, tmp_path):
    _, env = prefect_api
    done = run([sys.executable, "-m", "webmend.flows.build_refined_pool", "--data-root", str(tmp_path / "d"),
                "--train"], env, timeout=300)
    assert done.returncode != 0 and "train needs export settings as well" in done.stderr
