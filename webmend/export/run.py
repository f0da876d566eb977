"""export_corpus: trace tables -> a gated, versioned SFT export (docs/export.md). No Prefect here.

Order of work: select pages (metadata only) -> stream their HTML from DuckDB into Parquet parts in
a staging folder (stream.py: each page table scanned once) -> rejects, dataset_info.json -> the Great Expectations gate over the staged
files -> publish: every file moved to OUT/VERSION/, then manifest.json (a version without a
manifest is not an export), then OUT/LATEST.json. A failed gate publishes nothing but its data
docs and gate.json; a crash leaves only a staging folder, which the next run removes.
"""

from __future__ import annotations

import json
import logging
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

import fsspec
import pyarrow as pa
import pyarrow.parquet as pq

from webmend.export import documents
from webmend.export.config import ExportConfig
from webmend.export.files import PartWriter, StagedFile, file_digest
from webmend.export.gate import DatasetCheck, GateResult, run_gate
from webmend.export.manifest import (DATASET_INFO, GATE_JSON, LATEST, MANIFEST, REJECTS, benchmark_files,
                                     build_manifest, read_latest)
from webmend.export.select import SPEC, Hygiene, Selection, select
from webmend.export.stream import stream_rows
from webmend.schemas.corpus import DATASET_COLUMNS, PREFERENCE, REJECTS_SCHEMA, SHAREGPT_TAGS, SFT_FORMATS
from webmend.schemas.hashing import sha256_hex
from webmend.store import DataRoot, layout, make_key
from webmend.store.duckdb_views import connect

log = logging.getLogger(__name__)

STAGING_PREFIX = ".staging-"
DUCKDB_MEMORY = "1GB"  # a bound, not a need: DuckDB only filters and streams pages (stream.py)


class ExportBlocked(RuntimeError):
    """The gate failed: nothing was published (its data docs and gate.json were)."""

    def __init__(self, version: str, gate: GateResult, docs: str):
        super().__init__(f"export {version} blocked by the gate: " + "; ".join(gate.failures()))
        self.version, self.gate, self.docs = version, gate, docs


@dataclass(frozen=True)
class ExportOutcome:
    status: str  # "exported" | "unchanged"
    version: str
    manifest: str  # URL of manifest.json
    rows: dict[str, int]  # dataset -> rows
    previous: str | None = None  # the version this one extends (lineage)


def default_out(data_root: str) -> str:
    return layout.url_under(data_root, layout.CORPUS)


def export_corpus(data_root: str, out: str | None = None, cfg: ExportConfig = ExportConfig(),
                  benchmarks: list[str] = (), runs: list[str] | None = None,
                  storage_options: dict | None = None) -> ExportOutcome:
    cfg.check()
    out = out or default_out(data_root)
    fs, base = fsspec.core.url_to_fs(out, **(storage_options or {}))
    base = base.rstrip("/")
    root = DataRoot(data_root)
    if not root.keys("evaluations"):
        raise ValueError(f"{data_root}: no evaluations to export (run evaluation with --data-root first)")
    con = connect(root, SPEC.read_columns())
    con.execute(f"SET memory_limit = '{DUCKDB_MEMORY}'")
    con.execute(f"SET temp_directory = '{tempfile.gettempdir()}/webmend-duckdb'")
    hygiene = Hygiene(cfg, list(benchmarks))
    sel = select(con, cfg, hygiene, runs)
    version = version_id(cfg, sel)
    target = f"{base}/{version}"
    if fs.exists(f"{target}/{MANIFEST}"):
        log.info("export %s is already published at %s: nothing to do", version, target)
        _finish_publishing(fs, base, root, sel, cfg, version)  # in case a crash came between
        return ExportOutcome("unchanged", version, _url(fs, f"{target}/{MANIFEST}"), _rows_of(fs, target))
    _remove_stale_staging(fs, base)
    staging = f"{base}/{STAGING_PREFIX}{version}-{uuid.uuid4().hex[:8]}"
    try:
        files = _write_datasets(con, fs, staging, sel, cfg)
        files.append(_write_rejects(fs, staging, sel))
        info = dataset_info(files, cfg)
        _write_json(fs, f"{staging}/{DATASET_INFO}", info)
        files.append(StagedFile(DATASET_INFO, len(info), *file_digest(fs, f"{staging}/{DATASET_INFO}")))
        gate = _gate(fs, staging, target, files, sel, cfg, hygiene)
        if not gate.success:
            raise ExportBlocked(version, gate, f"{_url(fs, target)}/gate/index.html")
        files.append(StagedFile(GATE_JSON, 0, *file_digest(fs, f"{target}/{GATE_JSON}")))
        manifest = build_manifest(fs, base, version, files, sel, cfg, gate, benchmark_files(hygiene.files))
        _publish(fs, staging, target, files, manifest)
    finally:
        if fs.exists(staging):
            fs.rm(staging, recursive=True)
    _finish_publishing(fs, base, root, sel, cfg, version)
    rows = {name: d["rows"] for name, d in manifest["datasets"].items()}
    log.info("export %s published at %s: %s", version, target, rows)
    return ExportOutcome("exported", version, _url(fs, f"{target}/{MANIFEST}"), rows, manifest["lineage"]["previous"])


