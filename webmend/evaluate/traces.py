"""Evaluator result records (results.jsonl) -> rows of the evaluations, test_results,
contract_results and experience_events trace tables, and writing them to a data root.

The conversion is pure; the writers are `write_evaluation_traces` (one batch of records, keyed by
its pages), `write_keyed` (one batch under a planned key: build-refined-pool) and
`write_results_traces` (a whole `webmend evaluate` run, in the flow's batches and keys). The row
layout is TABLES in webmend/schemas/tables.py (docs/data-root.md).
"""

from __future__ import annotations

import itertools
import json
from typing import Iterable, Mapping, Sequence

from webmend.schemas.hashing import sha256_hex
from webmend.schemas.results import PageVerdict
from webmend.schemas.vocab import SCORE_FIELDS
from webmend.stage.batches import chunk_keys as stage_chunk_keys
from webmend.stage.spec import StageSpec
from webmend.store import DataRoot, make_key

STAGE = "evaluate"
DEFAULT_BATCH_SIZE = 4  # pages per trace file (and per flow task)
_DIMENSIONS = SCORE_FIELDS
# Written in this order: evaluations last, so a committed evaluations file means the batch is complete.
TRACE_TABLES = ("test_results", "contract_results", "experience_events", "evaluations")  # evaluations last: the commit
SPEC = StageSpec(STAGE, "run every page in Chromium: probe, test cases, contract, scores", writes=TRACE_TABLES)


def record_input_hash(record: dict, input_hashes: Mapping[str, str] | None = None) -> str:
    """The input's hash: the record's own, else from the caller's id -> hash map (the flow has the inputs).

    Without it the record does not hold the page, so the hash falls back to the input's identity
    (id and source): stable across reruns, but not a hash of the content.
    """
    if record.get("input_hash"):
        return record["input_hash"]
    if input_hashes and record["id"] in input_hashes:
        return input_hashes[record["id"]]
    return sha256_hex(f"{record['id']}\x1f{record['source']}")


def evaluation_row(record: dict, *, run_id: str, input_hash: str, config_hash: str | None = None) -> dict:
    """One evaluations row from one result record."""
    score = record.get("score") or {}
    item = record.get("item") or {}
    tests = record.get("tests") or []
    return {
        "id": record["id"], "source": record["source"], "input_index": record["index"],
        "status": record["status"], "reason": record["reason"], "flags": list(record["flags"]),
        "state": record["state"], "interactive": record["interactive"],
        **{f"score_{d}": score.get(d) for d in _DIMENSIONS},
        "family": item.get("category"), "subtype": item.get("sub_type"), "difficulty": item.get("difficulty"),
        "tests_total": len(tests), "tests_passed": sum(1 for t in tests if t["passed"]),
        "test_weight_passed": float(sum(t["weight"] for t in tests if t["passed"])),
        "test_weight_total": float(sum(t["weight"] for t in tests)),
        "blocked_requests": [dict(b) for b in record["blocked_requests"]],
        "blocked_requests_total": record["blocked_requests_total"],
        "elapsed_s": record["elapsed_s"], "encoding": record.get("encoding"),
        "result_schema_version": record["schema_version"], "scoring_version": record["scoring_version"],
        "chromium_version": record["chromium_version"], "playwright_version": record["playwright_version"],
        "cdn_mirror_hash": record["cdn_mirror_hash"], "network_isolated": record["network_isolated"],
        "evidence": None if record.get("evidence") is None else json.dumps(record["evidence"], sort_keys=True),
        "layers": list(record.get("layers") or []),
        "trace_summary": None if record.get("trace_summary") is None else json.dumps(record["trace_summary"], sort_keys=True),
        "prompt_id": record.get("prompt_id"), "prompt": record.get("prompt"), "page": record.get("page"),
        **_common(record, run_id, input_hash, config_hash),
    }


def input_fields(raw, item: dict | None, min_chars: int) -> dict:
    """What a record of this input adds to its evaluations row for export: the prompt it answers
    (the response's own, else its test item's), the prompt id (the item's, else the sample id
    without `#k`) and the evaluated page (the extracted HTML; null when extraction failed)."""
    from webmend.extract import extract_page  # memoised: the evaluation extracted the same input

    page = None
    if raw.raw is not None:
        extraction = extract_page(raw.raw, min_chars=min_chars)
        page = extraction.html if extraction.status == "ok" else None
    prompt = raw.prompt or (item or {}).get("prompt")
    prompt_id = str(item["id"]) if item and item.get("id") is not None else raw.id.split("#", 1)[0]
    return {"prompt_id": prompt_id, "prompt": prompt if isinstance(prompt, str) else None, "page": page}


