"""Answer prompts with a checkpoint through transformers' generation (the CPU / test backend).

Reads JSONL `{"id", "prompt"}` lines, writes `{"id", "prompt", "response", "new_tokens"}` lines in the
same order. The system turn is the one the checkpoint was trained with. Greedy unless a
temperature is given; seeded, so the same checkpoint and prompts give the same answers. Run as
`python -m webmend.training.trainenv.generate --model DIR --prompts IN.jsonl --out OUT.jsonl --system S`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def load(model_dir: str):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir)
    model.eval()
    return tokenizer, model


def sample_ids(tokenizer, model, prompt, max_new_tokens: int, temperature: float) -> list[int]:
    """The new token ids for one prompt (a [1, L] id tensor): sampled at `temperature` (pure
    sampling: no top-k, no top-p), greedy at 0. One place for the policy worker, the server and eval."""
    import torch

    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    sampling = ({"do_sample": True, "temperature": temperature, "top_k": 0, "top_p": 1.0} if temperature > 0
                else {"do_sample": False})
    with torch.no_grad():
        out = model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=max_new_tokens,
                             pad_token_id=pad, eos_token_id=tokenizer.eos_token_id, **sampling)
    return out[0, prompt.shape[1]:].tolist()


def answer(tokenizer, model, prompt: str, system: str, max_new_tokens: int, temperature: float) -> tuple[str, int]:
    messages = [{"role": "system", "content": system}, {"role": "user", "content": prompt}]
    ids = tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt")
    new = sample_ids(tokenizer, model, ids, max_new_tokens, temperature)
    return tokenizer.decode(new, skip_special_tokens=True), len(new)


def main(argv: list[str] | None = None) -> int:
    import torch

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--prompts", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--system", required=True)
    ap.add_argument("--max-new-tokens", type=int, default=512)
    ap.add_argument("--temperature", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    torch.manual_seed(args.seed)
    tokenizer, model = load(args.model)
    rows = [json.loads(line) for line in args.prompts.read_text().splitlines() if line.strip()]
    with open(args.out, "w") as f:
        for row in rows:
            text, n = answer(tokenizer, model, row["prompt"], args.system, args.max_new_tokens, args.temperature)
            f.write(json.dumps({"id": row["id"], "prompt": row["prompt"], "response": text, "new_tokens": n}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
