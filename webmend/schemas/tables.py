"""The trace tables every stage writes under the data root: one pyarrow schema per table.

Defined once here; `webmend.store` validates every write against these schemas and docs/data-root.md
describes them (`tables.schema.json` beside this module is generated from them, see `render_tables`).
"""

from __future__ import annotations

import json

import pyarrow as pa

from webmend.schemas.repair import MODES, STOP_REASONS, STRATEGIES
from webmend.schemas.vocab import EVALUATION_STATUSES, FAMILIES, PROMPT_KINDS, SCORE_FIELDS, STATES

SCHEMA_VERSION = "2"

# Every row carries these, with one meaning in every table (docs/data-root.md, "Hashes"):
# input_hash: sha256 hex of what the stage was given for the row (a prompt, an input, a page);
# page_hash: sha256 hex of the HTML page the row is about (null where there is none: prompts, a
# generation, an input whose page could not be extracted). A stage's input_hash is the page_hash
# of the stage before it where that stage made a page.
COMMON_FIELDS: list[pa.Field] = [
    pa.field("run_id", pa.string(), nullable=False),
    pa.field("input_hash", pa.string(), nullable=False),
    pa.field("page_hash", pa.string()),
    pa.field("config_hash", pa.string(), nullable=False),
    pa.field("schema_version", pa.string(), nullable=False),
]

# Schema version 1 spelled some of these columns otherwise: {table: {v2 column: v1 column}}. Files
# written before the change are read through this map (DataRoot reads, the DuckDB views).
V1_COLUMNS: dict[str, dict[str, str]] = {
    **{t: {"input_hash": "content_hash"} for t in (
        "prompts", "prompt_rejects", "evaluations", "test_results", "contract_results", "experience_events")},
    "generations": {"input_hash": "prompt_hash", "response_hash": "content_hash"},
    "repair_attempts": {"input_hash": "original_hash", "page_hash": "content_hash"},
    "checkpoints": {"input_hash": "original_hash", "page_hash": "content_hash"},
    "contracts": {"contract_hash": "content_hash"},
    "exports": {"page_hash": "content_hash"},
}

# Intake's closed list of reject reasons (docs/intake.md says what each means).
REJECT_REASONS = ("policy", "duplicate", "near_duplicate", "contaminated", "not_a_web_task",
                  "malformed_input", "length", "rewrite_failed")
EXTRACTION_STATUSES = ("complete", "truncated", "no_html")
GENERATION_STATUSES = ("generated", "refused", "failed", "not_generated")

_TS = pa.timestamp("us", tz="UTC")
_JSON = pa.string()  # JSON text: DuckDB reads it with json functions, pyarrow keeps it opaque


def _schema(*fields: pa.Field) -> pa.Schema:
    return pa.schema([*fields, *COMMON_FIELDS])


def _f(name: str, type_: pa.DataType, nullable: bool = True) -> pa.Field:
    return pa.field(name, type_, nullable=nullable)


_SCORES = [_f(f"score_{d}", pa.float64()) for d in SCORE_FIELDS]
_BLOCKED = pa.list_(pa.struct([_f("url", pa.string()), _f("channel", pa.string()), _f("reason", pa.string())]))
_PROVENANCE = [_f("source", pa.string()), _f("url", pa.string()), _f("file", pa.string())]

