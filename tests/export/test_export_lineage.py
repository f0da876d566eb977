"""Lineage against the previous version, whichever name its corpus files give the page hash."""

from __future__ import annotations

import json
from types import SimpleNamespace

import fsspec
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from webmend.export.manifest import LATEST, MANIFEST, lineage


@pytest.mark.parametrize("hash_column", ["page_hash", "content_hash"])  # manifest 2, manifest 1
def test_lineage_reads_the_previous_version_under_either_column_name(tmp_path, hash_column):
    version = tmp_path / "v-old"
    (version / "raw" / "sharegpt").mkdir(parents=True)
    pq.write_table(pa.table({"id": ["a", "b"], hash_column: ["ha", "hb"], "messages": [[], []]}),
                   version / "raw" / "sharegpt" / "part-00000.parquet")
    (version / MANIFEST).write_text(json.dumps({"datasets": {"webmend_raw_sharegpt": {
        "format": "sharegpt", "route": "raw", "files": ["raw/sharegpt/part-00000.parquet"]}}}))
    (tmp_path / LATEST).write_text(json.dumps({"version": "v-old", "manifest": f"v-old/{MANIFEST}"}))
    now = SimpleNamespace(routes={"raw": [SimpleNamespace(id="a", page_hash="ha"), SimpleNamespace(id="c", page_hash="hc")]})
    assert lineage(fsspec.filesystem("file"), str(tmp_path), now) == {"previous": "v-old", "added": 1, "removed": 1}
