"""A whole generation run against the scripted server: outputs, table, rerun, spend cap (webmend/generate/run.py)."""

import json

import pytest
from llm.llm_fixtures import MODEL, Sleeps, make_client, server  # noqa: F401  (fixture)
from llm.llm_server import Reply, RoutedReplies, chat_reply, content_filtered, error_reply, rate_limited

from webmend.evaluate.inputs import iter_responses, match_item
from webmend.generate.prompts import SAFE_DEMO_SUFFIX, PromptIn
from webmend.generate.run import run_generation
from webmend.generate.samples import GenerationConfig
from webmend.llm.cache import ResponseCache
from webmend.llm.limits import SpendCap
from webmend.schemas.tables import TABLES
from webmend.store import DataRoot


def page(title: str) -> str:
    return f"<!DOCTYPE html>\n<html><head><title>{title}</title></head><body><h1>{title}</h1><p>ok</p></body></html>"


PROMPTS = [PromptIn(pid, f"[{pid}] Build a small {pid} page") for pid in
           ("good", "fenced", "trunc", "limited", "flaky", "slow", "refuse")]
ROUTES = {
    "[good]": [chat_reply(page("good"))],
    "[fenced]": [chat_reply(f"Sure! Here is the page:\n```html\n{page('fenced')}\n```\nHope it helps.")],
    "[trunc]": [chat_reply(page("trunc")[:60], finish_reason="length")],
    "[limited]": [rate_limited(retry_after=4), chat_reply(page("limited"))],
    "[flaky]": [error_reply(500), error_reply(502), chat_reply(page("flaky"))],
    "[slow]": [Reply(200, chat_reply("too late").body, delay_s=1.2), chat_reply(page("slow"))],
    "[refuse]": [content_filtered(), chat_reply(page("refuse"))],
}


def run(tmp_path, client, prompts=PROMPTS, cfg=None, run_id="r1", workers=3):
    return run_generation(prompts, cfg or GenerationConfig(MODEL), client, tmp_path / "out",
                          cache=ResponseCache(tmp_path / "cache"), data_root=DataRoot(tmp_path / "out"),
                          run_id=run_id, workers=workers, chunk_size=4)


def rows_by_id(tmp_path):
    rows = DataRoot(tmp_path / "out").read("generations").to_pylist()
    by_id = {}
    for row in rows:
        by_id.setdefault(row["id"], []).append(row)
    return rows, by_id


def test_mixed_answers_end_to_end(server, tmp_path):
    server.fallback = RoutedReplies(ROUTES)
    sleeps = Sleeps()
    summary = run(tmp_path, make_client(sleeps, timeout_s=0.5))

    # responses.jsonl: every generated sample, input order, ready for `webmend evaluate --responses`.
    out = tmp_path / "out"
    lines = [json.loads(line) for line in (out / "responses.jsonl").read_text().splitlines()]
    assert [line["id"] for line in lines] == [p.id for p in PROMPTS]
    assert lines[0] == {"id": "good", "prompt": PROMPTS[0].prompt, "response": page("good")}
    raw = list(iter_responses(out / "responses.jsonl"))
    assert all(r.reject is None for r in raw) and [r.id for r in raw] == [p.id for p in PROMPTS]

    # The generations table: one row per call, validated by the store against its schema.
    rows, by_id = rows_by_id(tmp_path)
    assert len(rows) == 8 and set(rows[0]) == set(TABLES["generations"].names)
    assert all(r["run_id"] == "r1" and r["schema_version"] and r["config_hash"] for r in rows)
    final = {pid: rs[-1] for pid, rs in by_id.items()}
    assert {pid: r["extraction_status"] for pid, r in final.items()} == {
        "good": "complete", "fenced": "complete", "trunc": "truncated", "limited": "complete",
        "flaky": "complete", "slow": "complete", "refuse": "complete"}
    assert final["trunc"]["finish_reason"] == "length"
    assert {pid: r["retries"] for pid, r in final.items()} == {
        "good": 0, "fenced": 0, "trunc": 0, "limited": 1, "flaky": 2, "slow": 1, "refuse": 0}
    assert [(r["status"], r["safe_demo_retry"]) for r in by_id["refuse"]] == [("refused", False), ("generated", True)]
    assert any(SAFE_DEMO_SUFFIX in r.user_text for r in server.requests)
    assert any(4.0 <= s <= 4.1 for s in sleeps)  # the 429's Retry-After
    assert all(r["started_at"] <= r["finished_at"] and r["latency_s"] > 0 for r in rows)

    saved = json.loads((out / "summary.json").read_text())
    assert saved == summary
    assert summary["by_status"] == {"generated": 7} and summary["pages"] == {"complete": 6, "truncated": 1}
    assert (summary["calls"], summary["cache_hits"], summary["retries"], summary["safe_demo_retries"]) == (8, 0, 4, 1)
    assert summary["stopped"] is None