def export_markdown(outcome: ExportOutcome) -> str:
    """The flow's artifact: what was published, or that nothing new was there to export."""
    if outcome.status == "unchanged":
        return (f"# Export: nothing new\n\nThe trace tables select the same rows as version `{outcome.version}` "
                f"(`{outcome.manifest}`): nothing was written.\n")
    lines = [f"# Export {outcome.version}", "", f"Manifest: `{outcome.manifest}`; extends: `{outcome.previous}`", "",
             "| dataset | rows |", "| --- | --- |"]
    lines += [f"| {name} | {rows} |" for name, rows in outcome.rows.items()]
    return "\n".join(lines) + "\n"


def _finish_publishing(fs, base: str, root: DataRoot, sel: Selection, cfg: ExportConfig, version: str) -> None:
    """After the manifest: the exports table, then LATEST.json; each only when not there yet."""
    if not root.exists("exports", version):
        root.write("exports", export_rows(sel, cfg, version), key=version)
    latest = read_latest(fs, base)
    if latest is None or latest["version"] != version:
        _write_json(fs, f"{base}/{LATEST}", {"version": version, "manifest": f"{version}/{MANIFEST}"})


def export_rows(sel: Selection, cfg: ExportConfig, version: str) -> list[dict]:
    """The exports trace table: which page went into which dataset of this version (queryable with
    DuckDB beside the other tables; the HTML stays in the export's files)."""
    common = {"run_id": version, "config_hash": cfg.config_hash(), "split": "train", "response": None}
    rows = [{"id": p.id, "prompt_id": p.prompt_id, "dataset": dataset_name(cfg, route, fmt), "format": fmt, "route": route,
             "score_total": p.score, "state": p.state, "prompt": p.prompt, **_hashes(p), **common}
            for route, pages in sel.routes.items() for fmt in cfg.formats if fmt in SFT_FORMATS for p in pages]
    if PREFERENCE in cfg.formats and "refined" in sel.routes:
        rows += [{"id": x.chosen.id, "prompt_id": x.chosen.prompt_id, "dataset": dataset_name(cfg, "refined", PREFERENCE),
                  "format": PREFERENCE, "route": "refined", "score_total": x.chosen.score, "state": x.chosen.state,
                  "prompt": x.chosen.prompt, **_hashes(x.chosen), **common} for x in sel.pairs]
    return rows


def _hashes(page) -> dict:
    """An example's input is its prompt, its page the exported answer."""
    return {"input_hash": sha256_hex(page.prompt or ""), "page_hash": page.page_hash}


