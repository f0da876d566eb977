"""The repair stage's contracts: the diagnosis D(h) and the repairs.jsonl record (docs/repair.md).

Defined once here as pydantic models; `python -m webmend.schemas.export` writes the JSON Schema
files beside this module and a test keeps them current.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from webmend.schemas.vocab import STATES, UNPASSABLE_RULES, VIEWPORTS

REPAIR_SCHEMA_VERSION = "2"

# Strategy families (htmlcure.txt section 3.3, D.6.3) and how a candidate is written.
STRATEGIES = ("operator", "holistic_rewrite", "feature_completion", "interaction_repair", "game_repair",
              "bug_fix", "visual_enrichment", "high_state_refinement")
MODES = ("operator", "patch", "rewrite")
GAME_LAYERS = ("input", "loop", "canvas", "overlay", "gameplay")
STOP_REASONS = ("target_reached", "patience", "max_rounds", "no_candidates", "not_repaired", "spend_cap",
                "unscored")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FailedTest(_Model):
    id: str
    name: str = ""
    weight: float
    failed_step: int | None
    failed_action: str | None
    error: str | None = Field(description="the runner's message: what it observed (got/expected, counts, text)")
    steps: list = Field(default=[], description="the test case's steps as the item defines them (action and "
                        "arguments), when the item is known: what the check does and reads")
    compared_with: dict | None = Field(default=None, description="a failed screenshot comparison: the capture it "
                                       "compared with (capture_step, label) and the steps run since (between)")


class UnpassableTest(FailedTest):
    """A failed test case no correct page can pass (webmend/evaluate/unpassable.py): not a repair target."""

    rule: Literal[UNPASSABLE_RULES]
    unpassable_step: int
    reason: str


class Control(_Model):
    selector: str
    used: str = Field(default="clicked", description="how the census used it: clicked, dragged sideways and "
                      "dropped, chose another option (a select), typed into")
    label: str = Field(description="visible text of the control, cut to 60 characters")
    wired: bool = Field(description="it has a listener of its own (addEventListener or on*)")


class Controls(_Model):
    total: int
    tested: int
    responsive: int
    dead: list[Control] = Field(description="tested controls that changed nothing")


class GameSignals(_Model):
    detected: bool = Field(description="layer 3 ran (a game or multi-step flow)")
    outcome: str
    start_action: str | None
    loop_stalled: bool
    canvas_blank: bool
    start_overlay: bool = Field(description="the start attempts never got play going")
    no_state_change: bool = Field(description="play changed neither score nor position")
    keys_worked: list[str]
    keyboard_listeners: list[str]


class Requirement(_Model):
    requirement: str
    status: str
    evidence: str = ""


class HistoryEntry(_Model):
    round: int
    strategy: str
    name: str = Field(description="operator name or model")
    accepted: bool
    reason: str
    score_after: float | None
    changes: str | None = Field(default=None, description="what the candidate changed (a diff summary)")
    tests_fixed: list[str] = []
    tests_broken: list[str] = []


class FailedTransition(_Model):
    id: str
    status: Literal["failed", "blocked"]
    failed_step: int | None
    reason: str


class UnmetRequirement(_Model):
    id: str
    kind: Literal["explicit", "implicit"] | None
    text: str
    score: float


class Diagnosis(_Model):
    """D(h): what the controller knows about a page, built from its stored evaluation only."""

    id: str
    status: str
    total: float | None
    state: Literal[STATES] | None
    dimensions: dict[str, float | None] = Field(description="points per dimension (DIMENSIONS)")
    shortfall: dict[str, float] = Field(description="share of each dimension's budget not earned")
    limiting_dimension: str | None
    failed_tests: list[FailedTest] = Field(description="failed test cases a page can pass: repair's targets")
    unpassable_tests: list[UnpassableTest] = Field(
        default=[], description="failed test cases no correct page can pass, with the rule and reason: not targets")
    passing_tests: list[str] = Field(description="ids of passing test cases: the preservation set")
    test_names: dict[str, str] = Field(default={}, description="test case id -> its name, from the item")
    passing_steps: dict[str, list] = Field(default={}, description="passing test case id -> its steps, from the "
                                           "item: what a candidate that breaks one must keep doing")
    rendered: bool
    console_errors: list[str]
    page_errors: list[str]
    layout: dict[Literal[VIEWPORTS], dict] = Field(description="findings per viewport, with the overflowing elements")
    controls: Controls
    game: GameSignals
    blocked_requests: list[dict]
    cdn_misses: list[str]
    static: dict = Field(description="static code facts the operators read (doctype, title, lang, meta, libraries)")
    requirements: list[Requirement] = Field(description="the judge's requirement audit, when there was one")
    flags: list[str]
    history: list[HistoryEntry]
    failed_transitions: list[FailedTransition] = Field(
        default=[], description="the task contract's transitions that failed or were blocked (docs/icg-format.md)")
    passing_transitions: list[str] = Field(default=[], description="ids of passing contract transitions: preserved too")
    unmet_requirements: list[UnmetRequirement] = Field(default=[], description="contract requirements with label z = 0")


class DimensionDelta(_Model):
    before: float | None
    after: float | None


class TermMove(_Model):
    """One scoring term (webmend.evaluate.scoring.score_terms) that moved between checkpoint and candidate."""

    dimension: str
    term: str
    before: float | None
    after: float | None


class Attempt(_Model):
    round: int
    candidate: int
    strategy: Literal[STRATEGIES]
    mode: Literal[MODES]
    name: str = Field(description="the operator, or the model that wrote the candidate")
    rule: str = Field(description="the router rule that admitted this strategy")
    page_hash: str | None = Field(description="sha256 of the candidate page; null when the answer never became one")
    accepted: bool
    reason: str = Field(description="why it was accepted or rejected")
    early_rejected: bool = False
    score_before: float | None
    score_after: float | None
    dimensions: dict[str, DimensionDelta]
    tests_fixed: list[str]
    tests_broken: list[str]
    changes: str | None = Field(default=None, description="what the candidate changed against its checkpoint: a "
                                "diff summary (lines added/removed and where), not the page")
    terms_moved: list[TermMove] = Field(default=[], description="the scoring terms (0..1) that moved, per dimension")
    controls_revived: list[str] = Field(default=[], description="dead controls of the checkpoint that now respond")
    controls_died: list[str] = Field(default=[], description="responsive controls of the checkpoint that now do nothing")
    controls_still_dead: list[str] = Field(default=[], description="dead controls of the checkpoint still dead in the candidate")
    visual_feedback: str | None = Field(default=None, description="the judge model's before/after comparison")
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    cache_hit: bool | None = None
    eval_s: float = Field(description="seconds spent evaluating this candidate")


class RouteDecision(_Model):
    round: int
    state: Literal[STATES] | None
    strategies: list[Literal[STRATEGIES]]
    game_layer: Literal[GAME_LAYERS] | None
    rule: str


class CheckpointRef(_Model):
    round: int
    page_hash: str
    parent_hash: str | None
    score: float | None
    state: Literal[STATES] | None
    status: str | None = None  # its evaluation's status and flags (export's gate reads them)
    flags: list[str] = []
    contract_reward: float | None = None  # its task contract's r_web and labels z, when it has one
    contract_labels: dict[str, int] | None = None
    unpassable_tests: list[str] = Field(default=[], description="its failed test cases no correct page can pass")


class RepairRecord(_Model):
    schema_version: str = REPAIR_SCHEMA_VERSION
    index: int
    id: str
    config_hash: str = Field(description="repair config + evaluator config")
    run_hash: str | None = Field(default=None, description="the repair run: config, model and judge; names its "
                                 "trace files and lets a rerun resume (null from repair_page alone)")
    original_hash: str
    final_hash: str
    original_score: float | None
    final_score: float | None
    original_state: Literal[STATES] | None
    final_state: Literal[STATES] | None
    best_round: int = Field(description="round that produced the exported checkpoint (0: the original)")
    rounds: int
    stop_reason: Literal[STOP_REASONS]
    attempts: list[Attempt]
    routes: list[RouteDecision]
    checkpoints: list[CheckpointRef] = Field(description="every verified checkpoint, the original (round 0) first")
    score_path: list[float | None] = Field(description="checkpoint total after each round, round 0 first")
    diagnosis: Diagnosis = Field(description="D(h) of the original page")
    final_diagnosis: Diagnosis | None
    llm_calls: int
    cost_usd: float | None
    page: str | None = Field(description="pages/<file>.html: the best verified checkpoint")
    keyframes_before: list[str] = []
    keyframes_after: list[str] = []
    elapsed_s: float

