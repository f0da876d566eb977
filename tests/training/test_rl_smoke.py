"""RL for real on a CPU: a tiny model taught by LlamaFactory SFT (on a corpus exported from real
evaluations) to write two small pages, then two GRPO updates whose rewards come from executing its
samples in the browser (the counter task's contract, the greeting task's test cases)."""

from __future__ import annotations

import json
import math
import subprocess

import jsonschema

from training_fixtures import FIX, taught, training_env  # noqa: F401  (fixtures)

from webmend.cli import main
from webmend.schemas.export import HERE as SCHEMAS
from webmend.training.env import child_env


def test_sft_then_two_rl_updates_with_browser_rewards(training_env, taught, tmp_path, capsys):  # noqa: F811
    sft = taught / "sft"
    assert json.loads((sft / "run.json").read_text())["metrics"]["final_loss"] < 1.0
    out = tmp_path / "rl"
    assert main(["train", "rl", "--tasks", str(FIX / "items.jsonl"), "--contracts", str(FIX / "contracts"),
                 "--init", str(sft), "--preset", "tiny", "--updates", "2", "--set", "n_gen=3", "--set", "n_crit=2",
                 "--set", "n_ref=2", "--set", "max_new_tokens=120", "--out", str(out), "--threads", "1",
                 "--dask-workers", "1"]) == 0
    lines = [json.loads(line) for line in (out / "rl_log.jsonl").read_text().splitlines()]
    assert [line["update"] for line in lines] == [1, 2]
    for line in lines:
        jsonschema.validate(line, json.loads((SCHEMAS / "rl_update.schema.json").read_text()))
    for line in lines:
        gen = line["roles"]["generator"]
        assert gen["n"] == 6 and all(0.0 <= r <= 1.0 for r in gen["rewards"])
        (stats,) = line["update_stats"]
        assert math.isfinite(stats["loss"]) and stats["tokens"] > 0 and stats["ratio_mean"] == 1.0
        assert set(line["advantages"]) >= {"gen:counter", "gen:greeting"}
        samples = [json.loads(s) for s in (out / "updates" / f"{line['update']:04d}" / "samples.jsonl").read_text().splitlines()]
        assert {s["source"] for s in samples if s["role"] == "generator"} == {"contract", "evaluator"}
    # the taught model writes pages whose browser rewards differ, so the policy moves
    assert any(a != 0.0 for line in lines for adv in line["advantages"].values() for a in adv)
    assert any(line["params_after"]["digest"] != line["params_before"]["digest"] for line in lines)
    assert lines[1]["params_before"] == lines[0]["params_after"]
    assert "mean_reward" in capsys.readouterr().out
    step = lines[0]["reward_step"]  # the first update's pages are new: executed, timed
    keys = {json.loads(s)["key"] for s in (out / "updates" / "0001" / "samples.jsonl").read_text().splitlines()}
    assert step["pages"] >= 1 and step["slowest_page"] in keys and 0 < step["slowest_share"] <= 1
    assert 0 < step["slowest_s"] <= step["wall_s"] + 1e-6
    record = json.loads((out / "rl_run.json").read_text())
    jsonschema.validate(record, json.loads((SCHEMAS / "rl_run.schema.json").read_text()))
    assert record["rewards_on"] == "dask" and record["updates"] == 2 and record["init_run"] == json.loads((sft / "run.json").read_text())["run_id"]

    prompts = tmp_path / "p.jsonl"
    prompts.write_text(json.dumps({"id": "counter", "prompt": "A counter page."}) + "\n")
    subprocess.run([str(training_env / "bin" / "python"), "-m", "webmend.training.trainenv.generate", "--model",
                    str(out / "checkpoint"), "--prompts", str(prompts), "--out", str(tmp_path / "a.jsonl"),
                    "--system", record["system_prompt"], "--max-new-tokens", "8"],
                   env=child_env(threads=1), check=True, capture_output=True, timeout=300)
    assert json.loads((tmp_path / "a.jsonl").read_text())["new_tokens"] > 0
    # and LlamaFactory trains on from it (the RL checkpoint is a plain transformers model folder)
    version = json.loads((taught / "corpus" / "LATEST.json").read_text())["version"]
    assert main(["train", "sft", "--manifest", str(taught / "corpus" / version), "--route", "raw", "--preset", "tiny",
                 "--model", str(out / "checkpoint"), "--out", str(tmp_path / "sft-again"), "--threads", "1",
                 "--set", "max_steps=1"]) == 0
