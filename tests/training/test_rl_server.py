"""RL whose samples come from an OpenAI-compatible server (`trainenv.serve`, the CPU stand-in for
vLLM or SGLang) through litellm: after every update the server is given the saved policy and
serves exactly the weights the trainer holds."""

from __future__ import annotations

import json

import jsonschema

from training_fixtures import FIX, served_policy, taught, training_env  # noqa: F401  (fixtures)

from webmend.cli import main
from webmend.schemas.export import HERE as SCHEMAS


def test_rollouts_from_a_server_whose_weights_follow_every_update(served_policy, taught, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-serve")  # the OpenAI client wants one; the server ignores it
    out = tmp_path / "rl"
    assert main(["train", "rl", "--tasks", str(FIX / "items.jsonl"), "--contracts", str(FIX / "contracts"),
                 "--init", str(taught / "sft"), "--preset", "tiny", "--updates", "2", "--set", "roles=[generator]",
                 "--set", "n_gen=3", "--set", "max_new_tokens=120", "--out", str(out), "--threads", "1",
                 "--rollouts", "openai", "--rollout-model", "openai/policy",
                 "--rollout-api-base", served_policy.url, "--rollout-concurrency", "2"]) == 0
    lines = [json.loads(line) for line in (out / "rl_log.jsonl").read_text().splitlines()]
    schema = json.loads((SCHEMAS / "rl_update.schema.json").read_text())
    for line in lines:
        jsonschema.validate(line, schema)
    # every sample was the server's: 2 tasks x 3 pages x 2 updates
    assert served_policy.chat_requests() == 12
    for line in lines:
        assert line["roles"]["generator"]["n"] == 6 and line["update_stats"][0]["tokens"] > 0
        assert line["sync"]["mode"] == "reload" and line["sync"]["served"] == f"serve/policy-{line['update']:04d}"
    assert any(line["params_after"] != line["params_before"] for line in lines)
    # the server ends serving the trainer's last weights, from the one folder kept
    model = served_policy.models()
    assert model["digest"] == lines[-1]["params_after"]
    assert model["root"] == str((out / "serve" / "policy-0002").resolve())
    assert sorted(p.name for p in (out / "serve").iterdir()) == ["policy-0002"]
    samples = [json.loads(s) for s in (out / "updates" / "0001" / "samples.jsonl").read_text().splitlines()]
    assert all(s["completion_tokens"] > 0 for s in samples)
    record = json.loads((out / "rl_run.json").read_text())
    jsonschema.validate(record, json.loads((SCHEMAS / "rl_run.schema.json").read_text()))
    assert record["rollouts"] == {"backend": "openai", "model": "openai/policy", "sync": "reload"}


def test_bad_rollout_settings_are_refused_before_any_model_loads(taught, tmp_path, capsys):  # noqa: F811
    base = ["train", "rl", "--tasks", str(FIX / "items.jsonl"), "--init", str(taught / "sft"), "--out", str(tmp_path)]
    assert main(base + ["--rollouts", "openai"]) == 2
    assert "needs --rollout-model" in capsys.readouterr().err
    assert main(base + ["--rollouts", "openai", "--rollout-model", "openai/policy"]) == 2
    assert "needs the server's API base" in capsys.readouterr().err
    assert not (tmp_path / "rl_log.jsonl").exists()
