"""The evaluator's output contract: results.jsonl records and summary.json.

Defined once here as pydantic models; the JSON Schema files beside this module are generated
from them (`python -m webmend.schemas.export`) and tests check that they match.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from webmend.schemas.experience import KeyframeRef, TraceSummary
from webmend.schemas.vocab import EVALUATION_STATUSES, STATES

SCHEMA_VERSION = "1.1"  # 1.1: layers, keyframes, trace_summary (experience protocol)

# Closed list of statuses. Rejects (no score): empty .. error. Scored: ok, hang, crashed, resource_limit.
Status = Literal[EVALUATION_STATUSES]

Flag = Literal[
    "truncated", "fragment", "fenced", "prose_around", "think_block", "multiple_documents",
    "separate_assets", "assets_inlined", "decoded", "tampering", "console_flood", "dialogs", "popups_blocked",
    "downloads_blocked", "service_worker_blocked", "network_blocked", "navigation_blocked",
    "reload_loop", "local_file_blocked", "webrtc_blocked", "workers_blocked", "cdn_miss", "retried", "no_test_item",
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Score(_Model):
    total: float
    rendering: float
    visual_design: float
    functionality: float
    interaction: float | None = Field(description="null for non-interactive prompts")
    code_quality: float


class TestRecord(_Model):
    id: str
    name: str = ""
    passed: bool
    weight: float
    failed_step: int | None = Field(description="0-based index of the first failing step")
    failed_action: str | None = Field(default=None, description="its action, or 'load'")
    error: str | None


class BlockedRequest(_Model):
    url: str = Field(description="scheme, host and path; query strings are never recorded")
    channel: str
    reason: str


class ItemMeta(_Model):
    category: str | None = None
    sub_type: str | None = None
    difficulty: str | None = None
    has_interaction: bool | None = None


class ContractStep(_Model):
    action: str
    ok: bool
    reason: str = Field(default="", description="why the step failed, in full; empty when it ran")


class ContractTransition(_Model):
    status: Literal["passed", "failed", "blocked"]
    failed_step: int | None = Field(description="0-based index of the step that failed")
    reason: str = Field(description="why it failed or was blocked (the first failure); empty when passed")
    reasons: dict[str, str] = Field(default={}, description="every failed assertion (or state predicate) -> why, in full")
    assertions: dict[str, bool | None] = Field(description="assertion id -> verdict; null: not run (judged)")
    steps: list[ContractStep] = Field(default=[], description="each step that ran, in order (a failing one ends the list)")


class ContractResult(_Model):
    """The page's task contract executed on it (docs/icg-format.md, "Execution")."""

    task_id: str
    contract_hash: str = Field(description="sha256 of the contract's canonical JSON")
    transition_validity: float | None = Field(description="T: passed transitions / all")
    req_explicit: float | None = Field(description="Re: mean score of the explicit requirements")
    req_implicit: float | None = Field(description="Ri: mean score of the implicit requirements")
    reward: float | None = Field(description="r_web = 0.5 T + 0.25 Re + 0.25 Ri")
    requirements: dict[str, float] = {}
    labels: dict[str, int] = Field(default={}, description="z: 1 when every check of the requirement passed")
    unmet: list[dict] = Field(default=[], description="{id, kind, text} of each requirement with z = 0")
    transitions: dict[str, ContractTransition] = {}
    initial: dict[str, bool | None] = {}
    initial_reasons: dict[str, str] = {}
    documents: int = 0
    transitions_run: int = 0
    page_faults: list[str] = []
    elapsed_s: float = 0.0
    error: str | None = Field(default=None, description="set when the contract could not be executed (an executor "
                                                       "error, or the page's wall-clock budget ran out: run it "
                                                       "again); scores and labels null or empty")


class PageVerdict(_Model):
    """What evaluating one page decided, as later stages read it back: a result record's verdict
    fields, or the same rebuilt from the page's trace rows (evaluate.traces.page_verdicts)."""

    index: int = Field(description="0-based position of the input")
    id: str
    status: Status
    reason: str
    flags: list[Flag]
    score: Score | None
    state: Literal[STATES] | None
    interactive: bool
    tests: list[TestRecord]
    blocked_requests: list[BlockedRequest]
    config_hash: str
    keyframes: list[KeyframeRef] = []
    trace_summary: TraceSummary | None = None
    evidence: dict | None = Field(description="stored evidence; enough to rescore without a browser")
    contract: ContractResult | None = Field(default=None, description="the task contract's result (--contracts)")

    @classmethod
    def of(cls, record: dict) -> PageVerdict:
        """The verdict of a result record (results.jsonl), validated; the record's other fields left out."""
        return cls.model_validate({k: record[k] for k in cls.model_fields if k in record})


class ResultRecord(PageVerdict):
    """One results.jsonl record: the page's verdict and how it was reached."""

    schema_version: str = SCHEMA_VERSION
    scoring_version: str
    source: str
    item: ItemMeta | None
    blocked_requests_total: int
    elapsed_s: float
    encoding: str | None = None
    chromium_version: str | None
    playwright_version: str
    cdn_mirror_hash: str | None
    network_isolated: bool | None = Field(description="Chromium ran in an empty network namespace")
    chromium_sandbox: bool | None = Field(
        default=None, description="Chromium ran with its own sandbox, as an unprivileged user (docs/sandbox.md)")
    layers: list[int] = Field(default=[], description="experience-protocol layers that ran (docs/experience.md)")


class PassRate(_Model):
    pages: int
    weight_passed: float
    weight_total: float
    rate: float | None


class Summary(_Model):
    schema_version: str = SCHEMA_VERSION
    scoring_version: str
    config_hash: str
    pages: int
    pages_by_status: dict[str, int]
    pages_by_state: dict[str, int]
    flags: dict[str, int]
    mean_score: float | None
    mean_dimensions: dict[str, float | None]
    weighted_pass_rate: float | None
    pass_rate_by_category: dict[str, PassRate]
    pass_rate_by_difficulty: dict[str, PassRate]
    blocked_requests_total: int
    cdn: dict[str, float | int]
    elapsed_s: float
