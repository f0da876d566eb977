"""The RL policy as a long-running child: JSON requests on stdin, one JSON answer per line on stdout.

The pipeline's RL loop (`webmend.training.rl`, in the pipeline's environment, where the browser is)
drives it; the model stays in memory between requests. Operations:

    {"op": "load", "model": DIR, "lr": 1e-5, "seed": 0, "clip_eps": 0.2, "kl_coef": 0.0, "max_grad_norm": 1.0,
     "optimizer": DIR/optimizer.pt?}   (the optimizer's state, when resuming)
    {"op": "sample", "requests": [{"key", "messages", "n", "max_new_tokens", "temperature"}], "seed": S?}
        -> {"completions": [{"key", "index", "text", "prompt_ids", "completion_ids"}]}
    {"op": "tokenize", "rows": [{"messages", "text", "stopped"}]}  -> {"tokens": [{"prompt_ids", "completion_ids"}]}
        (completions a rollout server sampled, as ids for the update)
    {"op": "update", "samples": [{"prompt_ids", "completion_ids", "advantage", "token_weights"?, "role", "group"}],
     "epochs": 1}
        -> {"stats": [...one per epoch...]}   (the sampling log-probs are taken once, before the first epoch)
    {"op": "digest"}  -> {"digest": sha256 of every parameter, "norm": float}
    {"op": "save", "dir": DIR, "optimizer": false}  -> {"saved": DIR}   (transformers format: LlamaFactory
        and vLLM load it; with optimizer, DIR/optimizer.pt too)
    {"op": "exit"}

An error answers {"error": "..."} and the worker goes on. Sampling is seeded per request batch (the given seed, else a counter), so
the same model, requests and seed give the same completions."""

from __future__ import annotations

import hashlib
import json
import sys

from webmend.training.trainenv.generate import sample_ids
from webmend.training.trainenv.grpo import GrpoConfig, Sample, grpo_step, pad_batch, token_logprobs


class Policy:
    def __init__(self, model_dir: str, lr: float, seed: int, grpo: GrpoConfig):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        torch.manual_seed(seed)
        self.seed = seed
        self.tokenizer = AutoTokenizer.from_pretrained(model_dir)
        self.model = AutoModelForCausalLM.from_pretrained(model_dir, torch_dtype=torch.float32)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=lr, weight_decay=0.0)
        self.grpo = grpo
        self.ref = None
        if grpo.kl_coef:
            self.ref = AutoModelForCausalLM.from_pretrained(model_dir, torch_dtype=torch.float32).eval()
        self.batches = 0

    @property
    def pad_id(self) -> int:
        t = self.tokenizer
        return t.pad_token_id if t.pad_token_id is not None else t.eos_token_id

    def prompt_ids(self, messages: list[dict]):
        return self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt")

    def sample(self, requests: list[dict], seed: int | None = None) -> list[dict]:
        import torch

        self.model.eval()
        self.batches += 1
        torch.manual_seed(seed if seed is not None else self.seed * 1_000_003 + self.batches)
        out = []
        for req in requests:
            prompt = self.prompt_ids(req["messages"])
            for index in range(int(req.get("n", 1))):
                completion = sample_ids(self.tokenizer, self.model, prompt, int(req.get("max_new_tokens", 256)),
                                        float(req.get("temperature", 1.0)))
                out.append({"key": req["key"], "index": index, "prompt_ids": prompt[0].tolist(),
                            "completion_ids": completion,
                            "text": self.tokenizer.decode(completion, skip_special_tokens=True)})
        return out

    def tokenize(self, rows: list[dict]) -> list[dict]:
        """Token ids of completions sampled elsewhere (an OpenAI-compatible server answers text):
        the prompt as the chat template renders it, the text re-encoded, plus EOS when the server
        stopped on it. Re-encoding may split text differently from how it was sampled; the update
        scores the ids given, so the ratio stays exact for them."""
        out = []
        for r in rows:
            completion = self.tokenizer(r["text"], add_special_tokens=False)["input_ids"]
            if r.get("stopped") and self.tokenizer.eos_token_id is not None:
                completion = completion + [self.tokenizer.eos_token_id]
            out.append({"prompt_ids": self.prompt_ids(r["messages"])[0].tolist(), "completion_ids": completion})
        return out

    def update(self, rows: list[dict], epochs: int = 1) -> list[dict]:
        import torch

        samples = [Sample(r["prompt_ids"], r["completion_ids"], float(r["advantage"]),
                          token_weights=r.get("token_weights"), role=r.get("role", ""), group=r.get("group", ""))
                   for r in rows if r["completion_ids"]]
        if not samples:
            return [{"skipped": "no sample with a completion"}]
        ids, attn, mask = pad_batch(samples, self.pad_id)
        self.model.eval()
        with torch.no_grad():
            old = token_logprobs(self.model, ids, attn)
        for s, i in zip(samples, range(len(samples))):
            start = len(s.prompt_ids) - 1
            s.old_logprobs = old[i, start:start + len(s.completion_ids)].tolist()
        return [grpo_step(self.model, self.optimizer, samples, self.grpo, self.pad_id, self.ref) for _ in range(epochs)]

    def digest(self) -> dict:
        return param_digest(self.model)

    def save(self, path: str, optimizer: bool = False) -> dict:
        import torch

        self.model.save_pretrained(path, safe_serialization=True)
        self.tokenizer.save_pretrained(path)
        if optimizer:
            torch.save(self.optimizer.state_dict(), f"{path}/optimizer.pt")
        return {"saved": path}

    def load_optimizer(self, path: str) -> None:
        import torch

        self.optimizer.load_state_dict(torch.load(path, weights_only=True))


