"""build-refined-pool with the repair stage: operators repair the evaluated pages on Dask, the
repair tables are written, a page `webmend repair` already stored is not repaired again, a rerun
skips the committed pages."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import FIXTURES, ROOT
from flow_fixtures import flow_command, query

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
