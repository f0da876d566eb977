"""The run summary (the flow's markdown artifact) from committed trace files (no browser)."""

from __future__ import annotations

import json

from conftest import FIXTURES

from webmend.evaluate import traces
from webmend.pool.summary import summarize_pool, summary_markdown
from webmend.store import DataRoot

RESULTS = FIXTURES / "traces" / "results.jsonl"


def write_fixture(root: DataRoot) -> list[str]:
    records = [json.loads(line) for line in RESULTS.read_text().splitlines()]
    keys = []
    for chunk in (records[:3], records[3:]):
        traces.write_evaluation_traces(chunk, root, "run-1")
        keys.append(traces.traces_key(chunk))
    return keys


def test_summary_counts_means_slowest_and_failures(tmp_path):
    root = DataRoot(tmp_path)
    keys = write_fixture(root)
    s = summarize_pool(root, keys + ["0" * 32])  # a key not committed (yet) counts as a batch only
    assert (s["batches"], s["batches_committed"], s["pages"]) == (3, 2, 5)
    assert s["by_status"] == {"hang": 1, "no_html": 1, "ok": 2, "timeout": 1}
    assert s["by_band"] == {"High": 1, "Mid": 1, "Low": 1, "unscored": 2}
    assert s["mean_scores"]["total"] == round((86.5 + 55.0 + 21.5) / 3, 2)
    assert [p["id"] for p in s["slowest"]][:3] == ["apps/planner", "games/particles", "games/snake"]
    assert s["top_failed_tests"][0] == {"test_id": "snake-turn", "failures": 2}
    assert {p["id"] for p in s["failed_pages"]} == {"apps/planner", "games/particles"}


def test_only_the_given_keys_are_summarised(tmp_path):
    root = DataRoot(tmp_path)
    keys = write_fixture(root)
    assert summarize_pool(root, keys[1:])["pages"] == 2
    assert summarize_pool(root, [])["pages"] == 0


def test_markdown_has_every_section(tmp_path):
    root = DataRoot(tmp_path)
    md = summary_markdown(summarize_pool(root, write_fixture(root)), run_id="run-1", data_root=str(tmp_path))
    for heading in ("# build-refined-pool: run-1", "## Pages by status", "## Pages by band",
                    "## Mean scores", "## Slowest pages", "## Top failures"):
        assert heading in md
    assert "| snake-turn | 2 |" in md and "| unscored | 2 |" in md
