"""The export manifest: the contract a training job reads (docs/export.md). `manifest.schema.json`
beside this module is generated from these models (python -m webmend.schemas.export)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

MANIFEST_VERSION = "2"  # 2: the corpus files name the exported page's sha256 page_hash (was content_hash)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ExportFile(_Model):
    path: str = Field(description="relative to the manifest's folder")
    dataset: str = Field(description="dataset_info.json name; for the other files their stem (rejects, dataset_info, gate)")
    route: str
    format: str
    rows: int
    bytes: int
    sha256: str


class Dataset(_Model):
    route: str
    format: str
    rows: int
    files: list[str]


class Distribution(_Model):
    count: int
    quantiles: dict[str, float] = Field(description="q0, q10, q25, q50, q75, q90, q100")
    histogram: list[int] = Field(description="rows per 10-point bin: [0,10), ..., [90,100]")


class RouteScores(_Model):
    before: Distribution = Field(description="the exported rows' totals before repair")
    after: Distribution = Field(description="their exported (verified) totals")


class Lineage(_Model):
    previous: str | None = Field(description="the export version this one extends (the folder's latest before it)")
    added: int = Field(description="rows (route, id, page) not in the previous version")
    removed: int


class Manifest(_Model):
    manifest_version: str = MANIFEST_VERSION
    export_version: str = Field(description="v-HASH: from the export config and the exported rows")
    created_at: str
    code_version: str
    config_hashes: dict[str, list[str]] = Field(description="evaluation, repair (as recorded on the rows), export")
    source_runs: dict[str, int] = Field(description="run id -> pages read from it (evaluation runs: originals; repair runs: best checkpoints)")
    routes: list[str]
    system_prompt: str
    files: list[ExportFile]
    datasets: dict[str, Dataset]
    dataset_info: str = Field(description="LlamaFactory dataset_info.json, relative path")
    benchmarks: list[dict] = Field(description="benchmark files of the decontamination re-check: path, bytes, sha256")
    rejects: dict = Field(description="file (relative path) and counts by route and reason")
    funnel: dict = Field(description="per family and `all`: prompts, valid_raw, traced, original_band, repaired, passed_gate, exported")
    scores: dict[str, RouteScores]
    gate: dict = Field(description="the Great Expectations result: success, docs, per-dataset expectations")
    lineage: Lineage