def test_rerun_is_served_from_the_cache(server, tmp_path):
    server.fallback = RoutedReplies(ROUTES)
    run(tmp_path, make_client(timeout_s=0.5))
    first = (tmp_path / "out" / "responses.jsonl").read_text()
    calls = len(server.requests)
    summary = run(tmp_path, make_client(timeout_s=0.5), run_id="r2")
    assert len(server.requests) == calls  # the server saw no second call
    assert (tmp_path / "out" / "responses.jsonl").read_text() == first
    assert (summary["calls"], summary["cache_hits"], summary["tokens"]) == (0, 8, 0)
    rows, _ = rows_by_id(tmp_path)
    assert len(rows) == 8  # replaced, not duplicated
    assert all(r["cache_hit"] and r["run_id"] == "r2" for r in rows)


def test_samples_and_temperatures(server, tmp_path):
    server.fallback = lambda req: chat_reply(page(f"t={req.body.get('temperature')}"))
    cfg = GenerationConfig(MODEL, samples=2, temperatures=(0.2, 1.0))
    prompts = [PromptIn("game_snake", "Snake"), PromptIn("art_tiles", "Tiles")]
    summary = run(tmp_path, make_client(), prompts=prompts, cfg=cfg)
    lines = [json.loads(line) for line in (tmp_path / "out" / "responses.jsonl").read_text().splitlines()]
    assert [line["id"] for line in lines] == ["game_snake", "game_snake#1", "game_snake#2", "game_snake#3",
                                              "art_tiles", "art_tiles#1", "art_tiles#2", "art_tiles#3"]
    assert "t=0.2" in lines[1]["response"] and "t=1.0" in lines[2]["response"]
    items = {"game_snake": {"id": "game_snake"}, "art_tiles": {"id": "art_tiles"}}
    assert [match_item(items, line["id"])["id"] for line in lines] == ["game_snake"] * 4 + ["art_tiles"] * 4
    assert summary["calls"] == 8 and len(server.requests) == 8  # repeats at one temperature are distinct calls


def test_spend_cap_stops_cleanly_and_a_rerun_resumes(server, tmp_path):
    server.fallback = lambda req: chat_reply(page("x"), prompt_tokens=40, completion_tokens=60)
    prompts = [PromptIn(f"p{i}", f"Page number {i}") for i in range(5)]
    summary = run_generation(prompts, GenerationConfig(MODEL), make_client(spend_cap=SpendCap(max_tokens=250)),
                             tmp_path / "out", cache=ResponseCache(tmp_path / "cache"),
                             data_root=DataRoot(tmp_path / "out"), run_id="capped", workers=1)
    assert summary["by_status"] == {"generated": 3, "not_generated": 2}
    assert summary["stopped"]["by"] == "spend_cap" and summary["tokens"] == 300
    lines = (tmp_path / "out" / "responses.jsonl").read_text().splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["p0", "p1", "p2"]
    _, by_id = rows_by_id(tmp_path)
    for pid in ("p3", "p4"):
        (row,) = by_id[pid]
        assert row["status"] == "not_generated" and "token cap reached" in row["error"]
    assert len(server.requests) == 3

    resumed = run_generation(prompts, GenerationConfig(MODEL), make_client(spend_cap=SpendCap(max_tokens=250)),
                             tmp_path / "out", cache=ResponseCache(tmp_path / "cache"),
                             data_root=DataRoot(tmp_path / "out"), run_id="resumed", workers=1)
    assert resumed["by_status"] == {"generated": 5} and resumed["cache_hits"] == 3 and resumed["calls"] == 2
    assert len(server.requests) == 5
    _, by_id = rows_by_id(tmp_path)
    assert [by_id[f"p{i}"][0]["status"] for i in range(5)] == ["generated"] * 5


def test_cost_cap_uses_litellm_prices(server, tmp_path):
    server.fallback = lambda req: chat_reply(page("x"), model="gpt-4o-mini", prompt_tokens=1000,
                                             completion_tokens=10_000)  # $0.00615 a call
    prompts = [PromptIn(f"p{i}", f"Page number {i}") for i in range(4)]
    summary = run_generation(prompts, GenerationConfig(MODEL), make_client(spend_cap=SpendCap(max_cost_usd=0.01)),
                             tmp_path / "out", cache=None, data_root=DataRoot(tmp_path / "out"), run_id="c",
                             workers=1)
    assert summary["by_status"] == {"generated": 2, "not_generated": 2}
    assert summary["cost_usd"] == pytest.approx(2 * 0.00615)
