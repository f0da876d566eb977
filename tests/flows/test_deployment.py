"""End to end: a real Prefect server, deployments from prefect.yaml, a process worker, a run of
build-refined-pool/default through `prefect deployment run`, then the trace tables in DuckDB.

A subset of the bundled samples keeps it to a couple of minutes: one page with its 10 test cases,
a trivial page, an empty answer, a refusal and a line that is not JSON.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from conftest import ROOT
from flow_fixtures import SAMPLES, log_tail, query, sample_subset
from webmend.flows.local import stop

PREFECT = str(ROOT / ".venv" / "bin" / "prefect")
IDS = ["content_coffee_story", "content_coffee_story#1", "game_snake#1", "dataviz_weather_d3#1"]


def prefect(env: dict, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    done = subprocess.run([PREFECT, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"prefect {' '.join(args)}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def deployed(prefect_api, tmp_path_factory):
    """prefect.yaml deployed and a process worker polling the pool; yields the env."""
    api_url, env = prefect_api
    env = {**env, "PREFECT_WORKER_QUERY_SECONDS": "2"}
    prefect(env, "work-pool", "create", "webmend-local", "--type", "process", "--overwrite")
    deploy = prefect(env, "--no-prompt", "deploy", "--all")
    assert "temporary server" not in deploy.stdout + deploy.stderr  # it went to our server
    log = tmp_path_factory.mktemp("worker") / "worker.log"
    worker = subprocess.Popen([PREFECT, "worker", "start", "--pool", "webmend-local", "--type", "process"],
                              cwd=ROOT, env=env, stdout=open(log, "ab"), stderr=subprocess.STDOUT,
                              start_new_session=True)
    try:
        yield env, log
    finally:
        stop(worker)


def run_deployment(env: dict, data_root, responses) -> subprocess.CompletedProcess:
    params = {"data_root": str(data_root), "pages": [], "responses": [str(responses)],
              "items": str(SAMPLES / "items.jsonl"), "batch_size": 2, "n_workers": 1}
    return prefect(env, "deployment", "run", "build-refined-pool/default", "--params", json.dumps(params),
                   "--watch", "--watch-interval", "2", "--watch-timeout", "600", timeout=700)


def test_both_deployments_are_declared(deployed):
    env, _ = deployed
    nightly = prefect(env, "deployment", "inspect", "build-refined-pool/nightly").stdout
    assert "0 3 * * *" in nightly and "webmend-local" in nightly
    default = prefect(env, "deployment", "inspect", "build-refined-pool/default").stdout
    assert "data/samples/responses.jsonl" in default and str(ROOT) in default  # runs from this checkout


def test_deployment_run_writes_one_record_per_input(deployed, tmp_path):
    env, worker_log = deployed
    responses = sample_subset(tmp_path / "corpus", IDS)
    data_root = tmp_path / "data"
    done = run_deployment(env, data_root, responses)
    assert "Completed" in done.stdout, done.stdout[-2000:] + log_tail(worker_log)

    rows = query(data_root, "SELECT input_index, id, status, state, tests_total, run_id FROM evaluations ORDER BY input_index")
    assert [(r[0], r[1], r[2]) for r in rows] == [
        (0, "content_coffee_story", "ok"), (1, "content_coffee_story#1", "trivial"),
        (2, "dataviz_weather_d3#1", "no_html"), (3, "game_snake#1", "empty"), (4, "line-5", "malformed_input")]
    assert rows[0][3] in ("Low", "Mid", "High") and rows[0][4] == 10
    assert all(r[3] is None for r in rows[1:])
    assert len({r[5] for r in rows}) == 1 and rows[0][5].startswith("pool-")
    assert query(data_root, "SELECT count(*), count(DISTINCT test_id) FROM test_results WHERE id = 'content_coffee_story'") == [(10, 10)]
    assert query(data_root, "SELECT count(*) FROM test_results WHERE id <> 'content_coffee_story'") == [(0,)]
    assert len(os.listdir(data_root / "evaluations")) == 3  # batches of 2: 2 + 2 + 1

    artifact = prefect(env, "artifact", "inspect", "build-refined-pool-summary").stdout
    assert "Pages by status" in artifact and "malformed_input" in artifact

    # A second run of the same corpus and config finds every batch committed and writes nothing.
    before = {p.name: p.stat().st_mtime_ns for p in (data_root / "evaluations").iterdir()}
    assert "Completed" in run_deployment(env, data_root, responses).stdout
    assert {p.name: p.stat().st_mtime_ns for p in (data_root / "evaluations").iterdir()} == before
