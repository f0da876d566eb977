"""build-refined-pool with the repair stage: operators repair the evaluated pages on Dask, the
repair tables are written, a page `webmend repair` already stored is not repaired again, a rerun
skips the committed pages, and a flow killed while repairing repairs only the rest when run again."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from conftest import FIXTURES, ROOT
from flow_fixtures import FIXTURE_PAGES, flow_command, kill_session, log_tail, query, small_pages, start_flow

from webmend.store import DataRoot


def run_flow(cmd: list[str], env: dict) -> dict:
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout[done.stdout.index("{"):])


def test_flow_repairs_evaluated_pages_and_resumes(prefect_api, tmp_path):
    _, env = prefect_api
    pages = tmp_path / "pages"
    pages.mkdir()
    # No viewport meta on either page: the operator's fix is what the repair stage must keep.
    for name in ("mobile_overflow", "good_app"):
        html = (FIXTURES / "pages" / f"{name}.html").read_text()
        (pages / f"{name}.html").write_text(html.replace('<meta name="viewport" content="width=device-width, initial-scale=1">', ""))
    root = tmp_path / "data"
    # One page repaired through the CLI first, with the same settings: the flow finds it stored.
    cli = subprocess.run([sys.executable, "-m", "webmend.cli", "repair", str(pages / "mobile_overflow.html"),
                          "--rounds", "2", "--data-root", str(root), "--out", str(tmp_path / "cli")],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert cli.returncode == 0, cli.stderr[-3000:]
    cmd = flow_command(root, pages=[pages], batch_size=2) + ["--repair", "--repair-rounds", "2"]
    first = run_flow(cmd, env)
    assert first["repair"]["repaired_batches"] == 1 and first["repair"]["pages"] == 2
    rows = query(root, "SELECT id, count(*) FILTER (WHERE is_best) AS best, max(round) AS last, any_value(run_id) "
                       "FROM checkpoints GROUP BY id ORDER BY id")
    assert [(r[0], r[1]) for r in rows] == [("good_app", 1), ("mobile_overflow", 1)]  # stored once each
    assert rows[1][3].startswith("repair-") and not rows[0][3].startswith("repair-"), rows  # CLI's, then the flow's
    assert len(DataRoot(root).keys("checkpoints")) == 2  # a key per page, whoever repaired it
    attempts = query(root, "SELECT id, strategy, accepted, reason FROM repair_attempts ORDER BY id, round")
    assert attempts and all(a[1] == "operator" for a in attempts)
    assert any(a[2] for a in attempts), attempts  # the viewport fix is verified and kept
    again = run_flow(cmd, env)
    assert again["repair"]["repaired_batches"] == 0 and again["repair"]["transitions"] == first["repair"]["transitions"]
    assert len(DataRoot(root).keys("checkpoints")) == 2


def test_a_flow_killed_while_repairing_resumes_without_repairing_a_page_twice(prefect_api, tmp_path):
    _, env = prefect_api
    pages, root, log = small_pages(tmp_path / "pages", copies=1), tmp_path / "data", tmp_path / "flow.log"
    cmd = flow_command(root, pages=[pages], batch_size=1) + ["--repair", "--repair-rounds", "2"]
    proc = start_flow(cmd, env, log)
    try:
        deadline = time.monotonic() + 600
        while proc.poll() is None and time.monotonic() < deadline and not DataRoot(root).keys("checkpoints"):
            time.sleep(0.02)
        assert proc.poll() is None, "the flow ended before it could be killed while repairing\n" + log_tail(log)
    finally:
        kill_session(proc)  # SIGKILL: the flow, its Dask workers, their browsers
    done_before = len(DataRoot(root).keys("checkpoints"))
    assert 1 <= done_before < len(FIXTURE_PAGES)
    result = run_flow(cmd, env)
    assert result["repair"]["repaired_batches"] == len(FIXTURE_PAGES) - done_before  # only what was not committed
    assert result["repair"]["pages"] == len(FIXTURE_PAGES)
    best = query(root, "SELECT id, count(*) FROM checkpoints WHERE is_best GROUP BY id ORDER BY id")
    assert best == [(f"{name}_0", 1) for name in sorted(FIXTURE_PAGES)]
    assert query(root, "SELECT id, round, candidate FROM repair_attempts GROUP BY ALL HAVING count(*) > 1") == []
