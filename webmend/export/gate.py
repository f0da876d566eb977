"""The export gate: Great Expectations validates every written file before a manifest exists.

The gate reads the staged Parquet parts back (what would be published, not what was meant to be
written), one row batch at a time, and keeps a few hundred bytes of facts per row: ids, family,
scores, the prompt and response sizes, the first and last characters of each response, the turn
roles and any benchmark match of the prompt. One GX validation per dataset runs over those facts
(an ephemeral context: no project folder), its data docs go next to the export either way, and
any failed expectation blocks the export. The expectation names below are what the output and
docs/export.md use.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from typing import Callable

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from webmend.export.documents import DOCUMENT_HEAD, DOCUMENT_TAIL, PROMPT_ROLES, SFT_ROLES
from webmend.schemas.corpus import PREFERENCE
from webmend.schemas.vocab import FAMILIES

log = logging.getLogger(__name__)
# GX logs at INFO through its own handlers (a temporary folder per ephemeral context, decorator
# registrations): keep its records at WARNING and up, as the rest of the library logs.
logging.getLogger("great_expectations").setLevel(logging.WARNING)

FACT_CHARS = 256  # start and end of each response the gate reads (documents.py's rules need less)


@dataclass(frozen=True)
class DatasetCheck:
    """One dataset to validate: its files and the bounds its rows must keep."""

    name: str  # dataset_info name, e.g. webmend_refined_sharegpt
    fmt: str
    files: list[str]  # paths under the staging folder
    expected_rows: int  # from the funnel
    min_score: float
    share_bounds: tuple[float, float]


@dataclass
class GateResult:
    success: bool
    datasets: dict[str, list[dict]] = field(default_factory=dict)  # name -> [{expectation, success, ...}]
    docs: str | None = None  # data docs index, relative to the export folder

    def failures(self) -> list[str]:
        return [f"{name}: {e['expectation']} ({e['unexpected_count']} unexpected, e.g. {e['examples']})"
                for name, results in self.datasets.items() for e in results if not e["success"]]

    def as_dict(self) -> dict:
        return {"success": self.success, "docs": self.docs, "datasets": self.datasets}


def facts(fs, path: str, fmt: str, contamination: Callable[[str], str | None]) -> list[dict]:
    """The facts of every row of one part. Responses are cut in Arrow, so no HTML body becomes a
    Python string; prompts (short) do, for the benchmark check."""
    columns = {"alpaca": ["id", "family", "score", "system", "instruction", "output"],
               "sharegpt": ["id", "family", "score", "messages"],
               PREFERENCE: ["id", "family", "chosen_score", "rejected_score", "rejected_hash", "rejected_kind", "messages", "chosen"]}[fmt]
    out = []
    with fs.open(path, "rb") as fh:
        for batch in pq.ParquetFile(fh).iter_batches(batch_size=256, columns=columns):
            out += _batch_facts(batch, fmt, contamination)
    return out


def _cut(texts: pa.Array) -> tuple[list, list, list]:
    """(lengths, first FACT_CHARS, last FACT_CHARS) of a string array, computed in Arrow."""
    return (pc.utf8_length(texts).to_pylist(), pc.utf8_slice_codeunits(texts, 0, FACT_CHARS).to_pylist(),
            pc.utf8_slice_codeunits(texts, -FACT_CHARS).to_pylist())


def _batch_facts(batch, fmt: str, contamination) -> list[dict]:
    ids, families = batch.column("id").to_pylist(), batch.column("family").to_pylist()
    pair_of = batch.column("rejected_hash").to_pylist() if fmt == PREFERENCE else [None] * len(ids)
    kinds = batch.column("rejected_kind").to_pylist() if fmt == PREFERENCE else [None] * len(ids)
    if fmt == "alpaca":
        prompts = batch.column("instruction").to_pylist()
        turns = ["system,user,assistant" if s else "user,assistant" for s in batch.column("system").to_pylist()]
        lengths, heads, tails = _cut(batch.column("output"))
        scores, rejected = batch.column("score").to_pylist(), [None] * len(ids)
    else:
        prompts, turns = _conversation_parts(batch.column("messages"))
        if fmt == PREFERENCE:
            lengths, heads, tails = _cut(pc.struct_field(batch.column("chosen"), "content"))
            scores, rejected = batch.column("chosen_score").to_pylist(), batch.column("rejected_score").to_pylist()
        else:
            lengths, heads, tails = _last_turns(batch.column("messages"))
            scores, rejected = batch.column("score").to_pylist(), [None] * len(ids)
    return [{"id": ids[i], "rejected_hash": pair_of[i], "rejected_kind": kinds[i], "family": families[i], "score": scores[i], "rejected_score": rejected[i],
             "prompt_chars": None if prompts[i] is None else len(prompts[i]), "response_chars": lengths[i],
             "response_head": heads[i], "response_tail": tails[i], "roles": turns[i],
             "benchmark_match": contamination(prompts[i]) if prompts[i] else None} for i in range(len(ids))]


def _conversation_parts(messages: pa.Array) -> tuple[list, list]:
    """Per row: the first user turn's text (None without one) and the comma-joined roles."""
    flat = messages.flatten()
    role_list = flat.field("role").to_pylist()
    texts = pc.if_else(pc.equal(flat.field("role"), "user"), flat.field("content"), pa.scalar(None, pa.string())).to_pylist()
    offsets = messages.offsets.to_pylist()
    prompts, turns = [], []
    for a, b in zip(offsets, offsets[1:]):
        prompts.append(next((texts[k] for k in range(a, b) if role_list[k] == "user"), None))
        turns.append(",".join(role_list[a:b]))
    return prompts, turns


