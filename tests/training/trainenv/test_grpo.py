"""The GRPO update on hand-computed examples. Runs in the training environment (torch), from
`make test` as its second pytest run: `.venv-train/bin/python -m pytest --noconftest tests/training/trainenv`."""

from __future__ import annotations

import math

import pytest
import torch

from webmend.training.role_rewards import group_advantages
from webmend.training.trainenv.grpo import GrpoConfig, Sample, clipped_objective, grpo_step, pad_batch, token_logprobs


def t(rows):
    return torch.tensor(rows, dtype=torch.float)


def test_the_ratio_is_clipped_on_the_side_the_advantage_favours():
    # ratios 1.5, 0.5, 0.5, 1.5 with advantages +1, +1, -1, -1 (one token each)
    logp = torch.log(t([[1.5], [0.5], [0.5], [1.5]]))
    old = torch.zeros(4, 1)
    adv, mask = t([1, 1, -1, -1]), torch.ones(4, 1)
    loss, stats = clipped_objective(logp, old, adv, mask, clip_eps=0.2)
    # min(rho A, clip(rho) A): 1.2 (capped), 0.5 (no gain from clipping up), -0.8 (capped), -1.5
    assert float(loss) == pytest.approx(-(1.2 + 0.5 - 0.8 - 1.5) / 4)
    assert stats["clip_fraction"] == 1.0 and stats["tokens"] == 4


def test_only_valid_tokens_count_and_weights_scale_each_token():
    logp, old = torch.zeros(2, 3), torch.zeros(2, 3)  # ratio 1 everywhere
    adv = t([2.0, -1.0])
    mask = t([[1, 1, 0], [1, 0, 0]])  # 3 valid tokens
    loss, _ = clipped_objective(logp, old, adv, mask, clip_eps=0.2)
    assert float(loss) == pytest.approx(-(2 + 2 - 1) / 3)
    weights = t([[0.5, 0.0, 9.0], [2.0, 9.0, 9.0]])  # the padded 9s must not count
    loss, _ = clipped_objective(logp, old, adv, mask, clip_eps=0.2, weights=weights)
    assert float(loss) == pytest.approx(-(2 * 0.5 + 0 - 1 * 2.0) / 3)


def test_the_kl_term_is_the_k3_estimate_against_the_reference():
    logp, old, ref = torch.zeros(1, 2), torch.zeros(1, 2), t([[math.log(2.0), 0.0]])
    loss, stats = clipped_objective(logp, old, t([0.0]), torch.ones(1, 2), clip_eps=0.2, ref_logp=ref, kl_coef=0.1)
    k3 = (2.0 - math.log(2.0) - 1) / 2  # exp(d) - d - 1 with d = log 2, and 0 for the second token
    assert stats["kl"] == pytest.approx(k3) and float(loss) == pytest.approx(0.1 * k3)


def test_padding_aligns_completion_tokens_with_the_logits_that_predict_them():
    ids, attn, mask = pad_batch([Sample([5, 6], [7, 8, 9], 1.0), Sample([5], [7], -1.0)], pad_id=0)
    assert ids.tolist() == [[5, 6, 7, 8, 9], [5, 7, 0, 0, 0]]
    assert mask.tolist() == [[0, 1, 1, 1], [1, 0, 0, 0]]
    assert attn.tolist() == [[1, 1, 1, 1, 1], [1, 1, 0, 0, 0]]


def tiny_model():
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(0)
    return Qwen2ForCausalLM(Qwen2Config(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                        num_attention_heads=2, num_key_value_heads=1, tie_word_embeddings=True))


def sequence_logprob(model, sample: Sample) -> float:
    ids, attn, mask = pad_batch([sample], pad_id=0)
    with torch.no_grad():
        return float((token_logprobs(model, ids, attn) * mask).sum())


def test_an_update_makes_the_better_output_of_a_group_more_likely():
    model = tiny_model()
    good, bad = [3, 4, 5], [9, 9, 9]
    adv = group_advantages([1.0, 0.0])  # two samples of one prompt: +1 and -1
    samples = [Sample([1, 2], good, adv[0], group="gen"), Sample([1, 2], bad, adv[1], group="gen")]
    before = [sequence_logprob(model, s) for s in samples]
    params = [p.detach().clone() for p in model.parameters()]
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    stats = [grpo_step(model, opt, samples, GrpoConfig(), pad_id=0) for _ in range(3)]
    after = [sequence_logprob(model, s) for s in samples]
    assert after[0] > before[0] and after[1] < before[1]
    assert any(not torch.equal(a, b) for a, b in zip(params, model.parameters()))
    assert stats[0]["ratio_mean"] == pytest.approx(1.0) and all(math.isfinite(s["loss"]) for s in stats)


def test_stale_sampling_logprobs_and_bad_weights():
    model = tiny_model()
    s = Sample([1, 2], [3, 4], 1.0)
    ids, attn, mask = pad_batch([s], pad_id=0)
    with torch.no_grad():
        now = token_logprobs(model, ids, attn)[0, 1:3].tolist()
    # the sampler gave these tokens half the probability the policy gives now: ratio 2, clipped at 1.2
    stale = Sample([1, 2], [3, 4], 1.0, old_logprobs=[v - math.log(2.0) for v in now])
    stats = grpo_step(model, torch.optim.SGD(model.parameters(), lr=0.0), [stale], GrpoConfig(), pad_id=0)
    assert stats["ratio_mean"] == pytest.approx(2.0, rel=1e-4) and stats["clip_fraction"] == 1.0
    assert stats["loss"] == pytest.approx(-1.2, rel=1e-4)
    with pytest.raises(ValueError, match="token_weights"):
        grpo_step(model, torch.optim.SGD(model.parameters(), lr=0.0), [Sample([1], [3, 4], 1.0, token_weights=[1.0])],
                  GrpoConfig(), pad_id=0)


def test_the_policy_worker_saves_and_resumes_its_optimizer(tmp_path):
    from webmend.training.trainenv.policy_worker import handle

    model = tiny_model()
    model.save_pretrained(tmp_path / "init")
    from transformers import PreTrainedTokenizerFast
    from tokenizers import Tokenizer, models, pre_tokenizers

    tok = Tokenizer(models.WordLevel({f"w{i}": i for i in range(32)}, unk_token="w0"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="w0", eos_token="w1").save_pretrained(tmp_path / "init")
    policy, _ = handle(None, {"op": "load", "model": str(tmp_path / "init"), "lr": 0.01})
    batch = [{"prompt_ids": [1, 2], "completion_ids": [3, 4], "advantage": 1.0},
             {"prompt_ids": [1, 2], "completion_ids": [5, 6], "advantage": -1.0}]
    handle(policy, {"op": "update", "samples": batch})
    handle(policy, {"op": "save", "dir": str(tmp_path / "p1"), "optimizer": True})
    handle(policy, {"op": "update", "samples": batch})
    straight = handle(policy, {"op": "digest"})[1]["digest"]
    resumed, _ = handle(None, {"op": "load", "model": str(tmp_path / "p1"), "lr": 0.01,
                               "optimizer": str(tmp_path / "p1" / "optimizer.pt")})
    handle(resumed, {"op": "update", "samples": batch})
    assert handle(resumed, {"op": "digest"})[1]["digest"] == straight  # Adam's moments came back too
    _, answer = handle(resumed, {"op": "nope"})
    assert "unknown op" in answer["error"]
