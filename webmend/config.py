"""Evaluation configuration: every knob that can change a verdict lives here.

Scoring thresholds are config, not code, so deciding stays separate from measuring.
The config hash names outputs, so two runs with the same inputs and config are comparable.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from types import UnionType
from typing import Literal, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field

from webmend.schemas.hashing import sha256_hex
from webmend.schemas.vocab import STATES

M = TypeVar("M", bound=BaseModel)


class Frozen(BaseModel):
    """Every config section: unknown keys are errors, values never change after loading."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Viewport(Frozen):
    width: int = 1280
    height: int = 720


class Limits(Frozen):
    """Hard per-page limits. Times in ms are page (virtual) time; *_wall_s are safety caps."""

    load_ms: int = 500  # page time run after the load event before the first look
    settle_ms: int = 100  # page time advanced after every action
    max_wait_ms: int = 30_000  # a single `wait` step is clamped to this much page time
    wait_for_poll_ms: int = 100
    page_wall_s: float = 60.0  # whole page wall-clock budget, retries included: this much for the probe ...
    test_wall_s: float = 15.0  # ... plus this much per test case
    gl_wall_factor: float = 2.0  # wall-clock caps (step and page) are this much larger for WebGL pages
    step_wall_s: float = 8.0  # one browser call: hung when its page spent this in CPU seconds on it (browser/step_progress.py)
    # A page's cleanup (stopping its script, closing its context) may run this long past its
    # budget; beyond it the browser is killed and relaunched (docs/sandbox.md: the overshoot).
    overrun_grace_s: float = 15.0
    # A page that hung is evaluated once more (step cap doubled, same page budget) only when the
    # first attempt used at most this share of the budget: a retry must be able to finish.
    hang_retry_max_share: float = 0.5
    js_heap_mb: int = 256  # V8 old-space cap per renderer: a memory bomb crashes its renderer
    max_dom_nodes: int = 60_000
    max_console_messages: int = 200  # stored; the rest are only counted
    max_console_calls: int = 500  # per document; beyond this console calls are dropped in the page
    max_workers: int = 1  # native workers per document (module and shared ones): a busy one may take a core, not both
    max_clock_workers: int = 8  # classic dedicated workers per document, run on the page clock in the page's thread
    max_popups: int = 20
    max_reloads: int = 3


class Sandbox(Frozen):
    netns: Literal["auto", "on", "off"] = "auto"  # run Chromium in an empty network namespace
    # Chromium's own sandbox (seccomp-bpf + namespaces per renderer). As root it only runs as an
    # unprivileged user: "auto" drops to `unprivileged_uid` when the OS allows it, "on" insists.
    chromium_sandbox: Literal["auto", "on", "off"] = "auto"
    unprivileged_uid: int = 65534  # nobody
    seed: int = 1234
    timezone: str = "UTC"
    locale: str = "en-US"
    start_time_ms: int = 1_767_225_600_000  # 2026-01-01T00:00:00Z: page clocks start here


class Bands(Frozen):
    low_below: float = 40.0
    high_from: float = 80.0


class Budgets(Frozen):
    """Points per dimension (the HTMLBench 100-point profile)."""

    rendering: float = 10
    visual_design: float = 20
    functionality: float = 55
    interaction: float = 10
    code_quality: float = 5
    functionality_static: float = 65  # non-interactive prompts: interaction budget moves here


class ScoringRules(Frozen):
    """Thresholds the scores apply to evidence (docs/scoring.md)."""

    slow_response_ms: int = 300  # a control whose effect shows later than this is sluggish


class Experience(Frozen):
    """The experience protocol (docs/experience.md): what each layer does and when layer 3 runs.

    Page times are virtual. Measuring lives here; what the evidence is worth lives in scoring.
    """

    tablet_viewport: Viewport = Viewport(width=768, height=1024)
    motion_windows_ms: tuple[int, ...] = (500, 1000, 1500)  # successive looks at an idle page
    keys: tuple[str, ...] = ("ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Space", "Enter", "Escape", "KeyW", "KeyA", "KeyS", "KeyD")
    latency_checks_ms: tuple[int, ...] = (100, 300, 1000)  # after an action, look at these page times
    max_forms: int = 2
    max_canvases: int = 4
    blank_canvas_std: float = 2.0  # a canvas whose pixels vary less than this is blank
    min_readable_px: float = 11.0
    min_contrast: float = 3.0
    unreadable_share: float = 0.2  # text runs below the limits above, as a share, that make text unreadable
    layer3: Literal["auto", "always", "never"] = "auto"
    play_budget_ms: int = 30_000  # page time played in layer 3 at most (it stops at game over) ...
    play_idle_stop_ms: int = 6_000  # ... or after this long when play changed no game state, DOM or position
    multi_step_budget_ms: int = 6_000  # a multi-step UI (not a game) is clicked through this long
    # A game-like page that keeps no score, lives, level or game-over state (an animated scene, a
    # timer, a simulation) has nothing to advance: it is played this long, unless such state shows up.
    scene_budget_ms: int = 6_000
    play_step_ms: int = 200  # one action per step
    start_wait_ms: int = 600  # page time after each start attempt
    max_keyframes: int = 12
    keyframe_slots: dict[int, int] = {1: 4, 2: 4, 3: 4}
    keyframes_in_fast_mode: bool = True