def _last_turns(messages: pa.Array) -> tuple[list, list, list]:
    """_cut of each row's last turn (None for a row without turns)."""
    offsets = messages.offsets.to_pylist()
    lengths, heads, tails = _cut(messages.flatten().field("content"))
    pick = [b - 1 if b > a else None for a, b in zip(offsets, offsets[1:])]
    return ([None if k is None else lengths[k] for k in pick], [None if k is None else heads[k] for k in pick],
            [None if k is None else tails[k] for k in pick])


def expectations(check: DatasetCheck) -> list[tuple[str, object]]:
    """(name, GX expectation) pairs of one dataset."""
    import great_expectations.expectations as gxe
    from great_expectations.expectations.row_conditions import Column

    lo, hi = check.share_bounds
    unique = (gxe.ExpectCompoundColumnsToBeUnique(column_list=["id", "rejected_hash"]) if check.fmt == PREFERENCE
              else gxe.ExpectColumnValuesToBeUnique(column="id"))  # a page may pair with several rejected pages
    out = [
        ("ids_unique", unique),
        ("prompt_present", gxe.ExpectColumnValuesToNotBeNull(column="prompt_chars")),
        ("prompt_not_empty", gxe.ExpectColumnValuesToBeBetween(column="prompt_chars", min_value=1)),
        ("response_present", gxe.ExpectColumnValuesToNotBeNull(column="response_chars")),
        ("document_starts_html", gxe.ExpectColumnValuesToMatchRegex(column="response_head", regex=DOCUMENT_HEAD)),
        ("document_ends_html", gxe.ExpectColumnValuesToMatchRegex(column="response_tail", regex=DOCUMENT_TAIL)),
        ("score_within_gate", gxe.ExpectColumnValuesToBeBetween(column="score", min_value=check.min_score, max_value=100)),
        ("family_known", gxe.ExpectColumnValuesToBeInSet(column="family", value_set=list(FAMILIES))),
        ("family_share", gxe.ExpectColumnValuesToBeBetween(column="family_share", min_value=lo, max_value=hi)),
        ("no_benchmark_prompt", gxe.ExpectColumnValuesToBeNull(column="benchmark_match")),
        ("rows_match_funnel", gxe.ExpectTableRowCountToEqual(value=check.expected_rows)),
        ("turns_alternate", gxe.ExpectColumnValuesToMatchRegex(
            column="roles", regex=PROMPT_ROLES if check.fmt == PREFERENCE else SFT_ROLES)),
    ]
    if check.fmt == PREFERENCE:
        # Pairs against the original are ranked by total; regression pairs by a broken check.
        out.append(("chosen_beats_rejected", gxe.ExpectColumnPairValuesAToBeGreaterThanB(
            column_A="score", column_B="rejected_score", ignore_row_if="either_value_is_missing",
            row_condition=Column("rejected_kind") == "original")))
    return out


