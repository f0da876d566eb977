"""The GRPO policy update (webloop.txt eq. 10-11), in plain torch + transformers.

TRL's GRPOTrainer groups completions by dataset prompt with one group size, while WebLoop's Critic
prompts depend on the Generator's drafts and its Refiner prompts on each critique, with groups of
varying size per task. So the rollout (who is sampled from what) and the advantages
(`webmend.training.role_rewards`, computed per role-specific group) stay outside, and this module only
turns samples that already carry an advantage into one clipped-ratio update:

    L = -1/N_tok * sum_o sum_t w_ot * min(rho_ot A_o, clip(rho_ot, 1 - eps, 1 + eps) A_o) + beta * KL

rho is the token probability ratio against the policy that sampled o (1 on the first update of a
batch), w the optional per-token weights (1 by default; the action-trace credit of
webcatalyst.txt plugs in here), KL the k3 estimator against a frozen reference policy when beta > 0.
N_tok counts the valid completion tokens of the batch, so long outputs weigh by their tokens."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class GrpoConfig:
    clip_eps: float = 0.2
    kl_coef: float = 0.0  # beta; 0 keeps no reference model
    max_grad_norm: float = 1.0


@dataclass
class Sample:
    """One policy output with its conditioning context, as token ids, and its advantage."""

    prompt_ids: list[int]
    completion_ids: list[int]
    advantage: float
    old_logprobs: list[float] | None = None  # from the sampling policy; None: this policy (ratio 1)
    token_weights: list[float] | None = None
    role: str = "generator"
    group: str = ""
    meta: dict = field(default_factory=dict)


def clipped_objective(logp, old_logp, advantages, mask, *, clip_eps: float, weights=None, ref_logp=None,
                      kl_coef: float = 0.0):
    """(loss, stats) for a padded batch: tensors [B, T] but `advantages` [B]; mask 1 on valid tokens."""
    import torch

    ratio = torch.exp(logp - old_logp)
    adv = advantages.unsqueeze(1)
    objective = torch.minimum(ratio * adv, torch.clamp(ratio, 1 - clip_eps, 1 + clip_eps) * adv)
    per_token = -objective * (weights if weights is not None else 1.0)
    kl = torch.zeros_like(per_token)
    if kl_coef and ref_logp is not None:
        delta = ref_logp - logp
        kl = torch.exp(delta) - delta - 1  # k3: unbiased, always >= 0
        per_token = per_token + kl_coef * kl
    n_tok = mask.sum().clamp(min=1)
    loss = (per_token * mask).sum() / n_tok
    clipped = ((ratio - 1).abs() > clip_eps).float()
    stats = {"loss": float(loss.detach()), "tokens": int(mask.sum()),
             "clip_fraction": float((clipped * mask).sum() / n_tok),
             "ratio_mean": float((ratio.detach() * mask).sum() / n_tok),
             "kl": float((kl.detach() * mask).sum() / n_tok)}
    return loss, stats


def pad_batch(samples: list[Sample], pad_id: int):
    """input ids [B, L], attention mask [B, L], completion mask [B, L-1] aligned with next-token logits."""
    import torch

    seqs = [s.prompt_ids + s.completion_ids for s in samples]
    width = max(len(x) for x in seqs)
    ids = torch.full((len(seqs), width), pad_id, dtype=torch.long)
    attn = torch.zeros((len(seqs), width), dtype=torch.long)
    completion = torch.zeros((len(seqs), width - 1))
    for i, (s, seq) in enumerate(zip(samples, seqs)):
        ids[i, :len(seq)] = torch.tensor(seq)
        attn[i, :len(seq)] = 1
        # logits at position p predict token p + 1: completion token j sits at len(prompt) + j
        completion[i, len(s.prompt_ids) - 1:len(seq) - 1] = 1
    return ids, attn, completion


def token_logprobs(model, ids, attn):
    """log pi(token_{p+1} | tokens_<=p) for every position p: [B, L-1]."""
    import torch

    logits = model(input_ids=ids, attention_mask=attn).logits[:, :-1].float()
    return torch.gather(torch.log_softmax(logits, dim=-1), 2, ids[:, 1:].unsqueeze(2)).squeeze(2)


def _per_position(samples: list[Sample], attr: str, width: int, default: float):
    import torch

    out = torch.full((len(samples), width), default)
    for i, s in enumerate(samples):
        values = getattr(s, attr)
        if values is not None:
            if len(values) != len(s.completion_ids):
                raise ValueError(f"{attr}: {len(values)} values for {len(s.completion_ids)} completion tokens")
            start = len(s.prompt_ids) - 1
            out[i, start:start + len(values)] = torch.tensor(values, dtype=torch.float)
    return out


def grpo_step(model, optimizer, samples: list[Sample], cfg: GrpoConfig, pad_id: int, ref_model=None) -> dict:
    """One clipped-ratio update over `samples`; returns the loss and its statistics."""
    import torch

    if not samples:
        raise ValueError("grpo_step needs at least one sample")
    model.train()
    ids, attn, mask = pad_batch(samples, pad_id)
    logp = token_logprobs(model, ids, attn)
    old = logp.detach().clone()
    if any(s.old_logprobs is not None for s in samples):
        given = _per_position(samples, "old_logprobs", mask.shape[1], 0.0)
        has_old = torch.tensor([s.old_logprobs is not None for s in samples]).unsqueeze(1)
        old = torch.where(has_old, given, old)
    weights = None
    if any(s.token_weights is not None for s in samples):
        weights = _per_position(samples, "token_weights", mask.shape[1], 1.0)
    ref = None
    if cfg.kl_coef and ref_model is not None:
        with torch.no_grad():
            ref = token_logprobs(ref_model, ids, attn)
    advantages = torch.tensor([s.advantage for s in samples], dtype=torch.float)
    loss, stats = clipped_objective(logp, old, advantages, mask, clip_eps=cfg.clip_eps, weights=weights,
                                    ref_logp=ref, kl_coef=cfg.kl_coef)
    optimizer.zero_grad()
    loss.backward()
    stats["grad_norm"] = float(torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm))
    optimizer.step()
    return stats
