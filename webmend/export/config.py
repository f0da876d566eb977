"""Export configuration: every rule that decides which page becomes a training row (docs/export.md).

Thresholds live here, not in code, and the config hash is part of the export's version, so an
export names the rules it was made under.
"""

from __future__ import annotations

from pydantic import Field

from webmend.config import Frozen, load_model_config, model_hash
from webmend.intake.config import DecontamSettings, DedupSettings
from webmend.schemas.corpus import FORMATS, ROUTES

# The system turn every row carries. LlamaFactory's `qwen` template inserts its own default system
# prompt into a row that has none, so the export always writes one and the SFT preset uses it.
DEFAULT_SYSTEM = ("You are an expert front-end engineer. Answer with one complete, self-contained HTML "
                  "document (inline CSS and JavaScript) that does everything the request asks.")


class Gate(Frozen):
    """What a page must show to enter the refined route (the hygiene rules bind every route)."""

    min_score: float = Field(default=80.0, ge=0, le=100, description="refined: verified total at least this")
    status: str = "ok"  # every route: the exported page's evaluation status
    forbidden_flags: tuple[str, ...] = ("tampering",)  # every route
    one_per_prompt: tuple[str, ...] = ("refined",)  # routes that keep only the best page of a prompt
    benchmarks: tuple[str, ...] = ()  # benchmark files for the decontamination re-check (every route)
    dedup: DedupSettings = DedupSettings()  # the intake's normal form and signatures ...
    decontam: DecontamSettings = DecontamSettings()  # ... and its exact / near / 13-gram rules


class Shares(Frozen):
    """Bounds on each family's share of a route's rows, checked by the gate (docs/export.md)."""

    min: float = Field(default=0.0, ge=0, le=1)
    max: float = Field(default=1.0, ge=0, le=1)


class ExportConfig(Frozen):
    routes: tuple[str, ...] = ROUTES
    formats: tuple[str, ...] = FORMATS  # the preference pairs come with the refined route
    system_prompt: str = DEFAULT_SYSTEM
    gate: Gate = Gate()
    family_shares: Shares = Shares()
    equal_size: int | None = Field(default=None, ge=1, description="N rows per route, stratified by family")
    seed: int = 0  # equal-size sampling
    rows_per_file: int = Field(default=5_000, ge=1, description="rows per Parquet part (the writer buffers 256 at a time)")
    dataset_prefix: str = "webmend"  # dataset_info.json names: PREFIX_ROUTE_FORMAT

    def config_hash(self) -> str:
        return model_hash(self)

    def check(self) -> "ExportConfig":
        if not self.routes or not self.formats:
            raise ValueError("no routes or no formats to export")
        unknown = [r for r in self.routes if r not in ROUTES] + [f for f in self.formats if f not in FORMATS]
        if unknown:
            raise ValueError(f"unknown routes or formats: {unknown} (routes: {ROUTES}, formats: {FORMATS})")
        if self.family_shares.min > self.family_shares.max:
            raise ValueError("family_shares.min is above family_shares.max")
        return self


def load_export_config(path: str | None, **overrides) -> ExportConfig:
    cfg = load_model_config(path, ExportConfig)
    if overrides:
        cfg = ExportConfig.model_validate({**cfg.model_dump(), **{k: v for k, v in overrides.items() if v is not None}})
    return cfg.check()
