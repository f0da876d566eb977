"""Exclusion policy on the labelled set: precision and recall of the rules alone and of rules + model.

data/intake/policy_labelled.jsonl holds `dev` rows (the rules were written from them) and `held_out`
paraphrases (written first, never used for tuning): held_out is the estimate for new text.

    .venv/bin/python bench/intake_policy.py                      # rules alone
    .venv/bin/python bench/intake_policy.py --scripted           # + a scripted model on a local server
    .venv/bin/python bench/intake_policy.py --model openai/NAME  # + a real model (OPENAI_API_BASE, ...)

--scripted starts the tests' scripted OpenAI-compatible server on 127.0.0.1 and reaches it through
litellm. Its model answers from the labels (an oracle), except that every --unusable-every-th row
gets a malformed answer: the figures then show what the combination can reach (the rules' false
exclusions stay, since the model cannot lift a rule) and what unusable answers cost.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "generate"))  # the scripted LLM server, only for --scripted

from webmend.intake.quality import POLICY_LABELLED, _rows, policy_metrics  # noqa: E402


def oracle_answer(row: dict, unusable_every: int) -> str:
    """The labelled verdict as the model's JSON answer; a stable share of rows get a malformed one."""
    bucket = int(hashlib.sha256(row["id"].encode()).hexdigest(), 16)
    if unusable_every and bucket % unusable_every == 0:
        return "I think this one is probably fine."
    if row["rule"] is None:
        return json.dumps({"exclude": False, "rule": None, "reason": "a demo"})
    return json.dumps({"exclude": True, "rule": row["rule"], "reason": row["concept"]})


def scripted_metrics(path: Path, unusable_every: int, cache_dir: str | None) -> dict:
    from llm_server import RoutedReplies, ScriptedLLMServer, chat_reply

    routes = {r["text"]: [chat_reply(oracle_answer(r, unusable_every))] for r in _rows(path)}
    with ScriptedLLMServer(RoutedReplies(routes)) as server:
        os.environ["OPENAI_API_BASE"] = server.base_url
        os.environ.setdefault("OPENAI_API_KEY", "sk-scripted-not-a-real-key-0000")
        out = policy_metrics(path, _complete("openai/scripted-policy", cache_dir))
        out["calls"] = len(server.requests)
    return out


def _complete(model: str, cache_dir: str | None):
    from webmend.llm.cache import ResponseCache
    from webmend.llm.complete import litellm_complete

    return litellm_complete(model, cache=ResponseCache(cache_dir) if cache_dir else None)


def _line(name: str, split: dict) -> str:
    c = split["counts"]
    return (f"{name:<32} recall {split['recall']:.3f}  precision {split['precision']:.3f}  demo_pass "
            f"{split['demo_pass']:.3f}  rule_agreement {split['rule_agreement']:.3f}  "
            f"(tp {c['tp']} fp {c['fp']} fn {c['fn']} tn {c['tn']}; by model {split['by_model']}, "
            f"unusable {split['model_unusable']})")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--labelled", default=str(POLICY_LABELLED))
    p.add_argument("--scripted", action="store_true", help="add rules + the scripted oracle model")
    p.add_argument("--unusable-every", type=int, default=8, help="--scripted: every n-th row gets a malformed answer (0: none)")
    p.add_argument("--model", help="add rules + this litellm model")
    p.add_argument("--cache-dir", help="response cache for the model's answers")
    p.add_argument("--json", action="store_true", help="print the full figures as JSON")
    args = p.parse_args(argv)
    path = Path(args.labelled)
    results = {"rules": policy_metrics(path)}
    if args.scripted:
        results["rules+scripted_model"] = scripted_metrics(path, args.unusable_every, args.cache_dir)
    if args.model:
        results[f"rules+{args.model}"] = policy_metrics(path, _complete(args.model, args.cache_dir))
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for name, figures in results.items():
        for split in ("dev", "held_out"):
            print(_line(f"{name} / {split}", figures[split]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
