"""The exported SFT corpus: one pyarrow schema per file format, the routes, and the tags
LlamaFactory reads them with (docs/export.md). Defined once; the export writer, its gate, the
manifest and the tests import them from here."""

from __future__ import annotations

import pyarrow as pa

ROUTES = ("raw", "filtered", "refined")
SFT_FORMATS = ("sharegpt", "alpaca")
PREFERENCE = "preference"  # pairs from the repair traces, LlamaFactory's `ranking: true` sharegpt
FORMATS = (*SFT_FORMATS, PREFERENCE)

# Message roles as LlamaFactory's sharegpt converter reads them (dataset_info `tags`).
SHAREGPT_TAGS = {"role_tag": "role", "content_tag": "content", "user_tag": "user",
                 "assistant_tag": "assistant", "system_tag": "system"}

_MESSAGE = pa.struct([pa.field("role", pa.string(), nullable=False), pa.field("content", pa.string(), nullable=False)])


def _f(name: str, type_: pa.DataType, nullable: bool = True) -> pa.Field:
    return pa.field(name, type_, nullable=nullable)


# Every SFT row carries these beside its conversation.
METADATA_FIELDS = [
    _f("id", pa.string(), False),  # the page id the row came from
    _f("prompt_id", pa.string(), False),
    _f("family", pa.string(), False),  # FAMILIES
    _f("source_run", pa.string(), False),  # run that wrote the exported page's row
    _f("score", pa.float64(), False),  # verified total of the exported page
    _f("original_score", pa.float64()),  # its total before repair (= score when not repaired)
    _f("route", pa.string(), False),  # ROUTES
    _f("page_hash", pa.string(), False),  # sha256 of the exported page
    _f("contract_reward", pa.float64()),  # r_web of the task contract on this page (docs/icg-format.md), when run
    _f("contract_labels", pa.string()),  # its labels z as JSON {requirement id: 0|1}: the RL critic's targets
]

FILE_SCHEMAS: dict[str, pa.Schema] = {
    "sharegpt": pa.schema([_f("messages", pa.list_(_MESSAGE), False), *METADATA_FIELDS]),
    "alpaca": pa.schema([_f("system", pa.string(), False), _f("instruction", pa.string(), False),
                         _f("input", pa.string(), False), _f("output", pa.string(), False), *METADATA_FIELDS]),
    PREFERENCE: pa.schema([
        _f("messages", pa.list_(_MESSAGE), False),  # system + user: the prompt
        _f("chosen", _MESSAGE, False),  # the best verified checkpoint
        _f("rejected", _MESSAGE, False),  # the original page, or a candidate rejected for a regression
        _f("id", pa.string(), False), _f("prompt_id", pa.string(), False), _f("family", pa.string(), False),
        _f("source_run", pa.string(), False), _f("chosen_score", pa.float64(), False),
        _f("rejected_score", pa.float64()),  # null: a regression caught early, before a total
        _f("rejected_kind", pa.string(), False),  # original | regression
        _f("chosen_hash", pa.string(), False), _f("rejected_hash", pa.string(), False),
    ]),
}

# dataset_info.json `columns` per format (LlamaFactory's DatasetAttr names -> our columns).
DATASET_COLUMNS = {
    "sharegpt": {"messages": "messages"},
    "alpaca": {"prompt": "instruction", "query": "input", "response": "output", "system": "system"},
    PREFERENCE: {"messages": "messages", "chosen": "chosen", "rejected": "rejected"},
}

# Why a page did not reach a route (closed list; docs/export.md says what each means).
EXPORT_REJECT_REASONS = (
    "no_score", "status", "flag", "no_prompt", "no_page", "incomplete_document", "contaminated",
    "below_gate", "not_best_for_prompt", "not_sampled", "unknown_family", "not_high", "not_traced",
    "superseded",
)
# rejects.parquet: one row per (route, page) that did not reach the route, with its reason.
REJECTS_SCHEMA = pa.schema([_f(name, pa.string()) for name in ("route", "id", "page_hash", "reason", "detail")])
