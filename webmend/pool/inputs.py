"""build-refined-pool from prompts: intake, then generation, ending in a responses file the
evaluation stages read as they read any ready corpus. No Prefect here; webmend/flows/tasks.py wraps it.

Both stages are keyed by content, so a rerun with the same inputs does no repeated work:
- intake writes `prompts/KEY` and `prompt_rejects/KEY` under the data root (KEY from the intake run
  id, as `webmend prompts --data-root` keys them) and skips both when they are committed; its
  rewrite/classifier answers are cached under `ROOT/cache/intake`;
- generation writes `ROOT/responses/GKEY/responses.jsonl` (+ `summary.json`) and the generations
  table, GKEY from the generation config and the kept prompts; a committed, unstopped GKEY is not
  generated again, and the response cache under `ROOT/cache/generate` makes every answered call free.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from webmend.evaluate.inputs import load_items
from webmend.generate.prompts import PromptIn
from webmend.intake.config import IntakeConfig, load_intake_config
from webmend.intake.output import kept_row, make_run_id, reject_row
from webmend.intake.pipeline import Intake, IntakeResult, run_intake
from webmend.llm.settings import GenerationSettings
from webmend.schemas.hashing import sha256_hex
from webmend.store import DataRoot, layout, make_key

log = logging.getLogger(__name__)



@dataclass(frozen=True)
class IntakeOutcome:
    key: str  # file key of prompts/ and prompt_rejects/
    run_id: str
    prompts: tuple[PromptIn, ...]  # kept prompts, input order
    rejected: int
    written: bool  # False when both tables were already committed


@dataclass(frozen=True)
class GenerationOutcome:
    key: str
    responses: str  # local path of responses.jsonl
    summary: dict
    generated: bool  # False when a committed run was reused


def local_root(data_root: str) -> DataRoot:
    """Generation writes files the evaluator reads by path: the prompt stages need a local root."""
    root = DataRoot(data_root)
    if not root.local:
        raise ValueError(f"prompts need a local data root (got {data_root}): responses are read from disk")
    return root


def file_hash(path: str | Path) -> str:
    return sha256_hex(Path(path).read_bytes())


def intake_run_id(result: IntakeResult, cfg: IntakeConfig, benchmarks: Sequence[str],
                  models: Sequence[str] = ()) -> str:
    """The intake's own run id. Benchmark files and the rewrite/classifier models change what is
    kept, so they join it when given (without them it is `webmend prompts`' run id)."""
    if not benchmarks and not models:
        return make_run_id(result, cfg)
    return "intake-" + make_key("intake", result.inputs_hash, cfg.config_hash(), *map(file_hash, benchmarks),
                                *models)[:16]


def intake_models(rewrite_model: str | None, classify_model: str | None) -> tuple[str, ...]:
    return tuple(f"{role}={m}" for role, m in (("rewrite", rewrite_model), ("classify", classify_model)) if m)


def intake_stage(data_root: str, inputs: Sequence[str], benchmarks: Sequence[str] = (),
                 config: str | None = None, rewrite_model: str | None = None, classify_model: str | None = None,
                 settings: GenerationSettings | None = None) -> IntakeOutcome:
    """Run intake and commit its tables once. rewrite_model / classify_model: litellm models for
    the rewrite of forum posts, the policy question and unsure family labels, bound by `settings`' rate limits,
    timeout and retries (not its spend cap); their answers are cached under ROOT/cache/intake."""
    from webmend.intake.decontam import Decontaminator, load_benchmarks
    from webmend.intake.sources import iter_sources

    for path in inputs:
        if not Path(path).is_file():
            raise FileNotFoundError(f"prompts file {path}: no such file")
    cfg = load_intake_config(config)
    root = local_root(data_root)
    decontaminator = Decontaminator(load_benchmarks(benchmarks), cfg.dedup, cfg.decontam) if benchmarks else None
    llm = _intake_llm(layout.local_dir(root, layout.cache_path("intake")), settings or GenerationSettings())
    classifier = llm(classify_model)  # also asked the policy question (docs/intake.md)
    intake = Intake(cfg, decontaminator=decontaminator, rewrite=llm(rewrite_model), classify_llm=classifier,
                    policy_llm=classifier)
    result = run_intake(iter_sources(inputs), intake)
    run_id = intake_run_id(result, cfg, benchmarks, intake_models(rewrite_model, classify_model))
    key = make_key("intake", run_id)
    done = root.exists("prompts", key) and root.exists("prompt_rejects", key)
    if not done:
        chash = cfg.config_hash()
        # prompts last: like evaluations for a batch, it marks the stage done.
        root.write("prompt_rejects", [reject_row(r, run_id, chash) for r in result.rejects], key=key)
        root.write("prompts", [kept_row(k, run_id, chash) for k in result.kept], key=key)
    prompts = tuple(PromptIn(k.id, k.prompt) for k in result.kept)
    log.info("intake %s: %d kept, %d rejected%s", key, len(prompts), len(result.rejects),
             " (committed before)" if done else "")
    return IntakeOutcome(key, run_id, prompts, len(result.rejects), not done)


def _intake_llm(cache_dir: Path, settings: GenerationSettings):
    """model -> cached complete(messages) callable, or None without a model. The rewriter and the
    classifier share one set of per-provider limits."""
    shared = []

    def build(model: str | None):
        if not model:
            return None
        from webmend.llm.cache import ResponseCache
        from webmend.llm.complete import litellm_complete

        if not shared:
            shared.append(settings.limiters())
        client = settings.client(model, spend_cap=False, limiters=shared[0])
        return litellm_complete(model, client=client, cache=ResponseCache(cache_dir))
    return build


def generation_key(prompts: Sequence[PromptIn], config_hash: str) -> str:
    return make_key("generate", config_hash, *(f"{p.id}:{p.hash}" for p in prompts))


def generation_done(out_dir: Path) -> dict | None:
    """The summary of a committed generation that was not stopped (spend cap, auth), else None."""
    responses, summary = out_dir / "responses.jsonl", out_dir / "summary.json"
    if not (responses.is_file() and summary.is_file()):
        return None
    saved = json.loads(summary.read_text(encoding="utf-8"))
    return saved if not saved.get("stopped") else None


def generation_stage(data_root: str, prompts: Sequence[PromptIn], model: str, samples: int = 1,
                     temperatures: Sequence[float] | None = None, settings: GenerationSettings | None = None,
                     replace: bool = False) -> GenerationOutcome:
    """Generate every sample of the kept prompts through litellm (provider settings from the
    environment; limits, spend cap, max_tokens and seed from `settings`), unless this exact
    generation is committed already."""
    from webmend.generate.samples import GenerationConfig

    settings = settings or GenerationSettings()
    root = local_root(data_root)
    cfg = GenerationConfig.from_settings(model, settings, samples, temperatures)
    key = generation_key(prompts, cfg.config_hash())
    out = layout.local_dir(root, layout.RESPONSES) / key
    saved = None if replace else generation_done(out)
    if saved is not None:
        log.info("generation %s committed before: no calls", key)
        return GenerationOutcome(key, str(out / "responses.jsonl"), saved, False)
    # litellm takes seconds to import: only a generation that has work to do pays for it.
    from webmend.generate.run import run_generation
    from webmend.llm.cache import ResponseCache

    summary = run_generation(list(prompts), cfg, settings.client(model), out,
                             cache=ResponseCache(layout.local_dir(root, layout.cache_path("generate"))), data_root=root,
                             run_id="gen-" + key[:12], workers=settings.workers)
    return GenerationOutcome(key, summary["responses"], summary, True)


def items_from_prompts(inputs: Sequence[str]) -> str | None:
    """The first prompt file holding HTMLBench items with test cases, so generated pages keep them."""
    for path in inputs:
        if Path(path).suffix.lower() != ".jsonl":
            continue
        try:
            items = load_items(path)
        except (ValueError, OSError):
            continue  # a forum dump or prompt list, not items
        if any(item.get("test_cases") for item in items.values()):
            return str(path)
    return None
