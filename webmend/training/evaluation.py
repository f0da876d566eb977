"""Evaluate a checkpoint: it answers benchmark items, the evaluator scores its pages with their test
cases, and a table per family reports score, test-case pass rate and bands (docs/training.md).

Backends: `transformers` generates in the training environment (CPU or one GPU, for small runs and
tests); `openai` asks an OpenAI-compatible server (vLLM serving the checkpoint) through litellm.
Either way the system turn is the one the checkpoint was trained with. Raw, filtered and refined
checkpoints evaluated on the same items compare row by row."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, replace
from pathlib import Path

from webmend.config import EvalConfig
from webmend.evaluate.inputs import iter_responses
from webmend.evaluate.run import iter_records, run_evaluation, write_json_atomic, write_text_atomic
from webmend.export.config import DEFAULT_SYSTEM
from webmend.schemas.training import CheckpointReport, TrainRun
from webmend.schemas.vocab import STATES
from webmend.training import env as train_env

log = logging.getLogger(__name__)
BACKENDS = ("transformers", "openai")
ANSWERS = "answers.jsonl"


@dataclass(frozen=True)
class Checkpoint:
    label: str
    model: str  # a folder (transformers) or the served model's name (openai)
    system_prompt: str
    run_id: str | None = None


def read_checkpoint(path: str, system_prompt: str | None = None) -> Checkpoint:
    """A `webmend train sft` run folder (its checkpoint and system prompt), or a model folder."""
    folder = Path(path)
    record = folder / "run.json"
    if record.is_file():
        run = TrainRun.model_validate_json(record.read_text())
        return Checkpoint(label=f"{run.manifest.route}/{run.preset}", model=str(folder / run.checkpoint),
                          system_prompt=system_prompt or run.manifest.system_prompt, run_id=run.run_id)
    if (folder / "config.json").is_file():
        return Checkpoint(label=folder.name, model=str(folder), system_prompt=system_prompt or DEFAULT_SYSTEM)
    raise FileNotFoundError(f"{path}: neither a `webmend train sft` run folder (run.json) nor a model folder (config.json)")


def generate_transformers(ckpt: Checkpoint, items: dict[str, dict], out: Path, max_new_tokens: int,
                          temperature: float = 0.0) -> Path:
    prompts = out / "prompts.jsonl"
    prompts.write_text("".join(json.dumps({"id": i, "prompt": it["prompt"]}) + "\n" for i, it in items.items()))
    answers = out / ANSWERS
    train_env.run_trainenv_module("generate", ["--model", ckpt.model, "--prompts", str(prompts), "--out", str(answers),
                                               "--system", ckpt.system_prompt, "--max-new-tokens", str(max_new_tokens),
                                               "--temperature", str(temperature)])
    return answers


def generate_openai(ckpt: Checkpoint, items: dict[str, dict], out: Path, max_new_tokens: int, *,
                    api_base: str | None, temperature: float = 0.0, client=None) -> Path:
    """One answer per item through litellm; a failed call is an empty answer with its error, which
    the evaluator records as a reject (so the item counts, unscored)."""
    from webmend.llm.client import LLMClient, LLMError

    client = client or LLMClient(ckpt.model)
    params = {"max_tokens": max_new_tokens, "temperature": temperature}
    if api_base:
        params["api_base"] = api_base
    answers = out / ANSWERS
    with open(answers, "w") as fh:
        for item_id, item in items.items():
            messages = [{"role": "system", "content": ckpt.system_prompt}, {"role": "user", "content": item["prompt"]}]
            try:
                text, error = client.complete(messages, **params).text, None
            except LLMError as exc:
                text, error = "", str(exc)
                log.warning("%s: no answer: %s", item_id, exc)
            fh.write(json.dumps({"id": item_id, "prompt": item["prompt"], "response": text, "error": error}) + "\n")
    return answers


def family_table(records: list[dict], items: dict[str, dict]) -> dict[str, dict]:
    """Per family and `all`: items, scored pages, mean score (unscored count as 0, so a checkpoint
    that writes nothing usable cannot look good), weighted test-case pass rate, and bands."""
    table: dict[str, dict] = {}
    for rec in records:
        family = (items.get(rec["id"]) or {}).get("category") or "unknown"
        for key in (family, "all"):
            row = table.setdefault(key, {"items": 0, "scored": 0, "score_sum": 0.0, "weight_passed": 0.0,
                                         "weight_total": 0.0, "bands": dict.fromkeys((*STATES, "unscored"), 0)})
            row["items"] += 1
            total = (rec.get("score") or {}).get("total")
            if total is not None:
                row["scored"] += 1
                row["score_sum"] += total
            row["bands"][rec.get("state") or "unscored"] += 1
            passed, total_weight = _test_weights(rec, items.get(rec["id"]) or {})
            row["weight_passed"] += passed
            row["weight_total"] += total_weight
    for row in table.values():
        row["mean_score"] = round(row.pop("score_sum") / row["items"], 3) if row["items"] else None
        row["pass_rate"] = round(row["weight_passed"] / row["weight_total"], 4) if row["weight_total"] else None
    return dict(sorted(table.items(), key=lambda kv: (kv[0] == "all", kv[0])))


def _test_weights(rec: dict, item: dict) -> tuple[float, float]:
    """(weight passed, weight of the item's cases): a page whose cases never ran (an answer with no
    page in it) fails all of them rather than leaving the pass rate."""
    ran = rec.get("tests") or []
    if ran:
        return sum(t["weight"] for t in ran if t["passed"]), sum(t["weight"] for t in ran)
    return 0.0, float(sum(c.get("weight", 1) for c in item.get("test_cases") or []))


def render_table(reports: dict[str, dict[str, dict]]) -> str:
    """A markdown table: one row per checkpoint and family."""
    lines = ["| checkpoint | family | items | mean score | test pass rate | Low | Mid | High | unscored |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for label, table in reports.items():
        for family, r in table.items():
            b = r["bands"]
            lines.append(f"| {label} | {family} | {r['items']} | {r['mean_score']} | {r['pass_rate']} | "
                         f"{b['Low']} | {b['Mid']} | {b['High']} | {b['unscored']} |")
    return "\n".join(lines) + "\n"


def evaluate_checkpoint(ckpt: Checkpoint, items: dict[str, dict], out: Path, cfg: EvalConfig, *, backend: str,
                        max_new_tokens: int, api_base: str | None = None, workers: int = 1, client=None) -> dict:
    """Generate, evaluate, tabulate into OUT (answers.jsonl, eval/, report.json); returns the report."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}: one of {', '.join(BACKENDS)}")
    if not items:
        raise ValueError("no benchmark items to evaluate on")
    out.mkdir(parents=True, exist_ok=True)
    if backend == "transformers":
        answers = generate_transformers(ckpt, items, out, max_new_tokens)
    else:
        answers = generate_openai(ckpt, items, out, max_new_tokens, api_base=api_base, client=client)
    summary = run_evaluation(iter_responses(answers), items, cfg, out / "eval", workers=workers)
    records = list(iter_records(out / "eval" / "results.jsonl"))
    report = {"checkpoint": ckpt.label, "model": ckpt.model, "run_id": ckpt.run_id, "backend": backend,
              "system_prompt": ckpt.system_prompt, "max_new_tokens": max_new_tokens, "evaluator_config": cfg.config_hash(),
              "pages_by_status": summary["pages_by_status"], "families": family_table(records, items)}
    CheckpointReport.model_validate(report)  # the file's contract (checkpoint_report.schema.json)
    write_json_atomic(out / "report.json", report)
    return report


def write_comparison(reports: list[dict], out: Path) -> str:
    text = render_table({r["checkpoint"]: r["families"] for r in reports})
    write_text_atomic(out / "report.md", text)
    return text


def compare_checkpoints(checkpoints: list[Checkpoint], items: dict[str, dict], out: Path, cfg: EvalConfig, *,
                        backend: str, max_new_tokens: int, api_base: str | None = None,
                        workers: int = 1) -> tuple[list[dict], str]:
    """Each checkpoint into OUT/NN-LABEL/, then OUT/report.md; labels are numbered, so two runs of
    one route and preset stay apart."""
    reports = []
    for n, ckpt in enumerate(checkpoints):
        sub = out / f"{n:02d}-{ckpt.label.replace('/', '-')}"
        ckpt = replace(ckpt, label=f"{n}:{ckpt.label}")
        reports.append(evaluate_checkpoint(ckpt, items, sub, cfg, backend=backend, max_new_tokens=max_new_tokens,
                                           api_base=api_base, workers=workers))
    return reports, write_comparison(reports, out)
