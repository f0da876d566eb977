"""build-refined-pool's parameters: one typed, validated settings object per stage. Prefect shows
each as a group of fields with its description and refuses unknown keys and out-of-range values
before a run starts; `python -m webmend.flows.build_refined_pool` builds the same objects from its
flags (`--repair-rounds` is `repair.rounds`). A stage left out (None) does not run.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from webmend.config import Frozen
from webmend.pool.batches import DEFAULT_BATCH_SIZE
from webmend.schemas.corpus import ROUTES
from webmend.schemas.vocab import STATES
from webmend.training.presets import PRESETS

Band = Literal[STATES]
Route = Literal[ROUTES]


class CorpusSettings(Frozen):
    """What is evaluated: pages come first, then answers, indexed in that order."""

    pages: list[str] = Field([], description="HTML files or folders (id = path relative to the folder, no extension)")
    responses: list[str] = Field([], description='JSONL files of raw answers {"id", "prompt"?, "response"}')
    items: str | None = Field(None, description="HTMLBench-format test items (JSONL), matched by id (P#k matches P)")
    contracts: list[str] = Field([], description="task contracts (.json, .jsonl or folders; docs/icg-format.md)")
    benchmark: list[str] = Field([], description="benchmark files whose prompts must not enter the corpus "
                                                 "(intake's decontamination and export's re-check)")


class EvaluationSettings(Frozen):
    config: str | None = Field(None, description="evaluator config file (TOML/JSON, docs/config.md)")
    batch_size: int = Field(DEFAULT_BATCH_SIZE, ge=1, description="pages per Prefect task")
    run_id: str | None = Field(None, description="default: derived from the corpus and config")
    incremental: bool = Field(False, description="evaluate (and repair) only pages not evaluated yet under "
                                                 "`config`, by input hash (the nightly refresh)")


class ClusterSettings(Frozen):
    dask_address: str | None = Field(None, description="scheduler of an existing Dask cluster, e.g. tcp://10.0.0.5:8786")
    n_workers: int | None = Field(None, ge=1, description="processes of the local cluster (default: one per core)")


class PromptSettings(Frozen):
    """Prompts to run through intake and generation; the answers join the corpus's responses."""

    files: list[str] = Field(min_length=1, description="prompt files or folders, as `webmend prompts` takes them")
    model: str = Field(description="litellm model string for generation, e.g. openai/gpt-4o-mini")
    samples: int = Field(1, ge=1, description="samples per prompt and temperature")
    temperatures: list[float] | None = Field(None, description="sample at each (default: the provider's)")
    rewrite_model: str | None = Field(None, description="litellm model that rewrites forum posts into direct requests")
    classify_model: str | None = Field(None, description="litellm model asked when the family rules are unsure")
    intake_config: str | None = Field(None, description="intake config file (TOML/JSON, docs/intake.md)")
    contract_model: str | None = Field(None, description="litellm model that builds contracts for kept prompts "
                                                         "without test cases")


class RepairSettings(Frozen):
    model: str | None = Field(None, description="litellm model that writes patches and rewrites "
                                                "(default: deterministic operators only)")
    rounds: int = Field(8, ge=1, description="rounds per page at most")
    bands: list[Band] | None = Field(None, description="bands to repair (default: all)")
    max_cost: float | None = Field(None, gt=0, description="repair spend cap, USD per Dask worker process")
    config: str | None = Field(None, description="repair config file (TOML/JSON, docs/repair.md); candidates "
                                                 "are evaluated with the evaluation's config")


class ExportSettings(Frozen):
    out: str | None = Field(None, description="export folder or fsspec URL (default DATA_ROOT/corpus)")
    config: str | None = Field(None, description="export config file (TOML/JSON, docs/export.md)")
    routes: list[Route] | None = Field(None, description="routes to export (default: all)")


Preset = Literal[tuple(PRESETS)]


class SftSettings(Frozen):
    """The train flow's SFT (and build-refined-pool's `train`), as `webmend train sft`."""

    route: Route = Field("refined", description="route of the export to train on")
    preset: Preset = Field("tiny", description="SFT preset (docs/training.md)")
    model: str | None = Field(None, description="model_name_or_path instead of the preset's")
    overrides: dict = Field({}, description="LlamaFactory keys, as `webmend train sft --set`")
    out: str | None = Field(None, description="the SFT run folder (default: named from the request); "
                                              "evaluation and RL go under it")
    threads: int | None = Field(None, ge=1, description="OMP_NUM_THREADS of the trainer and the policy worker")


class CheckpointEvalSettings(Frozen):
    """The checkpoint answers benchmark items and the evaluator scores its pages."""

    items: str = Field(description="benchmark items (JSONL, HTMLBench format)")
    backend: Literal["transformers", "openai"] = Field("transformers", description="how the checkpoint answers")
    max_new_tokens: int = Field(4096, ge=1, description="completion token limit per answer")


class RLSettings(Frozen):
    """GRPO from the SFT checkpoint, rewards from the browser (docs/training.md)."""

    tasks: str = Field(description="RL tasks (JSONL)")
    contracts: list[str] = Field([], description="their task contracts (.json, .jsonl or folders)")
    preset: Preset | None = Field(None, description="RL preset (default: the SFT's)")
    overrides: dict = Field({}, description="keys of the RL config, as `webmend train rl --set`")
    updates: int | None = Field(None, ge=1, description="policy updates (default: the preset's)")
    dask_address: str | None = Field(None, description="page rewards on this Dask scheduler's workers")
    dask_workers: int | None = Field(None, ge=1, description="page rewards on a local Dask cluster of this many "
                                                             "workers (default: a local process pool)")
    rollouts: dict = Field({}, description="where samples come from, as `train rl --rollouts` (backend, model, "
                                           "api_base, sync, sync_url, sync_command, concurrency); default the "
                                           "policy worker")
