"""End to end through the CLI: one record per input in order, valid against the contract,
resumable after a torn write, a SIGKILL or a SIGTERM (which leaves no process behind), and
rescorable without a browser."""

from __future__ import annotations

import collections
import contextlib
import json
import os
import signal
import subprocess
import sys
import time

import jsonschema
import psutil
import pytest
from conftest import FIXTURES, ROOT, alive, sigkill_when

SCHEMA_DIR = ROOT / "webmend" / "schemas"
GOOD = (FIXTURES / "pages" / "good_app.html").read_text()


def webmend(*args, cwd):
    return subprocess.run([sys.executable, "-m", "webmend.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    d = tmp_path_factory.mktemp("corpus")
    pages = d / "pages"
    pages.mkdir()
    (pages / "good_app.html").write_text(GOOD)
    (pages / "tiny.html").write_text("<html><body>hi</body></html>")
    (pages / "latin1.html").write_bytes("<!doctype html><html><head><meta charset='iso-8859-1'><title>Café</title></head><body><h1>Crème brûlée für alle</h1><p>Olé olé olé, un café très chaud.</p></body></html>".encode("latin-1"))
    responses = [
        {"id": "good_app#1", "prompt": "todo", "response": "Here you go:\n```html\n" + GOOD + "\n```\nEnjoy!"},
        {"id": "refusal", "response": "I'm sorry, but I can't help with that request."},
        {"id": "empty", "response": "   "},
        {"id": "cut", "response": "```html\n<!DOCTYPE html><html><head><title>cut</title></head><body><h1>Half</h1><p>This page was cut off in the middle of"},
    ]
    lines = [json.dumps(r) for r in responses[:2]] + ["{broken json"] + [json.dumps(r) for r in responses[2:]]
    (d / "responses.jsonl").write_text("\n".join(lines) + "\n")
    item = {"id": "good_app", "category": "apps_tools", "difficulty": "easy", "has_interaction": True, "test_cases": [
        {"id": "tc_01", "weight": 2, "steps": [{"action": "type", "selector": "#new-todo", "text": "a"}, {"action": "click", "selector": "#add"},
                                               {"action": "assert_count", "selector": ".todo-item", "eq": 1}]},
        {"id": "tc_02", "weight": 3, "steps": [{"action": "assert_js_value", "expression": "false", "expected": True}]},
    ]}
    (d / "items.jsonl").write_text(json.dumps(item) + "\n")
    out = d / "out"
    res = webmend("evaluate", str(pages), "--responses", str(d / "responses.jsonl"), "--tests", str(d / "items.jsonl"), "--out", str(out), "--workers", "2", cwd=d)
    assert res.returncode == 0, res.stderr
    return d, out


def records(out):
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def test_one_valid_record_per_input_in_order(corpus):
    _, out = corpus
    recs = records(out)
    schema = json.loads((SCHEMA_DIR / "result.schema.json").read_text())
    for rec in recs:
        jsonschema.validate(rec, schema)
    assert [r["index"] for r in recs] == list(range(8))
    got = [(r["id"], r["status"]) for r in recs]
    assert got == [("good_app", "ok"), ("latin1", "ok"), ("tiny", "trivial"), ("good_app#1", "ok"), ("refusal", "no_html"),
                   ("line-3", "malformed_input"), ("empty", "empty"), ("cut", "ok")]
    by_id = {r["id"]: r for r in recs}
    assert "fenced" in by_id["good_app#1"]["flags"] and "truncated" in by_id["cut"]["flags"]
    assert "decoded" in by_id["latin1"]["flags"] and by_id["latin1"]["encoding"]
    assert by_id["refusal"]["score"] is None and by_id["refusal"]["reason"]
    assert [t["passed"] for t in by_id["good_app"]["tests"]] == [True, False]
    assert by_id["good_app"]["tests"][1]["failed_step"] == 0
    assert by_id["good_app#1"]["tests"] == by_id["good_app"]["tests"]  # sample ids match their prompt's item
    assert by_id["good_app"]["score"]["functionality"] == pytest.approx(55 * 2 / 5)
    assert by_id["good_app"]["chromium_version"] and by_id["good_app"]["playwright_version"]
    summary = json.loads((out / "summary.json").read_text())
    jsonschema.validate(summary, json.loads((SCHEMA_DIR / "summary.schema.json").read_text()))
    assert summary["pages"] == 8 and summary["pages_by_status"]["ok"] == 4
    assert summary["pass_rate_by_category"]["apps_tools"]["rate"] == pytest.approx(0.4)


def test_resume_after_a_torn_write(corpus, tmp_path):
    d, out = corpus
    full = records(out)
    resumed = tmp_path / "resumed"
    resumed.mkdir()
    text = (out / "results.jsonl").read_text().splitlines(keepends=True)
    (resumed / "results.jsonl").write_text("".join(text[:5]) + text[5][:40])  # crash mid-line
    res = webmend("evaluate", str(d / "pages"), "--responses", str(d / "responses.jsonl"), "--tests", str(d / "items.jsonl"), "--out", str(resumed), cwd=d)
    assert res.returncode == 0, res.stderr
    again = records(resumed)
    strip = lambda rs: [{k: v for k, v in r.items() if k not in ("elapsed_s", "evidence")} for r in rs]  # noqa: E731
    assert strip(again) == strip(full)


def test_a_run_killed_with_sigkill_resumes_to_the_same_records(corpus, tmp_path):
    d, out = corpus
    killed = tmp_path / "killed"
    args = ["evaluate", str(d / "pages"), "--responses", str(d / "responses.jsonl"), "--tests", str(d / "items.jsonl"),
            "--out", str(killed)]
    results = killed / "results.jsonl"
    sigkill_when(["-m", "webmend.cli", *args], lambda: results.exists() and results.read_text().count("\n") >= 2,
                 cwd=d)
    res = webmend(*args, cwd=d)
    assert res.returncode == 0, res.stderr
    strip = lambda rs: [{k: v for k, v in r.items() if k not in ("elapsed_s", "evidence")} for r in rs]  # noqa: E731
    assert strip(records(killed)) == strip(records(out))  # every input once, in order


def test_sigterm_ends_every_process_of_the_run_and_a_rerun_resumes(corpus, tmp_path):
    """As a job scheduler stops a job: SIGTERM to the main process alone. Its pool workers, their
    Playwright drivers, Chromium browsers and CDN mirror servers end with it; the rerun finishes."""
    d, out = corpus
    stopped = tmp_path / "stopped"
    args = ["evaluate", str(d / "pages"), "--responses", str(d / "responses.jsonl"), "--tests", str(d / "items.jsonl"),
            "--out", str(stopped), "--workers", "2"]
    results = stopped / "results.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "webmend.cli", *args], cwd=d, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        run: list[psutil.Process] = []
        deadline = time.monotonic() + 300
        while proc.poll() is None and time.monotonic() < deadline:
            run = psutil.Process(proc.pid).children(recursive=True)
            if results.exists() and results.read_text().count("\n") >= 1 and any("chrom" in p.name() for p in run):
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before it could be stopped"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 128 + signal.SIGTERM
        assert "stopped by SIGTERM" in proc.stderr.read()
        time.sleep(0.5)  # processes ended by a worker are reaped by init
        assert [(p.pid, p.name()) for p in run if alive(p)] == []
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # only if the test failed: leave nothing for the next test
    res = webmend(*args, cwd=d)
    assert res.returncode == 0, res.stderr
    strip = lambda rs: [{k: v for k, v in r.items() if k not in ("elapsed_s", "evidence")} for r in rs]  # noqa: E731
    assert strip(records(stopped)) == strip(records(out))  # every input once, in order


def test_rescore_recomputes_from_evidence(corpus, tmp_path):
    _, out = corpus
    before = records(out)
    by_id = {r["id"]: r for r in before}
    assert by_id["good_app"]["score"]["functionality"] == pytest.approx(55 * 2 / 5)
    assert by_id["good_app"]["state"] in ("Low", "Mid")  # default bands: nothing here is High
    scored = [r for r in before if r["score"]]
    assert len(scored) >= 4 and not any(r["state"] == "High" for r in before)
    # The stored scores and states are tampered with: rescore must derive them from the evidence
    # (and the stored test results), never copy them.
    copy = tmp_path / "copy"
    copy.mkdir()
    tampered = []
    for rec in before:
        rec = json.loads(json.dumps(rec))
        if rec["score"]:
            rec["score"] = {k: (None if v is None else 0.0) for k, v in rec["score"].items()}
            rec["state"] = "Low"
        tampered.append(json.dumps(rec))
    (copy / "results.jsonl").write_text("\n".join(tampered) + "\n")
    # Another config: the functionality budget doubled, and a total of 10 already High.
    cfg = tmp_path / "cfg.toml"
    cfg.write_text("[budgets]\nfunctionality = 110\n\n[bands]\nlow_below = 5.0\nhigh_from = 10.0\n")
    res = webmend("rescore", str(copy), "--config", str(cfg), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    after = records(copy)
    assert [(r["id"], r["status"]) for r in after] == [(r["id"], r["status"]) for r in before]
    for old, new in zip(before, after):
        if old["score"] is None:
            assert new["score"] is None and new["state"] is None, new["id"]
            continue
        s0, s1 = old["score"], new["score"]
        # functionality is budget x pass rate (or x probe value): linear in the budget
        assert s1["functionality"] == pytest.approx(2 * s0["functionality"], abs=1e-3), new["id"]
        for dim in ("rendering", "visual_design", "interaction", "code_quality"):
            assert s1[dim] == s0[dim], (new["id"], dim)
        assert s1["total"] == pytest.approx(s0["total"] + s0["functionality"], abs=2e-3), new["id"]
        assert s1["total"] > 0
        assert new["state"] == ("Low" if s1["total"] < 5 else "High" if s1["total"] >= 10 else "Mid"), new["id"]
    good = next(r for r in after if r["id"] == "good_app")
    assert good["score"]["functionality"] == pytest.approx(110 * 2 / 5) and good["state"] == "High"
    summary = json.loads((copy / "summary.json").read_text())
    assert summary["pages_by_state"] == dict(sorted(collections.Counter(r["state"] for r in after if r["state"]).items()))
    assert summary["pages_by_state"].get("High", 0) >= 1
    assert summary["mean_score"] == pytest.approx(sum(r["score"]["total"] for r in after if r["score"]) / len(scored), abs=1e-3)


def test_bad_invocations_exit_2(tmp_path):
    assert webmend("evaluate", cwd=tmp_path).returncode == 2
    assert webmend("evaluate", "--responses", str(tmp_path / "none.jsonl"), cwd=tmp_path).returncode == 2
    assert webmend("rescore", str(tmp_path), cwd=tmp_path).returncode == 2
