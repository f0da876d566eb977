"""DataRoot on an object store: a real S3 API (moto server on 127.0.0.1) through s3fs."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest
from s3_server import LocalS3
from store_fixtures import prompt_rows

from webmend.schemas.tables import TABLES
from webmend.store import DataRoot, to_table


@pytest.fixture(scope="module")
def s3():
    with LocalS3() as server:
        yield server


@pytest.fixture
def root(s3, request):
    return DataRoot(f"s3://{s3.bucket}/{request.node.name}", storage_options=s3.storage_options)


def test_write_commit_read(root):
    url = root.write("prompts", prompt_rows(3), key="batch-a")
    assert url.startswith("s3://") and url.endswith("/prompts/batch-a.parquet")
    assert root.exists("prompts", "batch-a")
    assert root.fs.exists(f"{root.path}/prompts/_COMMITTED/batch-a")
    got = root.read("prompts")
    assert got.schema == TABLES["prompts"] and got.column("id").to_pylist() == ["p0", "p1", "p2"]


def test_skip_and_replace(root):
    root.write("prompts", prompt_rows(2, run_id="first"), key="k")
    root.write("prompts", prompt_rows(2, run_id="second"), key="k")
    assert root.read("prompts").column("run_id").to_pylist() == ["first", "first"]
    root.write("prompts", prompt_rows(1, run_id="third"), key="k", mode="replace")
    assert root.read("prompts").column("run_id").to_pylist() == ["third"]
    assert root.keys("prompts") == ["k"]


def test_a_data_file_without_its_commit_marker_is_invisible(root):
    root.write("prompts", prompt_rows(1), key="done")
    # A writer that died after putting the data object but before the marker:
    with root.fs.open(f"{root.path}/prompts/torn.parquet", "wb") as fh:
        pq.write_table(to_table("prompts", prompt_rows(4, run_id="dead")), fh)
    assert not root.exists("prompts", "torn")
    assert root.keys("prompts") == ["done"]
    assert root.read("prompts").num_rows == 1
    # The rerun writes the key again and commits it.
    root.write("prompts", prompt_rows(2, run_id="rerun"), key="torn")
    assert root.keys("prompts") == ["done", "torn"]
    assert root.read("prompts").column("run_id").to_pylist() == ["run-1", "rerun", "rerun"]


def test_empty_root_reads_empty(root):
    assert root.keys("evaluations") == [] and root.read("evaluations").num_rows == 0


def test_two_concurrent_writers_of_one_key_leave_one_whole_file(s3, request):
    import threading

    url = f"s3://{s3.bucket}/{request.node.name}"
    barrier = threading.Barrier(2)

    def writer(run_id: str) -> None:
        barrier.wait()
        DataRoot(url, storage_options=s3.storage_options).write("prompts", prompt_rows(1000, run_id=run_id), key="same")

    threads = [threading.Thread(target=writer, args=(f"w{i}",)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    got = DataRoot(url, storage_options=s3.storage_options).read("prompts")
    assert got.num_rows == 1000 and len(set(got.column("run_id").to_pylist())) == 1
