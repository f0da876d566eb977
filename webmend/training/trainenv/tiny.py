"""Build a tiny random causal LM and its tokenizer from a corpus, so SFT and RL run on any machine.

The tokenizer is a byte-level BPE trained on the corpus's own text with ChatML's special tokens and
chat template (what LlamaFactory's `qwen` template expects); the model is a two-layer Qwen2 with
random weights. Same corpus and seed, same files. Run as
`python -m webmend.training.trainenv.tiny --data DIR_OR_FILES... --out DIR [--seed 0]`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pyarrow.parquet as pq

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
CHATML_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
TINY_SHAPE = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
              "num_key_value_heads": 2, "max_position_embeddings": 8192}


def corpus_texts(paths: list[Path]) -> list[str]:
    """Every string of every conversation in the Parquet files under `paths`, in a stable order."""
    files = sorted(f for p in paths for f in ([p] if p.is_file() else p.rglob("*.parquet")))
    texts: list[str] = []
    for f in files:
        for row in pq.read_table(f).to_pylist():
            for turn in row.get("messages") or []:
                texts.append(turn["content"])
            texts.extend(row[k] for k in ("system", "instruction", "output") if isinstance(row.get(k), str))
    if not texts:
        raise SystemExit(f"no text found in {', '.join(map(str, paths))}: the tiny tokenizer needs the corpus")
    return texts


def build_tokenizer(texts: list[str], vocab_size: int):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(texts, trainer=trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                   additional_special_tokens=SPECIAL_TOKENS[1:], chat_template=CHATML_TEMPLATE,
                                   model_input_names=["input_ids", "attention_mask"])


def build_model(vocab_size: int, seed: int, tokenizer):
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(seed)
    config = Qwen2Config(vocab_size=vocab_size, tie_word_embeddings=True, torch_dtype="float32",
                         eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
                         bos_token_id=None, **TINY_SHAPE)
    return Qwen2ForCausalLM(config)


def build_tiny(paths: list[Path], out: Path, seed: int = 0, vocab_size: int = 2048) -> dict:
    texts = corpus_texts(paths)
    tokenizer = build_tokenizer(texts, vocab_size)
    model = build_model(len(tokenizer), seed, tokenizer)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer.save_pretrained(out)
    model.save_pretrained(out, safe_serialization=True)
    info = {"kind": "tiny-random", "seed": seed, "vocab_size": len(tokenizer), "texts": len(texts),
            "parameters": sum(p.numel() for p in model.parameters()), **TINY_SHAPE}
    (out / "webmend_tiny.json").write_text(json.dumps(info, indent=2, sort_keys=True) + "\n")
    return info


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", nargs="+", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--vocab-size", type=int, default=2048)
    args = ap.parse_args(argv)
    print(json.dumps(build_tiny(args.data, args.out, args.seed, args.vocab_size), sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