class JudgeConfig(BaseModel):
    """The bounded visual judge: what it sees, decoding, retries, guardrails (docs/judge.md).

    Every threshold the judge applies lives here, so a change shows up in the config hash of a run.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    # What reaches the Analyst.
    max_keyframes: int = Field(default=12, ge=1, description="keyframes sent, in the caller's order")
    max_keyframe_bytes: int = Field(default=4_000_000, description="a larger PNG is skipped, not sent")
    max_text_runs: int = Field(default=200, description="visible text runs sent (first ones)")
    max_text_run_chars: int = Field(default=300, description="each run is cut to this length")
    max_page_text_chars: int = Field(default=6000, description="all visible text together")
    max_annotation_chars: int = 200
    # select_visible_text: text a user cannot read never reaches the judge.
    min_font_px: float = Field(default=11.0, description="smaller text counts as tiny (as in scoring)")
    min_contrast_ratio: float = Field(default=3.0, description="lower contrast counts as unreadable")

    # Decoding and I/O.
    temperature: float = 0.0
    seed: int = 0
    analyst_max_tokens: int = 3000
    scorer_max_tokens: int = 1000
    timeout_s: float = 120.0
    max_retries: int = Field(default=4, description="transient failures (429, 5xx, timeouts) per call")
    reasks: int = Field(default=1, ge=0, le=1, description="re-asks after an unparseable or invalid answer")

    # Guardrails: caps on visual credit, as fractions of the visual-design budget.
    cap_blank_page: float = 0.0
    cap_unstyled: float = 0.3
    cap_blank_canvas: float = 0.4
    cap_overflow_mobile: float = 0.6
    cap_no_viewport: float = 0.7
    # Functionality (only when the caller lets the judge inform it): how far, as a fraction of the
    # functionality budget, the judge may move the probe-based estimate up or down.
    functionality_max_shift: float = 0.2


class JudgeSettings(Frozen):
    """Full mode's visual judge (docs/judge.md). The cache location never changes a verdict, so
    it is left out of the config hash."""

    model: str | None = None  # PROVIDER/MODEL as litellm names it; required for --mode full
    cache_dir: str | None = None  # None: <out>/judge-cache for `webmend evaluate`
    settings: JudgeConfig = JudgeConfig()


class EvalConfig(Frozen):
    mode: Literal["fast", "full"] = "fast"
    profile: Literal["interactive", "static"] = "interactive"  # used when no item says otherwise
    viewport: Viewport = Viewport()
    mobile_viewport: Viewport = Viewport(width=375, height=667)
    limits: Limits = Limits()
    sandbox: Sandbox = Sandbox()
    bands: Bands = Bands()
    budgets: Budgets = Budgets()
    screenshot_change_threshold: float = 0.95
    cdn_dir: str | None = None  # None: WEBMEND_CDN_DIR or ~/.cache/webmend/cdn
    # Library bodies from a mirror server beside Chromium (webmend.cdn.serve) instead of through
    # the request route; same bytes, same evidence. Pays off on very large libraries (plotly).
    cdn_server: bool = True
    virtual_time: bool = True  # off only for the benchmark baseline
    reuse_browser: bool = True  # off only for the benchmark baseline: a browser per page
    # WebGL frames nobody can see are not rendered (clock.js); a page where that changed what
    # could be seen reports it and is evaluated again with this off, so verdicts never depend on it.
    skip_hidden_draws: bool = True
    # The devicePixelRatio that pages in the gl browser (WebGL pages, launch.PROFILES) see. Pages
    # size their WebGL drawing buffers by it, and SwiftShader pays for every pixel of them; CSS
    # layout, the compositor and screenshots stay at 1. 1.0: off (docs/config.md).
    gl_pixel_ratio: float = Field(default=0.5, gt=0, le=1)
    # Test cases whose steps other than assertions (waits, captures, actions) are the same or the
    # first ones of another's run on one shared document instead of one each
    # (evaluate/testcase_share.py); the same records. The name predates shared actions.
    share_observation_documents: bool = True
    # Tabs in which a page's test-case documents run at once (evaluate/testcase_lanes.py): while
    # one waits for a real frame, another's page works. Raster pages only: in the gl browser the
    # tabs queue for the one software GPU process. The same records at any number.
    test_case_lanes: int = Field(default=2, ge=1, le=4)
    min_page_chars: int = 40
    probe_controls: int = Field(default=8, description="controls clicked by the probe when no tests exist")
    experience: Experience = Experience()
    scoring: ScoringRules = ScoringRules()
    judge: JudgeSettings = JudgeSettings()

    def config_hash(self) -> str:
        return model_hash(self, exclude={"judge": {"cache_dir"}})


class RepairConfig(Frozen):
    """The repair loop's knobs (docs/repair.md): routing thresholds come from the evaluator's bands;
    everything else that decides whether a candidate is kept or the loop stops lives here."""

    target: float = Field(default=97.0, description="stop once the checkpoint scores at least this")
    max_rounds: int = Field(default=8, ge=0, le=32)
    candidates_per_round: int = Field(default=2, ge=1, le=2, description="the paper's cap: at most 2")
    patience: int = Field(default=2, ge=1, description="stop after this many rounds in a row without a gain")
    min_gain: float = Field(default=0.5, ge=0, description="a round gains when the checkpoint rises at least this")
    # A candidate is rejected when one of these drops by more than the tolerance (points), even
    # when its total is higher: e.g. a rewrite that trades working functionality for visuals.
    protected_dimensions: tuple[str, ...] = ("rendering", "functionality", "interaction")
    dimension_tolerance: float = Field(default=1.0, ge=0)
    bands: tuple[Literal[STATES], ...] = STATES  # which bands are repaired
    operators: bool = True  # deterministic operators (no LLM, no cost) run before any model
    early_reject: bool = True  # run the preserved test cases first; a failure stops that evaluation
    # The LLM path: decoding, output size and the largest page a prompt carries.
    temperature: float = 0.0
    seed: int = 0
    max_tokens: int = 16_000
    max_prompt_html_chars: int = 120_000
    fuzzy_min_ratio: float = Field(default=0.9, ge=0.5, le=1.0,
                                   description="whitespace-tolerant patch matching: least similarity accepted")
    # Candidates are evaluated with exactly this config; an original evaluated under another one
    # is evaluated again first, so before and after are always comparable.
    evaluation: EvalConfig = EvalConfig()

    def config_hash(self) -> str:
        return model_hash(self, exclude={"evaluation": {"judge": {"cache_dir"}}})


def model_hash(model: BaseModel, exclude: set[str] | dict | None = None) -> str:
    """A stage's config hash: stable across processes, part of output keys."""
    return sha256_hex(json.dumps(model.model_dump(mode="json", exclude=exclude), sort_keys=True))[:16]


