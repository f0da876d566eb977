"""`webmend manifest verify`: a manifest is trusted only when it matches its schema and every file
it lists is there with the bytes and sha256 it records."""

from __future__ import annotations

import json
from importlib.resources import files as resource_files
from pathlib import PurePosixPath

import fsspec
import jsonschema

from webmend.export.files import file_digest


def manifest_schema() -> dict:
    return json.loads(resource_files("webmend.schemas").joinpath("manifest.schema.json").read_text())


def verify_manifest(url: str, storage_options: dict | None = None) -> list[str]:
    """Problems found (empty: verified). url: manifest.json, or the export folder holding it."""
    fs, path = fsspec.core.url_to_fs(url, **(storage_options or {}))
    if not path.endswith(".json"):
        path = f"{path.rstrip('/')}/manifest.json"
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
