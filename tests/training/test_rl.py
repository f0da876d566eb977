"""The RL loop's roles, groups and rewards with a scripted policy and real browser rewards: the
counter task has a contract (labels, so Critic and Refiner run), the greeting task only test cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webmend.config import EvalConfig
from webmend.contracts.command import items_with_contracts
from webmend.evaluate.inputs import load_items
from webmend.training.role_rewards import CRITIC_MIN_REWARD
from webmend.training.rl import RlConfig, pick_draft, Rollout, train_rl
from webmend.training.rl_prompts import CRITIC_INSTRUCTIONS, REFINER_INSTRUCTIONS, parse_verdicts

FIX = Path(__file__).resolve().parents[2] / "data" / "fixtures" / "training"
GOOD = {"counter": (FIX / "counter.html").read_text(), "greeting": (FIX / "greeting.html").read_text()}
BROKEN = {"counter": GOOD["counter"].replace("n++;", ""), "greeting": GOOD["greeting"].replace("Hello, visitor!", "Hi")}
RIGHT_CRITIQUE = 'Review: {"verdicts": {"R1": "satisfied", "R2": "violated", "R3": "satisfied"}, "fixes": ["count up"]}'


class ScriptedPolicy:
    """Answers by role: the generator a good and a broken page, the critic one right critique and
    one it cannot parse, the refiner the good page. Records what it is asked and the updates."""

    def __init__(self):
        self.requests, self.updates = [], []

    def sample(self, requests, seed=None):
        out = []
        for req in requests:
            self.requests.append(req)
            user = req["messages"][-1]["content"]
            task = req["key"].split("#", 1)[0]
            if user.startswith(CRITIC_INSTRUCTIONS):
                texts = [RIGHT_CRITIQUE, "looks fine to me"]
            elif user.startswith(REFINER_INSTRUCTIONS):
                texts = [GOOD[task]]
            else:
                texts = [GOOD[task], BROKEN[task]]
            for i in range(req["n"]):
                text = texts[i % len(texts)]
                out.append({"key": req["key"], "index": i, "text": text, "prompt_ids": [1, 2],
                            "completion_ids": [3] * (1 + len(text) % 7)})
        return out

    def update(self, samples, epochs=1):
        self.updates.append(samples)
        return [{"loss": 0.0}] * epochs

    def digest(self):
        return {"digest": f"after-{len(self.updates)}", "norm": 1.0}

    def save(self, path, optimizer=False):
        Path(path).mkdir(parents=True)
        (Path(path) / "saved.json").write_text(json.dumps({"updates": len(self.updates), "optimizer": optimizer}))


@pytest.fixture(scope="module")
def items():
    return items_with_contracts(load_items(FIX / "items.jsonl"), [str(FIX / "contracts")])


def test_two_updates_score_every_role_and_switch_the_critic_reward(items, tmp_path):
    cfg = RlConfig(updates=2, tasks_per_update=2, n_gen=2, n_crit=2, n_ref=1, critic_warmup=1, max_new_tokens=64)
    policy = ScriptedPolicy()
    lines = train_rl(list(items.values()), items, policy, EvalConfig(), cfg, tmp_path, system="SYS")
    assert [line["update"] for line in lines] == [1, 2]
    assert all(r["messages"][0] == {"role": "system", "content": "SYS"} for r in policy.requests)

    samples = [json.loads(s) for s in (tmp_path / "updates" / "0001" / "samples.jsonl").read_text().splitlines()]
    by_key = {s["key"]: s for s in samples}
    good, broken = by_key["counter#u1-g0"], by_key["counter#u1-g1"]
    assert (good["reward"], good["source"]) == (1.0, "contract") and broken["reward"] < 1.0
    assert by_key["greeting#u1-g0"]["source"] == "evaluator" and by_key["greeting#u1-g0"]["reward"] > by_key["greeting#u1-g1"]["reward"]
    # the critic judged the broken draft: its verdicts are its labels (R2 violated), so D = 1
    right, unparsed = by_key["counter#u1-c0"], by_key["counter#u1-c1"]
    assert right["draft"] == "counter#u1-g1" and right["verdicts"] == {"R1": 1, "R2": 0, "R3": 1}
    assert right["D"] == 1.0 and right["H"] == pytest.approx(1.0 - broken["reward"])
    assert right["reward"] == 1.0 and unparsed["reward"] == CRITIC_MIN_REWARD  # update 1: D only
    assert by_key["counter#u1-c0-r0"]["reward"] == 1.0 and "counter#u1-c1-r0" not in by_key  # no branch
    assert lines[0]["critic_skipped"] == {"greeting": "no contract: no requirement labels"}
    assert lines[0]["advantages"]["gen:counter"][0] > 0 > lines[0]["advantages"]["gen:counter"][1]
    assert lines[0]["advantages"]["ref:u1-c0@counter"] == [0.0]

    second = {json.loads(s)["key"]: json.loads(s) for s in (tmp_path / "updates" / "0002" / "samples.jsonl").read_text().splitlines()}
    assert second["counter#u2-c0"]["reward"] == pytest.approx(second["counter#u2-c0"]["H"] + 0.2 * 1.0)  # H + 0.2 D
    assert not (tmp_path / "updates" / "0002" / "gen").exists()  # every page was in the reward cache
    assert len(policy.updates) == 2 and {s["role"] for s in policy.updates[0]} == {"generator", "critic", "refiner"}
    assert lines[1]["roles"]["critic"]["parsed"] == 1


def test_generator_only_runs_without_critic_or_refiner(items, tmp_path):
    cfg = RlConfig(updates=1, tasks_per_update=2, n_gen=2, roles=("generator",))
    policy = ScriptedPolicy()
    (line,) = train_rl(list(items.values()), items, policy, EvalConfig(), cfg, tmp_path, system="SYS")
    assert set(line["roles"]) == {"generator"} and set(line["advantages"]) == {"gen:counter", "gen:greeting"}
    with pytest.raises(ValueError):
        RlConfig(roles=("generator", "refiner"))
    with pytest.raises(ValueError, match="n_gen=0"):
        RlConfig(n_gen=0)


def test_critique_parsing_and_draft_choice():
    ids = ["R1", "R2"]
    assert parse_verdicts('x {"verdicts": {"R1": "Satisfied", "R2": "violated", "R9": "violated"}} y', ids) == {"R1": 1, "R2": 0}
    assert parse_verdicts('{"other": 1} then {"verdicts": {"R2": "pass"}}', ids) == {"R2": 1}
    assert parse_verdicts("R1 is fine", ids) is None and parse_verdicts('{"verdicts": {"R1": "maybe"}}', ids) is None
    rolls = [Rollout(f"k{i}", "generator", "g", {}, reward=r) for i, r in enumerate([1.0, 0.4, 0.7, 0.7])]
    assert pick_draft(rolls).key == "k2" and pick_draft(rolls[:1]) is None


def test_the_visual_anchor_penalises_only_pages_that_look_worse_than_the_reference(items, tmp_path):
    from webmend.training.page_rewards import anchor_degradation

    assert anchor_degradation(20.0, 20.0, 25.0, 0.05) == 0.0 and anchor_degradation(20.0, 24.0, 25.0, 0.05) == 0.0
    assert anchor_degradation(20.0, 10.0, 25.0, 0.05) == pytest.approx(0.4 - 0.05)
    assert anchor_degradation(20.0, None, 25.0, 0.05) == 1.0 and anchor_degradation(None, 3.0, 25.0, 0.05) == 0.0

    styled = (FIX / "anchors" / "greeting.html").read_text()

    class Styled(ScriptedPolicy):
        def sample(self, requests, seed=None):
            out = super().sample(requests, seed)
            for c in out:  # the greeting's first sample: the reference itself; the second: a plain page
                if c["key"].startswith("greeting"):
                    c["text"] = styled if c["index"] == 0 else GOOD["greeting"]
            return out

    cfg = RlConfig(updates=1, tasks_per_update=2, n_gen=2, roles=("generator",), visual_anchor_weight=0.5)
    train_rl(list(items.values()), items, Styled(), EvalConfig(), cfg, tmp_path, system="SYS",
             anchors={"greeting": styled})
    rows = {json.loads(s)["key"]: json.loads(s) for s in (tmp_path / "updates" / "0001" / "samples.jsonl").read_text().splitlines()}
    same, plain = rows["greeting#u1-g0"], rows["greeting#u1-g1"]
    assert same["anchor_D"] == 0.0 and same["reward"] == same["page_reward"]
    assert plain["anchor_D"] > 0.2 and plain["reward"] == pytest.approx(plain["page_reward"] - 0.5 * plain["anchor_D"])
    assert "anchor_D" not in rows["counter#u1-g0"]  # no reference for the counter task


def test_a_screenshot_judge_decides_the_anchor_and_its_failure_falls_back_to_the_points(items, tmp_path, llm_server,
                                                                                          monkeypatch):
    """WebCatalyst's pairwise comparison: the reference's first keyframe, then the sample's, to a
    vision model through litellm (the scripted server); identical renderings ask nothing."""
    from llm.llm_server import chat_reply, error_reply

    monkeypatch.setenv("OPENAI_API_BASE", llm_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-anchor")
    styled = (FIX / "anchors" / "greeting.html").read_text()

    class Styled(ScriptedPolicy):
        def sample(self, requests, seed=None):
            out = super().sample(requests, seed)
            for c in out:
                if c["key"].startswith("greeting"):
                    c["text"] = styled if c["index"] == 0 else GOOD["greeting"]
            return out

    llm_server.script(chat_reply('{"degradation": 0.7, "reasons": ["no styling"]}'), error_reply(400, "bad image"))
    cfg = RlConfig(updates=2, tasks_per_update=2, n_gen=2, roles=("generator",), visual_anchor_weight=0.5,
                   visual_anchor_judge="openai/vision-judge")
    train_rl(list(items.values()), items, Styled(), EvalConfig(), cfg, tmp_path, system="SYS",
             anchors={"greeting": styled})
    (ask,) = llm_server.requests[:1]
    images = [part for part in ask.body["messages"][0]["content"] if part["type"] == "image_url"]
    assert len(images) == 2 and ask.body["model"] == "vision-judge"
    rows = {json.loads(s)["key"]: json.loads(s) for s in (tmp_path / "updates" / "0001" / "samples.jsonl").read_text().splitlines()}
    same, plain = rows["greeting#u1-g0"], rows["greeting#u1-g1"]
    assert (same["anchor_D"], same["anchor_by"]) == (0.0, "judge")  # the same frame: no call
    assert (plain["anchor_D"], plain["anchor_by"]) == (pytest.approx(0.65), "judge")
    # update 2 samples the same pages: rewards and the judge's answer come from their caches
    again = {json.loads(s)["key"]: json.loads(s) for s in (tmp_path / "updates" / "0002" / "samples.jsonl").read_text().splitlines()}
    assert again["greeting#u2-g1"]["anchor_D"] == pytest.approx(0.65) and len(llm_server.requests) == 1

    # a judge that fails: the visual-design points decide, as without a judge
    out = tmp_path / "failing"
    train_rl(list(items.values()), items, Styled(), EvalConfig(), RlConfig(**{**cfg.__dict__, "updates": 1}), out,
             system="SYS", anchors={"greeting": styled})
    plain = {json.loads(s)["key"]: json.loads(s) for s in (out / "updates" / "0001" / "samples.jsonl").read_text().splitlines()}["greeting#u1-g1"]
    assert plain["anchor_by"] == "points" and plain["anchor_D"] > 0.2


def test_a_stopped_run_resumes_after_its_last_saved_update(items, tmp_path):
    class Crashes(ScriptedPolicy):
        def update(self, samples, epochs=1):
            if self.updates:
                raise RuntimeError("killed")
            return super().update(samples, epochs)

    cfg = RlConfig(updates=3, tasks_per_update=2, n_gen=2, roles=("generator",))
    with pytest.raises(RuntimeError, match="killed"):
        train_rl(list(items.values()), items, Crashes(), EvalConfig(), cfg, tmp_path, system="SYS")
    assert json.loads((tmp_path / "state.json").read_text()) == {"update": 1, "policy": "policy-0001"}
    assert json.loads((tmp_path / "policy-0001" / "saved.json").read_text())["optimizer"] is True
    first = (tmp_path / "rl_log.jsonl").read_text().splitlines()
    again = ScriptedPolicy()
    lines = train_rl(list(items.values()), items, again, EvalConfig(), cfg, tmp_path, system="SYS")
    assert [line["update"] for line in lines] == [1, 2, 3]
    assert {r["key"].split("#")[1] for r in again.requests} == {"u2", "u3"}  # update 1 is not done again
    assert (tmp_path / "rl_log.jsonl").read_text().splitlines()[0] == first[0]
    assert json.loads((tmp_path / "state.json").read_text())["update"] == 3
    assert sorted(p.name for p in tmp_path.glob("policy-*")) == ["policy-0003"]