def per_test_rows(record: dict, *, run_id: str, input_hash: str, config_hash: str | None = None) -> list[dict]:
    """One test_results row per test case run on the page, in run order."""
    common = _common(record, run_id, input_hash, config_hash)
    family = (record.get("item") or {}).get("category")
    return [
        {
            "id": record["id"], "test_index": i, "test_id": t["id"], "test_name": t.get("name"),
            "passed": t["passed"], "weight": float(t["weight"]), "failed_step": t.get("failed_step"),
            "failed_action": t.get("failed_action"), "error": t.get("error"),
            "page_status": record["status"], "family": family, **common,
        }
        for i, t in enumerate(record.get("tests") or [])
    ]


def contract_rows(record: dict, *, run_id: str, input_hash: str, config_hash: str | None = None) -> list[dict]:
    """The page's contract result as one contract_results row (none without a contract)."""
    c = record.get("contract")
    if not c:
        return []
    transitions = [{"id": tid, "status": t["status"], "failed_step": t.get("failed_step"), "reason": t.get("reason")}
                   for tid, t in (c.get("transitions") or {}).items()]
    counts = {s: sum(t["status"] == s for t in transitions) for s in ("passed", "failed", "blocked")}
    return [{
        "id": record["id"], "task_id": c["task_id"], "contract_hash": c["contract_hash"],
        **{k: c.get(k) for k in ("transition_validity", "req_explicit", "req_implicit", "reward", "documents",
                                 "transitions_run", "elapsed_s", "error")},
        "labels": json.dumps(c.get("labels") or {}, sort_keys=True),
        "requirements": json.dumps(c.get("requirements") or {}, sort_keys=True),
        "unmet": json.dumps(c.get("unmet") or [], sort_keys=True),
        "transitions": transitions, **counts, "page_status": record["status"],
        "family": (record.get("item") or {}).get("category"), **_common(record, run_id, input_hash, config_hash),
    }]


def event_rows(record: dict, *, run_id: str, input_hash: str, config_hash: str | None = None) -> list[dict]:
    """Everything that happened on a page: page-level events from its evidence (no page time),
    the experience protocol's trace and keyframes (with page time), one event per failed test case.
    """
    events = (record.get("evidence") or {}).get("events") or {}
    found: list[tuple] = []  # test_id, layer, step, kind, payload[, page time]
    for kind, bucket in (("console_error", "console_errors"), ("page_error", "page_errors"),
                         ("refused_local", "refused_local"), ("popup", "popups"), ("hang", "hangs")):
        found += [(None, "page", None, kind, {"text": text}) for text in events.get(bucket) or []]
    found += [(None, "page", None, "dialog", {"type": k, "count": n}) for k, n in (events.get("dialog_kinds") or {}).items()]
    found += [(None, "page", None, "contained", {"what": k, "count": n}) for k, n in (events.get("contained") or {}).items()]
    if events.get("crashes"):
        found.append((None, "page", None, "crash", {"count": events["crashes"]}))
    found += [(None, "network", None, "blocked_request", dict(b)) for b in record.get("blocked_requests") or []]
    found += experience_events(record)
    for t in record.get("tests") or []:
        if not t["passed"]:
            payload = {"action": t.get("failed_action"), "error": t.get("error")}
            found.append((t["id"], "test", t.get("failed_step"), "test_failed", payload))
    common = _common(record, run_id, input_hash, config_hash)
    return [
        {"id": record["id"], "seq": seq, "test_id": ev[0], "layer": ev[1], "step_index": ev[2], "kind": ev[3],
         "payload": json.dumps(ev[4], sort_keys=True), "page_time_ms": ev[5] if len(ev) > 5 else None, **common}
        for seq, ev in enumerate(found)
    ]


def experience_events(record: dict) -> list[tuple]:
    """The experience trace (layer L1..L3, step_index = its position, page time of its document)
    and one `keyframe` event per keyframe (layer L4, payload with the PNG file)."""
    exp = (record.get("evidence") or {}).get("experience") or {}
    out = [
        (None, f"L{e['layer']}", e["i"], e["action"],
         {"doc": e["doc"], "target": e["target"], "change": e["change"], "evidence": e["evidence"]}, float(e["page_ms"]))
        for e in exp.get("trace") or []
    ]
    out += [(None, "L4", k["event"], "keyframe", {"n": k["n"], "file": k.get("file"), "annotation": k["annotation"],
                                                  "layer": k["layer"]}, float(k["page_ms"]))
            for k in record.get("keyframes") or []]
    return out