def load_model_config(path: str | Path | None, model: type[M]) -> M:
    """Read a TOML or JSON config file; unknown keys are an error, not silently ignored."""
    if path is None:
        return model()
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    return model.model_validate(data)


def load_config(path: str | Path | None) -> EvalConfig:
    return load_model_config(path, EvalConfig)


def add_model_flags(parser, model: type[BaseModel], prefix: str = "", *, flags: dict[str, str] | None = None,
                    one_per_flag: tuple[str, ...] = (), positional: str | None = None) -> None:
    """A settings model's fields as command-line flags: `--PREFIX-FIELD` (or the name in `flags`),
    typed, choices from Literal, help from the field's description. Lists take several values
    (`--bands Low Mid`), or one per flag for the fields in `one_per_flag` (`--responses A --responses B`),
    so a list flag cannot swallow the positional arguments that follow it. Dict fields are the
    caller's; the list field named `positional` takes the positional arguments. argparse reads the
    types here because the models are the one place they are declared."""
    for name, field in model.model_fields.items():
        kind, many = _flag_type(field.annotation)
        if kind is dict:
            continue
        if name == positional:
            parser.add_argument(_flag_dest(model, prefix, name), nargs="*", metavar=name, help=field.description)
            continue
        flag = "--" + (flags or {}).get(name, prefix + name).replace("_", "-")
        options = {"dest": _flag_dest(model, prefix, name), "help": field.description, "default": None}
        if kind is bool:
            parser.add_argument(flag, action="store_true", **options)
            continue
        choices = get_args(kind) if get_origin(kind) is Literal else None
        options.update(type=type(choices[0]) if choices else kind, choices=choices,
                       metavar=None if choices else name.upper())
        if many:
            options.update(action="append") if name in one_per_flag else options.update(action="extend", nargs="+")
        parser.add_argument(flag, **options)


def model_from_flags(args, model: type[M], prefix: str = "", **more) -> M:
    """The model from parsed flags: flags not given keep the model's defaults."""
    given = {name: value for name in model.model_fields
             if _given(value := getattr(args, _flag_dest(model, prefix, name), None))}
    return model.model_validate({**given, **more})


def _given(value) -> bool:
    # `is`, not `in`: 0 == False, and `--samples 0` must reach validation.
    return not (value is None or value is False or value == [])


def _flag_dest(model: type[BaseModel], prefix: str, name: str) -> str:
    return f"{model.__name__}.{prefix}{name}"


def _flag_type(annotation) -> tuple[object, bool]:
    """(item type, is a list) of a field: Optional unwrapped, list/tuple of T -> (T, True)."""
    args = [a for a in get_args(annotation) if a is not type(None)]
    if get_origin(annotation) in (Union, UnionType) and len(args) == 1:
        return _flag_type(args[0])
    if get_origin(annotation) in (list, tuple):
        return get_args(annotation)[0], True
    if get_origin(annotation) is dict or annotation is dict:
        return dict, False
    return annotation, False