def run_gate(fs, staging: str, checks: list[DatasetCheck], contamination: Callable[[str], str | None],
             docs_dir: str | None) -> GateResult:
    """Validate every dataset; data docs under docs_dir (a local folder) when given."""
    import great_expectations as gx
    import pandas as pd

    context = _context(docs_dir)
    source = context.data_sources.add_pandas("export")
    result = GateResult(success=True)
    for check in checks:
        rows = [f for path in check.files for f in facts(fs, f"{staging}/{path}", check.fmt, contamination)]
        frame = pd.DataFrame(rows, columns=[*_COLUMNS])
        shares = frame["family"].value_counts(normalize=True) if len(frame) else {}
        frame["family_share"] = [float(shares[f]) if f in shares else None for f in frame["family"]]
        named = expectations(check)
        suite = context.suites.add(gx.ExpectationSuite(name=check.name))
        for name, expectation in named:
            expectation.meta = {"webmend_name": name}
            suite.add_expectation(expectation)
        batch = source.add_dataframe_asset(check.name).add_batch_definition_whole_dataframe("all")
        validation = context.validation_definitions.add(gx.ValidationDefinition(name=check.name, data=batch, suite=suite))
        actions = [gx.checkpoint.UpdateDataDocsAction(name="docs", site_names=["export"])] if docs_dir else []
        checkpoint = context.checkpoints.add(gx.Checkpoint(
            name=check.name, validation_definitions=[validation], actions=actions,
            result_format={"result_format": "COMPLETE", "unexpected_index_column_names": ["id"]}))
        run = checkpoint.run(batch_parameters={"dataframe": frame})
        outcome = [_outcome(r) for r in next(iter(run.run_results.values())).results]
        result.datasets[check.name] = outcome
        result.success &= all(o["success"] for o in outcome)
    if docs_dir:
        result.docs = "gate/index.html"
    return result


_COLUMNS = ("id", "rejected_hash", "rejected_kind", "family", "score", "rejected_score", "prompt_chars", "response_chars", "response_head",
            "response_tail", "roles", "benchmark_match")


def _context(docs_dir: str | None):
    import great_expectations as gx

    context = gx.get_context(mode="ephemeral")
    try:  # progress bars belong to the CLI, not to a library validating a file
        context.variables.progress_bars = {"globally": False, "metric_calculations": False}
    except Exception:  # noqa: BLE001 - an older GX without the setting only prints bars
        log.debug("GX progress bars could not be turned off")
    if docs_dir:
        os.makedirs(docs_dir, exist_ok=True)
        context.add_data_docs_site(site_name="export", site_config={
            "class_name": "SiteBuilder", "site_index_builder": {"class_name": "DefaultSiteIndexBuilder"},
            "store_backend": {"class_name": "TupleFilesystemStoreBackend", "base_directory": docs_dir}})
    return context


def _outcome(r) -> dict:
    res = r.result or {}
    ids = [str(i.get("id")) for i in (res.get("partial_unexpected_index_list") or res.get("unexpected_index_list") or [])
           if isinstance(i, dict)][:5]
    examples = ids or [str(v)[:80] for v in (res.get("partial_unexpected_list") or [])[:5]]
    if not examples and "observed_value" in res:
        examples = [str(res["observed_value"])]
    return {"expectation": (r.expectation_config.meta or {}).get("webmend_name", r.expectation_config.type),
            "type": r.expectation_config.type, "column": r.expectation_config.kwargs.get("column"),
            "success": bool(r.success), "unexpected_count": int(res.get("unexpected_count") or 0), "examples": examples}
