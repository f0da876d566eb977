"""The manifest of an export: built from the selection, the written files and the gate's result
(`build_manifest`), and verified (`webmend manifest verify`): a manifest is trusted only when it
matches its schema and every file it lists is there with the bytes and sha256 it records."""

from __future__ import annotations

import json
import subprocess
from datetime import datetime, timezone
from importlib.resources import files as resource_files
from pathlib import Path, PurePosixPath

import fsspec
import jsonschema
import pyarrow.parquet as pq

import webmend
from webmend.export.config import ExportConfig
from webmend.export.files import StagedFile, file_digest
from webmend.export.gate import GateResult
from webmend.export.select import Selection
from webmend.schemas.manifest import Manifest

# The names of an export version's files (docs/export.md "The export folder").
MANIFEST, LATEST, DATASET_INFO, REJECTS, GATE_JSON = (
    "manifest.json", "LATEST.json", "dataset_info.json", "rejects.parquet", "gate.json")


def manifest_schema() -> dict:
    return json.loads(resource_files("webmend.schemas").joinpath("manifest.schema.json").read_text())


def verify_manifest(url: str, storage_options: dict | None = None) -> list[str]:
    """Problems found (empty: verified). url: manifest.json, or the export folder holding it."""
    fs, path = fsspec.core.url_to_fs(url, **(storage_options or {}))
    if not path.endswith(".json"):
        path = f"{path.rstrip('/')}/{MANIFEST}"
    if not fs.exists(path):
        return [f"{url}: no manifest"]
    try:
        manifest = json.loads(fs.cat_file(path))
    except json.JSONDecodeError as exc:
        return [f"{path}: not JSON ({exc})"]
    problems = [f"schema: {e.json_path}: {e.message}" for e in
                jsonschema.Draft202012Validator(manifest_schema()).iter_errors(manifest)]
    if problems:
        return problems
    folder = str(PurePosixPath(path).parent)
    for f in manifest["files"]:
        full = f"{folder}/{f['path']}"
        if not fs.exists(full):
            problems.append(f"{f['path']}: missing")
            continue
        size, digest = file_digest(fs, full)
        if size != f["bytes"]:
            problems.append(f"{f['path']}: {size} bytes, the manifest says {f['bytes']}")
        if digest != f["sha256"]:
            problems.append(f"{f['path']}: sha256 {digest[:12]}..., the manifest says {f['sha256'][:12]}...")
    return problems


def build_manifest(fs, base: str, version: str, files: list[StagedFile], sel: Selection, cfg: ExportConfig,
                   gate: GateResult, benchmarks: list[dict]) -> dict:
    rows = [p for pages in sel.routes.values() for p in pages]
    datasets = {}
    for f in files:
        if f.dataset:
            d = datasets.setdefault(f.dataset, {"route": f.route, "format": f.format, "rows": 0, "files": []})
            d["rows"] += f.rows
            d["files"].append(f.path)
    manifest = {
        "export_version": version, "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "code_version": code_version(),
        "config_hashes": {"evaluation": sorted({p.eval_config for p in rows if p.eval_config}),
                          "repair": sorted({p.repair_config for p in rows if p.repair_config}),
                          "export": [cfg.config_hash()]},
        "source_runs": sel.source_runs, "routes": list(sel.routes), "system_prompt": cfg.system_prompt,
        "files": [{"path": f.path, "dataset": f.dataset or Path(f.path).stem, "route": f.route or "",
                   "format": f.format or Path(f.path).suffix.lstrip("."), "rows": f.rows, "bytes": f.bytes,
                   "sha256": f.sha256} for f in files],
        "benchmarks": benchmarks,
        "datasets": datasets, "dataset_info": DATASET_INFO,
        "rejects": {"file": REJECTS, "counts": _reject_counts(sel)}, "funnel": sel.funnel,
        "scores": {route: {"before": distribution([p.original_score for p in pages]),
                           "after": distribution([p.score for p in pages])} for route, pages in sel.routes.items()},
        "gate": gate.as_dict(), "lineage": lineage(fs, base, sel),
    }
    return Manifest.model_validate(manifest).model_dump(mode="json")


def benchmark_files(paths: list[str]) -> list[dict]:
    """The benchmark files the decontamination re-check read, with their sha256."""
    out = []
    for path in paths:
        size, digest = file_digest(fsspec.filesystem("file"), path)
        out.append({"path": str(path), "bytes": size, "sha256": digest})
    return out


def _reject_counts(sel: Selection) -> dict:
    counts: dict[str, dict[str, int]] = {}
    for r in sel.rejects:
        route = counts.setdefault(r.route, {})
        route[r.reason] = route.get(r.reason, 0) + 1
    return {k: dict(sorted(v.items())) for k, v in sorted(counts.items())}


QUANTILES = (0, 10, 25, 50, 75, 90, 100)


def distribution(values: list[float | None]) -> dict:
    xs = sorted(v for v in values if v is not None)
    q = {}
    for p in QUANTILES:
        if xs:  # nearest rank: a value the corpus really has
            q[f"q{p}"] = xs[min(len(xs) - 1, max(0, round(p / 100 * (len(xs) - 1))))]
    hist = [0] * 10
    for v in xs:
        hist[min(9, max(0, int(v // 10)))] += 1
    return {"count": len(xs), "quantiles": q, "histogram": hist}


def lineage(fs, base: str, sel: Selection) -> dict:
    """The folder's latest export before this one, and how many rows were added and removed."""
    latest = read_latest(fs, base)
    if latest is None:
        return {"previous": None, "added": sum(len(p) for p in sel.routes.values()), "removed": 0}
    before = set()
    prev = json.loads(fs.cat_file(f"{base}/{latest['manifest']}"))
    for name, d in prev["datasets"].items():
        if d["format"] == "sharegpt" or (d["format"] == "alpaca" and not any(
                x["route"] == d["route"] and x["format"] == "sharegpt" for x in prev["datasets"].values())):
            for path in d["files"]:
                with fs.open(f"{base}/{latest['version']}/{path}", "rb") as fh:
                    part = pq.ParquetFile(fh)
                    column = "page_hash" if "page_hash" in part.schema_arrow.names else "content_hash"  # manifest v1
                    t = part.read(columns=["id", column])
                before |= {(d["route"], i, h) for i, h in zip(t["id"].to_pylist(), t[column].to_pylist())}
    now = {(r, p.id, p.page_hash) for r, pages in sel.routes.items() for p in pages}
    return {"previous": latest["version"], "added": len(now - before), "removed": len(before - now)}


def read_latest(fs, base: str) -> dict | None:
    path = f"{base}/{LATEST}"
    return json.loads(fs.cat_file(path)) if fs.exists(path) else None


def code_version() -> str:
    """The package version, plus the git commit when running from a checkout."""
    try:
        commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=Path(__file__).parent,
                                capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return f"{webmend.__version__}+{commit}" if commit else webmend.__version__