TABLES: dict[str, pa.Schema] = {
    # input_hash: sha256 of the prompt text.
    "prompts": _schema(
        _f("id", pa.string(), False), _f("prompt", pa.string(), False), _f("family", pa.string()),
        _f("subtype", pa.string()), _f("interactive", pa.bool_()), _f("family_confidence", pa.float64()),
        *_PROVENANCE, _f("fetched_at", _TS), _f("licence", pa.string()),
        _f("original", pa.string()),  # the raw post before rewriting; null when not rewritten
        _f("kind", pa.string()), _f("family_method", pa.string()),  # PROMPT_KINDS; rules | llm | source
    ),
    # input_hash: sha256 of the prompt text (of the raw post when it has none).
    "prompt_rejects": _schema(
        _f("id", pa.string(), False), _f("prompt", pa.string()), _f("reason", pa.string(), False),
        _f("detail", pa.string()), *_PROVENANCE,
        _f("rule", pa.string()),  # policy rule (reason policy), match kind (contaminated), scope | rewriter
        _f("matched_id", pa.string()),  # the kept prompt or benchmark item it duplicates
        _f("similarity", pa.float64()), _f("benchmark_file", pa.string()), _f("kind", pa.string()),
    ),
    # One row per model call. input_hash: sha256 of the prompt text; response_hash: of the response
    # text (null without one), which is what evaluations.input_hash names when the page is evaluated.
    "generations": _schema(
        _f("id", pa.string(), False),  # sample id: P, or P#k with several samples
        _f("prompt_id", pa.string(), False), _f("sample_index", pa.int32(), False),
        _f("provider", pa.string()), _f("model", pa.string(), False), _f("params", _JSON),
        _f("response_hash", pa.string()), _f("started_at", _TS), _f("finished_at", _TS),
        _f("latency_s", pa.float64()), _f("retries", pa.int32()), _f("safe_demo_retry", pa.bool_()),
        _f("cache_hit", pa.bool_()), _f("finish_reason", pa.string()),
        _f("prompt_tokens", pa.int64()), _f("completion_tokens", pa.int64()), _f("total_tokens", pa.int64()),
        _f("cost_usd", pa.float64()), _f("response", pa.string()),
        _f("extraction_status", pa.string()), _f("error", pa.string()),
        _f("status", pa.string()),  # GENERATION_STATUSES; error says why for failed/not_generated
    ),
    # One row per evaluator result record (results.jsonl). input_hash: sha256 of the input (the raw
    # answer text); page_hash: of the evaluated page (the extracted HTML), which checkpoints name.
    "evaluations": _schema(
        _f("id", pa.string(), False), _f("source", pa.string()), _f("input_index", pa.int64()),
        _f("status", pa.string(), False), _f("reason", pa.string()), _f("flags", pa.list_(pa.string())),
        _f("state", pa.string()), _f("interactive", pa.bool_()), *_SCORES,
        _f("family", pa.string()), _f("subtype", pa.string()), _f("difficulty", pa.string()),
        _f("tests_total", pa.int32()), _f("tests_passed", pa.int32()),
        _f("test_weight_passed", pa.float64()), _f("test_weight_total", pa.float64()),
        _f("blocked_requests", _BLOCKED), _f("blocked_requests_total", pa.int64()),
        _f("elapsed_s", pa.float64()), _f("encoding", pa.string()),
        _f("result_schema_version", pa.string()), _f("scoring_version", pa.string()),
        _f("chromium_version", pa.string()), _f("playwright_version", pa.string()),
        _f("cdn_mirror_hash", pa.string()), _f("network_isolated", pa.bool_()),
        _f("evidence", _JSON),  # the record's stored evidence: enough to rescore without a browser
        _f("layers", pa.list_(pa.int32())),  # experience-protocol layers that ran (docs/experience.md)
        _f("trace_summary", _JSON),  # the record's trace_summary
        # What export reads (docs/export.md): the prompt the page answers, and the evaluated page.
        _f("prompt_id", pa.string()), _f("prompt", pa.string()), _f("page", pa.string()),
    ),
    # One row per test case run on a page. input_hash, page_hash: its evaluations row's.
    "test_results": _schema(
        _f("id", pa.string(), False), _f("test_index", pa.int32(), False), _f("test_id", pa.string(), False),
        _f("test_name", pa.string()), _f("passed", pa.bool_(), False), _f("weight", pa.float64()),
        _f("failed_step", pa.int32()), _f("failed_action", pa.string()), _f("error", pa.string()),
        _f("page_status", pa.string()), _f("family", pa.string()),
    ),
    # One row per page evaluated with its task's contract (docs/icg-format.md). Hashes: its evaluations row's.
    "contract_results": _schema(
        _f("id", pa.string(), False), _f("task_id", pa.string(), False), _f("contract_hash", pa.string(), False),
        _f("transition_validity", pa.float64()), _f("req_explicit", pa.float64()), _f("req_implicit", pa.float64()),
        _f("reward", pa.float64()),
        _f("labels", _JSON), _f("requirements", _JSON),  # {requirement id: z}, {requirement id: score}
        _f("unmet", _JSON),  # [{id, kind, text}] of the requirements with z = 0
        _f("transitions", pa.list_(pa.struct([_f("id", pa.string()), _f("status", pa.string()),
                                              _f("failed_step", pa.int32()), _f("reason", pa.string())]))),
        _f("passed", pa.int32()), _f("failed", pa.int32()), _f("blocked", pa.int32()),
        _f("documents", pa.int32()), _f("transitions_run", pa.int32()), _f("elapsed_s", pa.float64()),
        _f("error", pa.string()), _f("page_status", pa.string()), _f("family", pa.string()),
    ),
    # The experience trace, one row per event. Hashes: its evaluations row's.
    "experience_events": _schema(
        _f("id", pa.string(), False), _f("seq", pa.int32(), False),
        _f("test_id", pa.string()),  # null for events outside a test case
        _f("layer", pa.string()),  # page, network, test; L1..L4 for experience-protocol events
        _f("step_index", pa.int32()), _f("kind", pa.string(), False), _f("payload", _JSON),
        _f("page_time_ms", pa.float64()),
    ),
    # One row per repair candidate (repairs.jsonl attempts). input_hash: the original page's (what
    # repair was given: evaluations.page_hash); page_hash: the candidate's (null when the candidate
    # never became a page: a malformed answer).
    "repair_attempts": _schema(
        _f("id", pa.string(), False), _f("round", pa.int32(), False), _f("candidate", pa.int32(), False),
        _f("parent_hash", pa.string()),  # page_hash of the checkpoint that was edited
        _f("original_state", pa.string()),
        _f("strategy", pa.string()), _f("mode", pa.string()),  # STRATEGIES; operator | patch | rewrite
        _f("model", pa.string()),  # the operator(s) or the model that wrote the candidate
        _f("rule", pa.string()), _f("score_before", pa.float64()), _f("score_after", pa.float64()),
        _f("accepted", pa.bool_()), _f("reason", pa.string()), _f("regression", pa.bool_()),
        _f("early_rejected", pa.bool_()), _f("evaluated", pa.bool_()),
        _f("tests_fixed", pa.list_(pa.string())), _f("tests_broken", pa.list_(pa.string())),
        _f("dimensions", _JSON),  # {dimension: {before, after}}
        _f("changes", pa.string()),  # what the candidate changed against its checkpoint (a diff summary)
        _f("terms_moved", _JSON),  # [{dimension, term, before, after}]: the scoring terms that moved
        _f("prompt_tokens", pa.int64()), _f("completion_tokens", pa.int64()), _f("cost_usd", pa.float64()),
        _f("cache_hit", pa.bool_()), _f("eval_s", pa.float64()),
        _f("html", pa.string()),  # the candidate's page, kept only when it was rejected for a regression
    ),
    # One row per verified checkpoint of a page, round 0 (the original) included. input_hash: the
    # original page's; page_hash: the checkpoint's. is_best marks the exported one.
    "checkpoints": _schema(
        _f("id", pa.string(), False), _f("round", pa.int32(), False), _f("parent_hash", pa.string()),
        _f("original_score", pa.float64()), _f("original_state", pa.string()),
        _f("score_total", pa.float64()), _f("state", pa.string()), _f("is_best", pa.bool_()),
        _f("rounds", pa.int32()), _f("stop_reason", pa.string()), _f("html", pa.string()),
        _f("status", pa.string()), _f("flags", pa.list_(pa.string())),  # the checkpoint's verified evaluation
        _f("contract_reward", pa.float64()), _f("contract_labels", _JSON),  # its contract's r_web and z, when any
        _f("unpassable_tests", pa.list_(pa.string())),  # its failed test cases no correct page can pass
        _f("repair_elapsed_s", pa.float64()),  # the page's whole repair (every round), on each of its rows
    ),
    # One interaction contract per task, as built by the pipeline's contract stage (docs/icg-format.md).
    # input_hash: sha256 of the task's prompt; contract_hash: schemas.contract.contract_hash, which
    # contract_results rows name.
    "contracts": _schema(
        _f("id", pa.string(), False), _f("prompt_id", pa.string()), _f("contract_hash", pa.string()),
        _f("contract", _JSON),
        _f("states", pa.int32()), _f("transitions", pa.int32()), _f("assertions", pa.int32()),
        _f("requirements_explicit", pa.int32()), _f("requirements_implicit", pa.int32()),
    ),
    # One row per exported training example (docs/export.md), written when a version is published:
    # run_id is the export version, config_hash the export config's, input_hash the prompt's, page_hash
    # the exported page's.
    # The page itself lives in the export's files: response is left null.
    "exports": _schema(
        _f("id", pa.string(), False), _f("prompt_id", pa.string()), _f("dataset", pa.string()),
        _f("format", pa.string()), _f("split", pa.string()), _f("route", pa.string()),  # raw|filtered|refined
        _f("score_total", pa.float64()), _f("state", pa.string()),
        _f("prompt", pa.string()), _f("response", pa.string()),
    ),
}