def param_digest(model) -> dict:
    """sha256 over every parameter (name and bytes, in name order) and the global norm: the policy
    worker and the rollout server report the same digest for the same weights."""
    h = hashlib.sha256()
    norm = 0.0
    for name, p in sorted(model.named_parameters()):
        data = p.detach().cpu().contiguous()
        h.update(name.encode())
        h.update(data.numpy().tobytes())
        norm += float((data.double() ** 2).sum())
    return {"digest": h.hexdigest(), "norm": norm ** 0.5}


def handle(policy: Policy | None, req: dict) -> tuple[Policy | None, dict]:
    op = req.get("op")
    if op == "load":
        grpo = GrpoConfig(clip_eps=req.get("clip_eps", 0.2), kl_coef=req.get("kl_coef", 0.0),
                          max_grad_norm=req.get("max_grad_norm", 1.0))
        policy = Policy(req["model"], float(req.get("lr", 1e-5)), int(req.get("seed", 0)), grpo)
        if req.get("optimizer"):
            policy.load_optimizer(req["optimizer"])
        return policy, {"loaded": req["model"], "parameters": sum(p.numel() for p in policy.model.parameters())}
    if policy is None:
        return policy, {"error": f"{op}: no model loaded"}
    if op == "sample":
        return policy, {"completions": policy.sample(req["requests"], req.get("seed"))}
    if op == "tokenize":
        return policy, {"tokens": policy.tokenize(req["rows"])}
    if op == "update":
        return policy, {"stats": policy.update(req["samples"], int(req.get("epochs", 1)))}
    if op == "digest":
        return policy, policy.digest()
    if op == "save":
        return policy, policy.save(req["dir"], bool(req.get("optimizer")))
    return policy, {"error": f"unknown op {op!r}"}


def main() -> int:
    policy = None
    out = sys.stdout
    sys.stdout = sys.stderr  # library prints must not corrupt the protocol
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        if req.get("op") == "exit":
            break
        try:
            policy, answer = handle(policy, req)
        except Exception as exc:  # noqa: BLE001  (the worker answers every request; the caller decides)
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        out.write(json.dumps(answer) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
