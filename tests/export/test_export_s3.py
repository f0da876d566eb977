"""An export to an object store: a local S3 API (moto server on 127.0.0.1) through s3fs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from export_fixtures import traced_root

from webmend.export.config import ExportConfig
from webmend.export.manifest import verify_manifest
from webmend.export.run import export_corpus

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "store"))
from s3_server import LocalS3  # noqa: E402


def test_export_to_a_bucket_publishes_and_verifies(tmp_path_factory):
    root, bench = traced_root(tmp_path_factory)
    with LocalS3() as s3:
        url = f"s3://{s3.bucket}/corpus"
        cfg = ExportConfig(routes=("refined",), formats=("sharegpt",))
        outcome = export_corpus(str(root), url, cfg, [str(bench)], storage_options=s3.storage_options)
        assert outcome.manifest == f"{url}/{outcome.version}/manifest.json"
        assert verify_manifest(outcome.manifest, s3.storage_options) == []
        import s3fs

        fs = s3fs.S3FileSystem(**s3.storage_options)
        names = {p.split(f"{outcome.version}/", 1)[1] for p in fs.find(f"{s3.bucket}/corpus/{outcome.version}")}
        assert {"manifest.json", "dataset_info.json", "rejects.parquet", "refined/sharegpt/part-00000.parquet",
                "gate.json", "gate/index.html"} <= names
        assert not [p for p in fs.ls(f"{s3.bucket}/corpus") if ".staging-" in p]
        assert json.loads(fs.cat_file(f"{s3.bucket}/corpus/LATEST.json"))["version"] == outcome.version
        assert export_corpus(str(root), url, cfg, [str(bench)], storage_options=s3.storage_options).status == "unchanged"