def version_id(cfg: ExportConfig, sel: Selection) -> str:
    """From the export config and every exported (route, page) and pair: same inputs, same version."""
    parts = [f"{r}\x1e{p.id}\x1e{p.page_hash}\x1e{p.score}\x1e{p.original_score}" + _contract_part(p)
             for r, pages in sorted(sel.routes.items()) for p in pages]
    parts += [f"pair\x1e{x.chosen.page_hash}\x1e{x.rejected.page_hash}\x1e{x.rejected.score}" for x in sel.pairs]
    return "v-" + make_key("export", cfg.config_hash(), *parts)[:16]


def _contract_part(page) -> str:
    # Only pages with a contract result add to the hash: versions of corpora without contracts stay put.
    return "" if page.contract_reward is None else f"\x1e{page.contract_reward}\x1e{page.contract_labels}"


def dataset_name(cfg: ExportConfig, route: str, fmt: str) -> str:
    return f"{cfg.dataset_prefix}_{route}_{fmt}"


# ---- rows -----------------------------------------------------------------------------------

def _write_datasets(con, fs, staging: str, sel: Selection, cfg: ExportConfig) -> list[StagedFile]:
    writers = {route: {fmt: PartWriter(fs, staging, f"{route}/{fmt}", fmt, cfg.rows_per_file)
                       for fmt in cfg.formats if fmt in SFT_FORMATS} for route in sel.routes}
    with_pairs = PREFERENCE in cfg.formats and "refined" in sel.routes
    pairs = PartWriter(fs, staging, f"refined/{PREFERENCE}", PREFERENCE, cfg.rows_per_file) if with_pairs else None

    def emit_page(route, page, html):
        for fmt, writer in writers[route].items():
            writer.add(sft_row(fmt, page, html, route, cfg.system_prompt))

    def emit_pair(pair, chosen, rejected):
        pairs.add(preference_row(pair, chosen, rejected, cfg.system_prompt))

    stream_rows(con, sel.routes, sel.pairs if with_pairs else [], emit_page, emit_pair)
    out = [f for route, ws in writers.items() for f in _staged(ws, cfg, route)]
    return out + (_staged({PREFERENCE: pairs}, cfg, "refined") if pairs else [])


def _staged(writers: dict[str, PartWriter], cfg: ExportConfig, route: str) -> list[StagedFile]:
    return [StagedFile(f.path, f.rows, f.bytes, f.sha256, dataset_name(cfg, route, fmt), route, fmt)
            for fmt, w in writers.items() for f in w.close()]


def sft_row(fmt: str, page, html: str, route: str, system: str) -> dict:
    meta = {"id": page.id, "prompt_id": page.prompt_id, "family": page.family, "source_run": page.source_run,
            "score": page.score, "original_score": page.original_score, "route": route, "page_hash": page.page_hash,
            "contract_reward": page.contract_reward, "contract_labels": page.contract_labels}
    if fmt == "sharegpt":
        return {"messages": documents.messages(system, page.prompt, html), **meta}
    return {"system": system, "instruction": page.prompt, "input": "", "output": html, **meta}


def preference_row(pair, chosen: str, rejected: str, system: str) -> dict:
    c, r = pair.chosen, pair.rejected
    return {"messages": documents.messages(system, c.prompt), "chosen": {"role": "assistant", "content": chosen},
            "rejected": {"role": "assistant", "content": rejected}, "id": c.id, "prompt_id": c.prompt_id,
            "family": c.family, "source_run": c.source_run, "chosen_score": c.score, "rejected_score": r.score,
            "rejected_kind": pair.kind, "chosen_hash": c.page_hash, "rejected_hash": r.page_hash}


def _write_rejects(fs, staging: str, sel: Selection) -> StagedFile:
    rows = sorted(((r.route, r.id, r.page_hash, r.reason, r.detail) for r in sel.rejects))
    table = pa.table({name: [r[i] for r in rows] for i, name in enumerate(REJECTS_SCHEMA.names)}, schema=REJECTS_SCHEMA)
    with fs.open(f"{staging}/{REJECTS}", "wb") as fh:
        pq.write_table(table, fh)
    size, digest = file_digest(fs, f"{staging}/{REJECTS}")
    return StagedFile(REJECTS, len(rows), size, digest)


