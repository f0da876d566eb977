"""DataRoot on local disk: validation, deterministic names, skip/replace, atomicity, two writers."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from store_fixtures import prompt_rows

from webmend.schemas.tables import COMMON_FIELDS, SCHEMA_VERSION, TABLES
from webmend.store import DataRoot, make_key, to_table


def test_every_table_carries_the_common_fields():
    assert set(TABLES) == {"prompts", "prompt_rejects", "generations", "evaluations", "test_results", "contract_results",
                           "experience_events", "repair_attempts", "checkpoints", "contracts", "exports"}
    for name, schema in TABLES.items():
        for field in COMMON_FIELDS:
            assert schema.field(field.name) == field, name


def test_make_key_is_deterministic_and_order_sensitive():
    assert make_key("evaluate", "h1", "cfg") == make_key("evaluate", "h1", "cfg")
    assert make_key("evaluate", "h1", "cfg") != make_key("evaluate", "cfg", "h1")
    assert len(make_key("x")) == 32


def test_write_then_read_round_trips(tmp_path):
    root = DataRoot(tmp_path)
    url = root.write("prompts", prompt_rows(3), key="batch-a")
    assert url == str(tmp_path / "prompts" / "batch-a.parquet")
    assert root.exists("prompts", "batch-a") and not root.exists("prompts", "batch-b")
    got = root.read("prompts")
    assert got.schema == TABLES["prompts"]
    assert got.column("id").to_pylist() == ["p0", "p1", "p2"]
    assert set(got.column("schema_version").to_pylist()) == {SCHEMA_VERSION}
    assert got.column("subtype").null_count == 3  # missing nullable column -> nulls


def test_rerun_skips_by_default_and_replaces_when_asked(tmp_path):
    root = DataRoot(tmp_path)
    root.write("prompts", prompt_rows(2, run_id="first"), key="k")
    root.write("prompts", prompt_rows(2, run_id="second"), key="k")
    assert root.read("prompts").column("run_id").to_pylist() == ["first", "first"]
    root.write("prompts", prompt_rows(1, run_id="third"), key="k", mode="replace")
    assert root.read("prompts").column("run_id").to_pylist() == ["third"]
    assert os.listdir(tmp_path / "prompts") == ["k.parquet"]  # no temporary files left


def test_read_of_an_empty_table_has_the_schema(tmp_path):
    got = DataRoot(tmp_path).read("evaluations")
    assert got.num_rows == 0 and got.schema == TABLES["evaluations"]


@pytest.mark.parametrize("rows, message", [
    ([{**prompt_rows(1)[0], "colour": "red"}], "unknown columns"),
    ([{k: v for k, v in prompt_rows(1)[0].items() if k != "run_id"}], "run_id: required"),
    ([{**prompt_rows(1)[0], "family": "cooking"}], "family"),
    ([{**prompt_rows(1)[0], "interactive": "very"}], "do not match"),
])
def test_invalid_rows_are_refused_and_nothing_is_written(tmp_path, rows, message):
    root = DataRoot(tmp_path)
    with pytest.raises(ValueError, match=message):
        root.write("prompts", rows, key="k")
    assert not root.exists("prompts", "k")


def test_bad_table_and_key_names_are_refused(tmp_path):
    root = DataRoot(tmp_path)
    with pytest.raises(ValueError, match="unknown table"):
        root.write("nope", [], key="k")
    for key in ("", "../x", ".hidden", "_COMMITTED", "a/b"):
        with pytest.raises(ValueError, match="bad key"):
            root.write("prompts", [], key=key)


def test_arrow_tables_are_cast_to_the_schema(tmp_path):
    rows = pa.Table.from_pylist(prompt_rows(2)).drop_columns(["family_confidence"])
    table = to_table("prompts", rows)
    assert table.schema == TABLES["prompts"]
    assert table.column("family_confidence").null_count == 2


def test_old_files_without_new_columns_still_read(tmp_path):
    root = DataRoot(tmp_path)
    old = to_table("prompts", prompt_rows(1)).drop_columns(["licence", "original"])
    (tmp_path / "prompts").mkdir()
    pq.write_table(old, tmp_path / "prompts" / "old.parquet")
    got = root.read("prompts")
    assert got.schema == TABLES["prompts"] and got.column("licence").to_pylist() == [None]


def _writer(root: str, key: str, run_id: str, n: int, barrier) -> None:
    barrier.wait()
    DataRoot(root).write("prompts", prompt_rows(n, run_id=run_id), key=key)


def test_two_concurrent_writers_of_one_key_leave_one_whole_file(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    for attempt in range(3):
        root = tmp_path / f"r{attempt}"
        barrier = ctx.Barrier(2)
        procs = [ctx.Process(target=_writer, args=(str(root), "same", f"w{i}", 2000, barrier)) for i in range(2)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(60)
            assert p.exitcode == 0
        got = DataRoot(root).read("prompts")
        assert got.num_rows == 2000
        assert len(set(got.column("run_id").to_pylist())) == 1  # one writer's rows, not a mix
        assert os.listdir(root / "prompts") == ["same.parquet"]


_KILLED_WRITER = """
import sys
from store_fixtures import prompt_rows
from webmend.store import DataRoot
root = DataRoot(sys.argv[1])
for i in range(1000):
    root.write("prompts", prompt_rows(500, start=i * 500), key=f"part-{i:04d}")
"""


def test_a_writer_killed_mid_write_leaves_only_whole_files(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.path.dirname(__file__), os.getcwd()])}
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(tmp_path)], env=env)
    deadline = time.time() + 60
    while time.time() < deadline and len(DataRoot(tmp_path).keys("prompts")) < 3:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    root = DataRoot(tmp_path)
    keys = root.keys("prompts")
    assert len(keys) >= 3
    got = root.read("prompts")  # every visible file is complete and readable
    assert got.num_rows == 500 * len(keys)
    # The rerun finishes the job without duplicates: committed keys are skipped.
    for i in range(len(keys) + 2):
        root.write("prompts", prompt_rows(500, start=i * 500), key=f"part-{i:04d}")
    assert root.read("prompts").column("id").to_pylist() == [f"p{i}" for i in range(500 * (len(keys) + 2))]
    assert not [n for n in os.listdir(tmp_path / "prompts") if n.startswith(".")]
