"""Resume: build-refined-pool SIGKILLed (with its Dask workers and Chromium) at seeded points,
including in the middle of writing a batch, then rerun until it completes; the trace tables must
equal those of an uninterrupted run: same rows, no duplicates, nothing half-written visible.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest
from flow_fixtures import flow_command, kill_session, log_tail, query, sample_subset, small_pages, start_flow

from webmend.store import DataRoot

SEED = 20261130
BATCH_SIZE = 2

# Columns that must agree between the interrupted and the uninterrupted run (timings differ).
EVAL_COLS = ("input_index, id, source, status, reason, flags, state, score_total, tests_total, tests_passed, "
             "blocked_requests_total, input_hash, config_hash, run_id, schema_version")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("corpus")
    return {"pages": [small_pages(folder / "pages", copies=2)],
            "responses": [sample_subset(folder, ["content_coffee_story#1", "game_snake#1", "dataviz_weather_d3#1"])]}


def writing_in_progress(root: Path, seen: set[str]) -> bool:
    """A batch write has begun (its first table's lock or temp file is new) but the batch is not done."""
    locks = root / "_locks" / "test_results"
    started = {n[: -len(".lock")] for n in os.listdir(locks)} if locks.is_dir() else set()
    fresh = started - seen
    return any(not (root / "evaluations" / f"{key}.parquet").exists() for key in fresh)


def run_until(cmd, env, log, root: Path, *, kill: str, after_s: float = 0.0, limit_s: float = 300) -> str:
    """Start the flow and SIGKILL it (whole tree) at the kill point; return what happened."""
    locks = root / "_locks" / "test_results"
    seen = {n[: -len(".lock")] for n in os.listdir(locks)} if locks.is_dir() else set()
    proc = start_flow(cmd, env, log)
    started = time.monotonic()
    try:
        while proc.poll() is None:
            if time.monotonic() - started > limit_s:
                return "limit"
            if kill == "time" and time.monotonic() - started >= after_s:
                return "killed at %.1fs" % after_s
            if kill == "mid_write" and writing_in_progress(root, seen):
                return "killed mid-write"
            time.sleep(0.002 if kill == "mid_write" else 0.05)
        return f"finished rc={proc.returncode}"
    finally:
        kill_session(proc)


def table_rows(root: Path) -> dict[str, list[tuple]]:
    return {
        "evaluations": query(root, f"SELECT {EVAL_COLS} FROM evaluations ORDER BY input_index"),
        "test_results": query(root, "SELECT id, input_hash, test_index, test_id, passed, failed_step "
                                    "FROM test_results ORDER BY input_hash, id, test_index"),
        "experience_events": query(root, "SELECT id, input_hash, seq, layer, kind FROM experience_events "
                                         "ORDER BY input_hash, id, seq"),
    }


def test_killed_runs_resume_to_the_same_tables(prefect_api, corpus, tmp_path):
    _, env = prefect_api
    log = tmp_path / "flow.log"
    reference, resumed = tmp_path / "reference", tmp_path / "resumed"

    done = start_flow(flow_command(reference, batch_size=BATCH_SIZE, **corpus), env, log)
    assert done.wait(timeout=600) == 0, log_tail(log)
    expected = table_rows(reference)
    assert len(expected["evaluations"]) == 12  # 8 pages, 3 answers, 1 line that is not JSON

    rng = random.Random(SEED)
    cmd = flow_command(resumed, batch_size=BATCH_SIZE, **corpus)
    kill_points = [("mid_write", 0.0), ("time", rng.uniform(8, 25)), ("mid_write", 0.0), ("time", rng.uniform(2, 12))]
    happened = []
    for kind, after in kill_points:
        happened.append(run_until(cmd, env, log, resumed, kill=kind, after_s=after))
        # Whatever is visible after a kill is whole: every committed file reads, batches never repeat.
        root = DataRoot(resumed)
        for table in ("evaluations", "test_results", "experience_events"):
            root.read(table)
        assert query(resumed, "SELECT count(*) = count(DISTINCT input_index) FROM evaluations") == [(True,)]
    assert "killed mid-write" in happened, happened

    final = start_flow(cmd, env, log)
    assert final.wait(timeout=600) == 0, log_tail(log)
    got = table_rows(resumed)
    assert got == expected, happened
    assert sorted(os.listdir(resumed / "evaluations")) == sorted(os.listdir(reference / "evaluations"))
    leftovers = [p for p in resumed.rglob(".*.tmp-*")]
    assert leftovers == []
