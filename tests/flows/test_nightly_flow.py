"""The nightly refresh: build-refined-pool over a folder of prompt files, incremental, with repair
and export. Night 2 brings two new prompts: only they are generated and evaluated, and the new
export version adds exactly their rows and names night 1's version; night 3 has nothing new and
writes nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
from conftest import ROOT
from llm.llm_server import RoutedReplies, chat_reply
from test_prompts_flow import (COUNTER, COUNTER_PAGE, GREETING, GREETING_PAGE, KEY, MODEL, files_under, flow_env,  # noqa: F401
                               item, rows)

TIPS = "Make a tip calculator web page in one HTML file: an input #bill and a paragraph #tip showing 15 percent of it."
SWATCH = "Create a colour swatch web page in one HTML file with a heading that says Palette and three coloured squares."
TIPS_PAGE = ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
             "content=\"width=device-width, initial-scale=1\"><title>Tips</title></head><body><main><h1>Tip calculator</h1>"
             "<label for=\"bill\">Bill</label> <input id=\"bill\" type=\"number\" value=\"20\"><p id=\"tip\">3.00</p></main>"
             "<script>const b = document.getElementById('bill'); b.addEventListener('input', () => {"
             " document.getElementById('tip').textContent = (b.value * 0.15).toFixed(2); });</script></body></html>")
SWATCH_PAGE = ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
               "content=\"width=device-width, initial-scale=1\"><title>Palette</title><style>div{width:80px;height:80px;"
               "display:inline-block;margin:8px}</style></head><body><main><h1>Palette</h1><div style=\"background:#e63946\">"
               "</div><div style=\"background:#2a9d8f\"></div><div style=\"background:#264653\"></div></main></body></html>")
ROUTES = {"click counter": [chat_reply(COUNTER_PAGE)], "greeting card": [chat_reply(GREETING_PAGE)],
          "tip calculator": [chat_reply(TIPS_PAGE)], "colour swatch": [chat_reply(SWATCH_PAGE)]}
NIGHT_1 = [item("counter", COUNTER, "#count", "1", {"action": "click", "selector": "#inc"}),
           item("greeting", GREETING, "h1", "Hello friend")]
NIGHT_2 = [item("tips", TIPS, "#tip", "3.00"), item("swatch", SWATCH, "h1", "Palette")]


def night(prompts: Path, data_root: Path, env: dict, log: Path) -> dict:
    cmd = [sys.executable, "-m", "webmend.flows.build_refined_pool", "--prompts", str(prompts), "--model", MODEL,
           "--data-root", str(data_root), "--batch-size", "2", "--n-workers", "1", "--incremental", "--repair",
           "--export", "--export-routes", "raw", "refined"]
    with open(log, "ab") as out:
        done = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=out, timeout=600)
    assert done.returncode == 0, log.read_text(errors="replace")[-4000:]
    text = done.stdout.decode()
    return json.loads(text[text.index("{\n"):])  # the flow's result, printed last


def exported_ids(manifest_path: str, route: str) -> set[str]:
    folder = Path(manifest_path).parent
    manifest = json.loads(Path(manifest_path).read_text())
    files = manifest["datasets"][f"webmend_{route}_sharegpt"]["files"]
    return {i for f in files for i in pq.read_table(folder / f, columns=["id"])["id"].to_pylist()}


def test_three_nights(flow_env, llm_server, tmp_path):
    incoming, data_root, log = tmp_path / "incoming", tmp_path / "data", tmp_path / "flow.log"
    incoming.mkdir()
    (incoming / "2026-12-01.jsonl").write_text("".join(json.dumps(i) + "\n" for i in NIGHT_1))
    llm_server.fallback = RoutedReplies(ROUTES)

    first = night(incoming, data_root, flow_env, log)
    assert first["export"]["status"] == "exported" and first["export"]["previous"] is None
    assert exported_ids(first["export"]["manifest"], "raw") == {"counter", "greeting"}
    calls = len(llm_server.requests)
    assert calls == 2

    (incoming / "2026-12-02.jsonl").write_text("".join(json.dumps(i) + "\n" for i in NIGHT_2))
    second = night(incoming, data_root, flow_env, log)
    assert len(llm_server.requests) == calls + 2  # only the new prompts reach the model
    assert second["evaluated_batches"] == 1 and second["pages"] == 2  # only their pages are evaluated
    assert rows(data_root, "SELECT id, count(*) FROM evaluations GROUP BY id ORDER BY id") == [
        ("counter", 1), ("greeting", 1), ("swatch", 1), ("tips", 1)]
    v1, v2 = first["export"], second["export"]
    assert v2["status"] == "exported" and v2["previous"] == v1["version"] != v2["version"]
    assert exported_ids(v2["manifest"], "raw") - exported_ids(v1["manifest"], "raw") == {"tips", "swatch"}
    assert exported_ids(v1["manifest"], "raw") <= exported_ids(v2["manifest"], "raw")
    new_refined = exported_ids(v2["manifest"], "refined") - exported_ids(v1["manifest"], "refined")
    assert new_refined <= {"tips", "swatch"}
    lineage = json.loads(Path(v2["manifest"]).read_text())["lineage"]
    assert lineage == {"previous": v1["version"], "added": 2 + len(new_refined), "removed": 0}
    assert json.loads((data_root / "corpus" / "LATEST.json").read_text())["version"] == v2["version"]

    before = files_under(data_root)
    third = night(incoming, data_root, flow_env, log)
    assert len(llm_server.requests) == calls + 2 and third["evaluated_batches"] == 0
    assert third["export"] == {**v2, "status": "unchanged", "previous": None}
    assert files_under(data_root) == before
    assert not any(KEY in p.read_text(errors="replace") for p in data_root.rglob("*.json*"))