# Closed value lists checked on write (null passes where the column is nullable).
ALLOWED_VALUES: dict[tuple[str, str], tuple[str, ...]] = {
    ("prompts", "family"): FAMILIES,
    ("prompt_rejects", "reason"): REJECT_REASONS,
    ("prompts", "kind"): PROMPT_KINDS,
    ("prompt_rejects", "kind"): PROMPT_KINDS,
    ("generations", "extraction_status"): EXTRACTION_STATUSES,
    ("generations", "status"): GENERATION_STATUSES,
    ("evaluations", "status"): EVALUATION_STATUSES,
    ("evaluations", "state"): STATES,
    ("checkpoints", "status"): EVALUATION_STATUSES,
    ("test_results", "page_status"): EVALUATION_STATUSES,
    ("repair_attempts", "strategy"): STRATEGIES,
    ("repair_attempts", "mode"): MODES,
    ("repair_attempts", "original_state"): STATES,
    ("checkpoints", "state"): STATES,
    ("checkpoints", "original_state"): STATES,
    ("checkpoints", "stop_reason"): STOP_REASONS,
}


def render_tables() -> str:
    """The table schemas as JSON (for documentation; a test keeps tables.schema.json current)."""
    doc = {
        "schema_version": SCHEMA_VERSION,
        "tables": {
            name: [{"name": f.name, "type": str(f.type), "nullable": f.nullable} for f in schema]
            for name, schema in TABLES.items()
        },
        "allowed_values": {f"{t}.{c}": list(v) for (t, c), v in ALLOWED_VALUES.items()},
    }
    return json.dumps(doc, indent=2) + "\n"