def trace_rows(records: Iterable[dict], *, run_id: str, config_hash: str | None = None,
               input_hashes: Mapping[str, str] | None = None) -> dict[str, list[dict]]:
    """Rows for each trace table from a batch of result records: {table: rows}."""
    out: dict[str, list[dict]] = {t: [] for t in TRACE_TABLES}
    for record in records:
        kw = {"run_id": run_id, "input_hash": record_input_hash(record, input_hashes), "config_hash": config_hash}
        out["evaluations"].append(evaluation_row(record, **kw))
        out["test_results"] += per_test_rows(record, **kw)
        out["contract_results"] += contract_rows(record, **kw)
        out["experience_events"] += event_rows(record, **kw)
    return out


def traces_key(records: list[dict], config_hash: str | None = None,
               input_hashes: Mapping[str, str] | None = None) -> str:
    """File key of a batch: the stage, its inputs' hashes (in order) and the config hash."""
    hashes = [record_input_hash(r, input_hashes) for r in records]
    configs = sorted({config_hash or r["config_hash"] for r in records})
    return make_key(STAGE, *hashes, *configs)


def write_evaluation_traces(records: Iterable[dict], root: DataRoot | str, run_id: str,
                            config_hash: str | None = None, *,
                            input_hashes: Mapping[str, str] | None = None,
                            mode: str = "skip") -> dict[str, str]:
    """Write a batch's trace rows (one file per table, same key) and return {table: file URL}.

    config_hash: the stage's config hash (default: each record's own). A rerun of the same batch
    with the same config finds its key and skips (mode="skip") or replaces it (mode="replace").
    """
    records = list(records)
    if not records:
        return {}
    root = root if isinstance(root, DataRoot) else DataRoot(root)
    key = traces_key(records, config_hash, input_hashes)
    if mode == "skip" and root.exists("evaluations", key):
        return {t: root.file_url(t, key) for t in TRACE_TABLES}
    rows = trace_rows(records, run_id=run_id, config_hash=config_hash, input_hashes=input_hashes)
    return {t: root.write(t, rows[t], key=key, mode=mode) for t in TRACE_TABLES}


def _common(record: dict, run_id: str, input_hash: str, config_hash: str | None) -> dict:
    page_hash = sha256_hex(record["page"]) if record.get("page") else None
    return {"run_id": run_id, "input_hash": input_hash, "page_hash": page_hash,
            "config_hash": config_hash or record["config_hash"]}


def chunk_keys(input_hashes: Sequence[str], config_hash: str, batch_size: int = DEFAULT_BATCH_SIZE) -> list[str]:
    """File keys of the evaluation stage's batches (webmend.stage.batches.chunk_keys)."""
    return stage_chunk_keys(STAGE, input_hashes, config_hash, batch_size)


def write_keyed(records: list[dict], root: DataRoot | str, key: str, *, run_id: str, config_hash: str,
                input_hashes: Mapping[str, str] | None = None, replace: bool = False) -> bool:
    """Write one batch's rows under a planned key; False when it was committed already (skipped).

    evaluations is written last: a committed evaluations file means the whole batch is there.
    """
    root = root if isinstance(root, DataRoot) else DataRoot(root)
    if not replace and root.exists("evaluations", key):
        return False
    rows = trace_rows(records, run_id=run_id, config_hash=config_hash, input_hashes=input_hashes)
    for table in TRACE_TABLES:
        root.write(table, rows[table], key=key, mode="replace" if replace else "skip")
    return True


