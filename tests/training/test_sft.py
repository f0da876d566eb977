"""`webmend train sft` for real: a tiny model built at test time trains with llamafactory-cli on a
manifest exported from real evaluator and repair runs, then loads and generates."""

from __future__ import annotations

import hashlib
import json
import math
import shutil
import subprocess

import jsonschema
import pytest
import yaml
from training_fixtures import exported_corpus, training_env  # noqa: F401  (fixtures)

from webmend.cli import main
from webmend.schemas.export import HERE as SCHEMA_DIR
from webmend.training.env import child_env

SCHEMA = json.loads((SCHEMA_DIR / "train_run.schema.json").read_text())


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_tiny_sft_trains_on_an_exported_manifest_and_the_checkpoint_generates(training_env, exported_corpus, tmp_path):
    run = tmp_path / "run"
    assert main(["train", "sft", "--manifest", str(exported_corpus), "--route", "refined", "--preset", "tiny",
                 "--out", str(run), "--set", "max_steps=4", "--threads", "1"]) == 0
    record = json.loads((run / "run.json").read_text())
    jsonschema.validate(record, SCHEMA)
    manifest = json.loads((exported_corpus / "manifest.json").read_text())
    ref = record["manifest"]
    assert ref["sha256"] == sha256(exported_corpus / "manifest.json")
    assert (ref["export_version"], ref["dataset"]) == (exported_corpus.name, "webmend_refined_sharegpt")
    assert ref["rows"] == manifest["datasets"]["webmend_refined_sharegpt"]["rows"] > 0
    assert ref["system_prompt"] == manifest["system_prompt"]
    assert record["config_sha256"] == sha256(run / "train.yaml")
    config = yaml.safe_load((run / "train.yaml").read_text())
    assert config["default_system"] == manifest["system_prompt"] and config["dataset_dir"] == str(exported_corpus)
    assert record["tiny_model"]["parameters"] > 100_000 and record["model"] == str(run / "tiny-model")

    metrics = record["metrics"]
    assert record["status"] == "succeeded" and record["exit_code"] == 0 and metrics["steps"] == 4
    losses = [loss for _, loss in metrics["loss_history"]]
    assert [s for s, _ in metrics["loss_history"]] == [1, 2, 3, 4] and all(math.isfinite(v) and v > 0 for v in losses)
    assert losses[-1] < losses[0], f"the loss did not go down: {losses}"
    assert "train_loss" in (run / "train.log").read_text()
    assert (run / "checkpoint" / "training_loss.png").exists()

    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text(json.dumps({"id": "p1", "prompt": "A page with a counter button."}) + "\n")
    answers = tmp_path / "answers.jsonl"
    subprocess.run([str(training_env / "bin" / "python"), "-m", "webmend.training.trainenv.generate",
                    "--model", str(run / "checkpoint"), "--prompts", str(prompts), "--out", str(answers),
                    "--system", ref["system_prompt"], "--max-new-tokens", "16"],
                   env=child_env(threads=1), check=True, capture_output=True, timeout=300)
    answer = json.loads(answers.read_text())
    assert answer["id"] == "p1" and answer["new_tokens"] > 0 and answer["response"]


def test_scale_presets_render_yaml_that_llamafactorys_parser_accepts(training_env, exported_corpus, tmp_path, capsys):
    """print and script both parse train.yaml with LlamaFactory before they hand it over."""
    assert main(["train", "sft", "--manifest", str(exported_corpus), "--preset", "4b", "--launch", "print",
                 "--out", str(tmp_path / "4b")]) == 0
    assert capsys.readouterr().out == (tmp_path / "4b" / "train.yaml").read_text()
    for preset in ("9b", "27b"):
        assert main(["train", "sft", "--manifest", str(exported_corpus), "--preset", preset, "--launch", "script",
                     "--out", str(tmp_path / preset)]) == 0
    script = (tmp_path / "27b" / "launch.sh").read_text()
    assert "--nnodes 16 --nproc_per_node 8" in script and '"$LAUNCHER" train.yaml' in script
    subprocess.run(["bash", "-n", str(tmp_path / "27b" / "launch.sh")], check=True)
    out = subprocess.run([str(training_env / "bin" / "python"), "-m", "webmend.training.trainenv.check_config",
                          *(str(tmp_path / p / "train.yaml") for p in ("4b", "9b", "27b"))],
                         env=child_env(), capture_output=True, text=True, timeout=300)
    parsed = {r["parsed"]["model_name_or_path"]: r["parsed"] for r in map(json.loads, out.stdout.splitlines())}
    assert out.returncode == 0, out.stdout
    assert {m: (p["learning_rate"], p["deepspeed_zero_stage"]) for m, p in parsed.items()} == {
        "Qwen/Qwen3.5-4B": (1e-5, 2), "Qwen/Qwen3.5-9B": (8e-6, 2), "Qwen/Qwen3.5-27B": (5e-6, 3)}
    for p in parsed.values():
        assert (p["template"], p["packing"], p["lr_scheduler_type"], p["warmup_ratio"], p["num_train_epochs"]) == (
            "qwen3_5_nothink", True, "cosine", 0.05, 3.0)
        assert p["stage"] == "sft" and p["finetuning_type"] == "full" and p["bf16"] is True


def test_a_key_llamafactory_does_not_know_is_refused_before_launch(training_env, exported_corpus, tmp_path, capsys):
    assert main(["train", "sft", "--manifest", str(exported_corpus), "--preset", "4b", "--launch", "script",
                 "--out", str(tmp_path / "r"), "--set", "max_stepz=3"]) == 2
    assert "max_stepz" in capsys.readouterr().err


def test_a_manifest_that_fails_verification_trains_nothing(exported_corpus, tmp_path, capsys):
    copy = tmp_path / "corpus"
    shutil.copytree(exported_corpus, copy)
    part = copy / "refined" / "sharegpt" / "part-00000.parquet"
    part.write_bytes(part.read_bytes() + b"x")
    assert main(["train", "sft", "--manifest", str(copy), "--out", str(tmp_path / "run")]) == 1
    assert "refined/sharegpt/part-00000.parquet" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
    assert main(["train", "sft", "--manifest", str(exported_corpus), "--route", "filtered",
                 "--out", str(tmp_path / "run")]) == 1
    assert "no filtered/sharegpt dataset" in capsys.readouterr().err


def test_run_folders_are_named_from_the_request(exported_corpus, tmp_path, monkeypatch):
    from webmend.training.sft import plan_sft

    a = plan_sft(exported_corpus, preset="9b", runs_root=tmp_path)
    assert a.run_dir == (tmp_path / a.record.run_id).resolve()
    assert plan_sft(exported_corpus, preset="9b", runs_root=tmp_path).record.run_id == a.record.run_id
    b = plan_sft(exported_corpus, preset="9b", overrides={"max_steps": 2}, runs_root=tmp_path)
    assert b.record.run_id != a.record.run_id and a.record.run_id.startswith(f"sft-{exported_corpus.name}-refined-9b-")


def test_without_the_training_environment_the_error_says_how_to_make_it(exported_corpus, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("WEBMEND_TRAIN_ENV", str(tmp_path / "nowhere"))
    assert main(["train", "sft", "--manifest", str(exported_corpus), "--out", str(tmp_path / "run")]) == 2
    assert "make train-env" in capsys.readouterr().err