# ---- dataset_info, gate, manifest -----------------------------------------------------------

def dataset_info(files: list[StagedFile], cfg: ExportConfig) -> dict:
    """LlamaFactory's dataset registry: one entry per (route, format), file_name = its folder of parts."""
    info = {}
    for f in files:
        if f.dataset and f.dataset not in info:
            entry = {"file_name": str(Path(f.path).parent), "formatting": "alpaca" if f.format == "alpaca" else "sharegpt",
                     "columns": dict(DATASET_COLUMNS[f.format])}
            if f.format != "alpaca":
                entry["tags"] = dict(SHAREGPT_TAGS)
            if f.format == PREFERENCE:
                entry["ranking"] = True
            info[f.dataset] = entry
    return info


def _gate(fs, staging: str, target: str, files: list[StagedFile], sel: Selection, cfg: ExportConfig,
          hygiene: Hygiene) -> GateResult:
    checks = []
    datasets = sorted({(f.dataset, f.route, f.format) for f in files if f.dataset})
    for name, route, fmt in datasets:
        expected = len(sel.pairs) if fmt == PREFERENCE else len(sel.routes[route])
        min_score = cfg.gate.min_score if route == "refined" else 0.0
        bounds = (0.0, 1.0) if fmt == PREFERENCE else (cfg.family_shares.min, cfg.family_shares.max)
        checks.append(DatasetCheck(name, fmt, [f.path for f in files if f.dataset == name], expected, min_score, bounds))
    if _is_local(fs):
        result = run_gate(fs, staging, checks, hygiene.contamination, f"{target}/gate")
    else:  # GX writes data docs to a local folder: build them there, then upload
        with tempfile.TemporaryDirectory(prefix="webmend-gate-docs-") as docs:
            result = run_gate(fs, staging, checks, hygiene.contamination, docs)
            fs.put(docs, f"{target}/gate", recursive=True)
    _write_json(fs, f"{target}/{GATE_JSON}", result.as_dict())
    return result


# ---- publishing -----------------------------------------------------------------------------

def _publish(fs, staging: str, target: str, files: list[StagedFile], manifest: dict) -> None:
    for rel in [f.path for f in files if f.path != GATE_JSON]:  # gate.json is in place already
        fs.makedirs(str(Path(f"{target}/{rel}").parent), exist_ok=True)
        fs.mv(f"{staging}/{rel}", f"{target}/{rel}")
    _write_json(fs, f"{target}/{MANIFEST}", manifest)  # last: its presence is the commit


def _write_json(fs, path: str, data: dict) -> None:
    """Written to a temporary name and moved into place."""
    fs.makedirs(str(Path(path).parent), exist_ok=True)
    tmp = f"{path}.tmp-{uuid.uuid4().hex[:8]}"
    with fs.open(tmp, "w") as fh:
        fh.write(json.dumps(data, indent=2, sort_keys=True) + "\n")
    fs.mv(tmp, path)


def _remove_stale_staging(fs, base: str) -> None:
    if not fs.exists(base):
        return
    for entry in fs.ls(base, detail=False):
        if Path(entry).name.startswith(STAGING_PREFIX):
            log.info("removing %s, left by an export that did not finish", entry)
            fs.rm(entry, recursive=True)


def _rows_of(fs, target: str) -> dict[str, int]:
    manifest = json.loads(fs.cat_file(f"{target}/{MANIFEST}"))
    return {name: d["rows"] for name, d in manifest["datasets"].items()}


def _is_local(fs) -> bool:
    from fsspec.implementations.local import LocalFileSystem

    return isinstance(fs, LocalFileSystem)


def _url(fs, path: str) -> str:
    return path if _is_local(fs) else fs.unstrip_protocol(path)