def write_results_traces(records: Iterable[dict], input_hashes: Sequence[str], root: DataRoot | str,
                         config_hash: str, *, batch_size: int = DEFAULT_BATCH_SIZE, run_id: str | None = None,
                         replace: bool = False, fields: Iterable[dict] | None = None,
                         key_hashes: Sequence[str] | None = None) -> dict:
    """The trace tables of a `webmend evaluate` run: its records (results.jsonl, input order) with
    the hash of each input (by index), in the chunks and under the keys that
    build-refined-pool gives the same corpus and config at the same batch size, so a corpus
    evaluated both ways has its rows once. Streams the records one chunk at a time.

    fields: `input_fields` of each input, in input order (read again from the inputs, so pages are
    never all held in memory). key_hashes: what names each input in the batch keys when it is not
    its input hash alone (pool.batches.batch_hash: pages with a contract). Returns {"run_id",
    "batches", "written", "skipped"}.
    """
    root = root if isinstance(root, DataRoot) else DataRoot(root)
    keys = chunk_keys(key_hashes or input_hashes, config_hash, batch_size)
    fields = iter(fields) if fields is not None else None
    run_id = run_id or "evaluate-" + make_key("webmend-evaluate", *keys, config_hash)[:12]
    written = 0
    records = iter(records)
    for n, key in enumerate(keys):
        chunk = list(itertools.islice(records, batch_size))
        expected = list(range(n * batch_size, min((n + 1) * batch_size, len(input_hashes))))
        if [r["index"] for r in chunk] != expected:
            raise ValueError(f"results do not match the inputs at batch {n}: indexes "
                             f"{[r['index'] for r in chunk]}, expected {expected}")
        for record in chunk:
            record["input_hash"] = input_hashes[record["index"]]
            if fields is not None:
                record.update(next(fields))
        written += write_keyed(chunk, root, key, run_id=run_id, config_hash=config_hash, replace=replace)
    if next(records, None) is not None:
        raise ValueError(f"more results than the {len(input_hashes)} inputs")
    return {"run_id": run_id, "batches": len(keys), "written": written, "skipped": len(keys) - written}


# The way back: a page's verdict from its rows, as repair reads a batch it did not evaluate itself.

def page_verdicts(evaluations: list[dict], tests: list[dict], contracts: list[dict],
                  events: list[dict]) -> dict[str, PageVerdict]:
    """The verdicts of one batch rebuilt from its rows (the inverse of evaluation_row,
    per_test_rows, contract_rows and the keyframe events), by input hash. What a row does not
    keep stays empty: a contract's assertion verdicts and steps."""
    by_page: dict[str, list] = {}
    for t in sorted(tests, key=lambda r: r["test_index"]):
        by_page.setdefault(t["input_hash"], []).append({
            "id": t["test_id"], "name": t["test_name"] or "", "passed": t["passed"], "weight": t["weight"],
            "failed_step": t["failed_step"], "failed_action": t["failed_action"], "error": t["error"]})
    contract = {c["input_hash"]: contract_from_row(c) for c in contracts}
    frames = keyframes_from_events(events)
    out = {}
    for e in evaluations:
        h = e["input_hash"]
        score = None if e["score_total"] is None else {d: e[f"score_{d}"] for d in _DIMENSIONS}
        out[h] = PageVerdict(
            index=e["input_index"], id=e["id"], status=e["status"], reason=e["reason"] or "",
            flags=list(e["flags"] or []), score=score, state=e["state"], interactive=bool(e["interactive"]),
            tests=by_page.get(h, []), blocked_requests=list(e["blocked_requests"] or []), config_hash=e["config_hash"],
            keyframes=frames.get(h, []), evidence=json.loads(e["evidence"]) if e["evidence"] else None,
            trace_summary=json.loads(e["trace_summary"]) if e["trace_summary"] else None, contract=contract.get(h))
    return out


def contract_from_row(row: dict) -> dict:
    """The record's `contract` field from its contract_results row (assertion verdicts are not kept)."""
    return {
        **{k: row[k] for k in ("task_id", "contract_hash", "transition_validity", "req_explicit", "req_implicit",
                               "reward", "documents", "transitions_run", "elapsed_s", "error")},
        "labels": json.loads(row["labels"] or "{}"), "requirements": json.loads(row["requirements"] or "{}"),
        "unmet": json.loads(row.get("unmet") or "[]"),
        "transitions": {t["id"]: {"status": t["status"], "failed_step": t["failed_step"], "reason": t["reason"] or "",
                                  "assertions": {}} for t in row["transitions"] or []},
    }


def keyframes_from_events(events: list[dict]) -> dict[str, list[dict]]:
    """The records' keyframes from their `keyframe` events (experience_events), by input hash, in order."""
    out: dict[str, list[dict]] = {}
    for ev in sorted((e for e in events if e["kind"] == "keyframe"), key=lambda e: e["seq"]):
        payload = json.loads(ev["payload"])
        out.setdefault(ev["input_hash"], []).append({**payload, "event": ev["step_index"],
                                                       "page_ms": int(ev["page_time_ms"])})
    return out
