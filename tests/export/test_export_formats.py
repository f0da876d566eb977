"""What training jobs read: every Parquet file loads with Hugging Face `datasets`, and
dataset_info.json is what LlamaFactory's loader reads (its documented DatasetAttr fields, a folder
of parts per dataset, and rows its sharegpt converter keeps rather than skips)."""

from __future__ import annotations

import json

import pytest
from export_fixtures import traced_root

from webmend.export.config import ExportConfig
from webmend.export.run import export_corpus

# LlamaFactory 0.9.5, data/parser.py DatasetAttr and data/README.md: the keys a dataset_info entry may hold.
ENTRY_KEYS = {"file_name", "formatting", "ranking", "columns", "tags", "subset", "split", "folder", "num_samples"}
COLUMN_KEYS = {"prompt", "query", "response", "history", "messages", "system", "tools", "images", "videos",
               "audios", "chosen", "rejected", "kto_tag"}
TAG_KEYS = {"role_tag", "content_tag", "user_tag", "assistant_tag", "observation_tag", "function_tag", "system_tag"}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root, bench = traced_root(tmp_path_factory)
    out = tmp_path_factory.mktemp("formats")
    return out / export_corpus(str(root), str(out), ExportConfig(), [str(bench)]).version


def _load(files, cache):
    import datasets

    return datasets.load_dataset("parquet", data_files=[str(f) for f in files], split="train", cache_dir=str(cache))


def _kept_by_sharegpt_converter(row: dict, entry: dict) -> bool:
    """LlamaFactory's SharegptDatasetConverter rules: a leading system turn is lifted out, then turns
    must alternate user/assistant, an even count for SFT, odd (ending on the user) for ranking."""
    tags, cols = entry["tags"], entry["columns"]
    turns = row[cols["messages"]]
    if turns and turns[0][tags["role_tag"]] == tags["system_tag"]:
        turns = turns[1:]
    expected = (tags["user_tag"], tags["assistant_tag"])
    if any(t[tags["role_tag"]] != expected[i % 2] for i, t in enumerate(turns)):
        return False
    if entry.get("ranking"):
        return len(turns) % 2 == 1 and all(row[cols[k]][tags["role_tag"]] == tags["assistant_tag"] for k in ("chosen", "rejected"))
    return len(turns) % 2 == 0


def test_dataset_info_is_what_llamafactory_reads_and_keeps_every_row(folder, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    info = json.loads((folder / "dataset_info.json").read_text())
    manifest = json.loads((folder / "manifest.json").read_text())
    assert set(info) == set(manifest["datasets"])
    for name, entry in info.items():
        assert set(entry) <= ENTRY_KEYS and set(entry["columns"]) <= COLUMN_KEYS, name
        assert entry["formatting"] in ("alpaca", "sharegpt") and set(entry.get("tags", {})) <= TAG_KEYS
        parts = sorted((folder / entry["file_name"]).iterdir())  # LlamaFactory loads every file of the folder
        assert parts and {p.suffix for p in parts} == {".parquet"}
        data = _load(parts, tmp_path / "hf")
        assert len(data) == manifest["datasets"][name]["rows"]
        assert set(entry["columns"].values()) <= set(data.column_names)
        if entry["formatting"] == "sharegpt":
            assert all(_kept_by_sharegpt_converter(row, entry) for row in data), name
        else:
            assert all(row[entry["columns"]["prompt"]] and row[entry["columns"]["response"]] for row in data)
    assert info["webmend_refined_preference"]["ranking"] is True


def test_rejects_file_loads_with_datasets_too(folder, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    data = _load([folder / "rejects.parquet"], tmp_path / "hf")
    assert set(data.column_names) == {"route", "id", "page_hash", "reason", "detail"} and len(data) == 5
