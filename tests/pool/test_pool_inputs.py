"""The prompt stages of build-refined-pool without Prefect or a browser (webmend/pool/inputs.py):
intake tables committed once, generation through litellm against the scripted server, skips by key."""

from __future__ import annotations

import json

import pytest
from llm.llm_server import RoutedReplies, chat_reply

from webmend.llm.settings import GenerationSettings
from webmend.pool import inputs as pool_inputs
from webmend.store import DataRoot

MODEL = "openai/scripted-model"
PAGE = "<!DOCTYPE html><html><head><title>T</title></head><body><h1>Tiles</h1><p>ok</p></body></html>"
PROMPTS = [
    {"id": "tiles", "prompt": "Build a web page in one HTML file showing a grid of colour tiles.",
     "test_cases": [{"id": "tc", "name": "h1", "weight": 1,
                     "steps": [{"action": "assert_visible", "selector": "h1"}]}]},
    {"id": "clock", "prompt": "Make a single HTML page with an analog clock drawn on a canvas."},
    {"id": "clock2", "prompt": "Make a single HTML page with an analog clock drawn on a canvas."},
]


@pytest.fixture
def server(llm_server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_BASE", llm_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-pool-inputs")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    llm_server.fallback = RoutedReplies({"colour tiles": [chat_reply(PAGE)], "analog clock": [chat_reply(PAGE)]})
    return llm_server


@pytest.fixture
def prompts_file(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in PROMPTS))
    return path


def test_intake_commits_its_tables_once(tmp_path, prompts_file):
    root = str(tmp_path / "data")
    first = pool_inputs.intake_stage(root, [str(prompts_file)])
    assert first.written and [p.id for p in first.prompts] == ["tiles", "clock"] and first.rejected == 1
    assert DataRoot(root).keys("prompts") == [first.key] == DataRoot(root).keys("prompt_rejects")
    assert DataRoot(root).read("prompt_rejects").column("reason").to_pylist() == ["duplicate"]

    again = pool_inputs.intake_stage(root, [str(prompts_file)])
    assert not again.written and (again.key, again.prompts) == (first.key, first.prompts)


def test_benchmarks_change_the_intake_key(tmp_path, prompts_file):
    bench = tmp_path / "bench.txt"
    bench.write_text("Build a web page in one HTML file showing a grid of colour tiles.\n")
    root = str(tmp_path / "data")
    plain = pool_inputs.intake_stage(root, [str(prompts_file)])
    checked = pool_inputs.intake_stage(root, [str(prompts_file)], [str(bench)])
    assert checked.key != plain.key and [p.id for p in checked.prompts] == ["clock"]
    rejects = DataRoot(root).read("prompt_rejects").to_pylist()
    assert sorted(r["reason"] for r in rejects if r["run_id"] == checked.run_id) == ["contaminated", "duplicate"]


def test_generation_runs_once_then_reuses_its_committed_output(tmp_path, prompts_file, server):
    root = str(tmp_path / "data")
    kept = pool_inputs.intake_stage(root, [str(prompts_file)]).prompts
    made = pool_inputs.generation_stage(root, kept, MODEL, samples=2)
    assert made.generated and made.summary["calls"] == 4 and len(server.requests) == 4
    lines = [json.loads(x) for x in open(made.responses, encoding="utf-8")]
    assert [x["id"] for x in lines] == ["tiles", "tiles#1", "clock", "clock#1"]
    assert made.responses == str(tmp_path / "data" / "responses" / made.key / "responses.jsonl")
    assert DataRoot(root).read("generations").num_rows == 4

    again = pool_inputs.generation_stage(root, kept, MODEL, samples=2)
    assert not again.generated and again.summary == made.summary and len(server.requests) == 4

    # Forced again: the response cache under the data root answers every call.
    forced = pool_inputs.generation_stage(root, kept, MODEL, samples=2, replace=True)
    assert forced.generated and forced.summary["cache_hits"] == 4 and len(server.requests) == 4


def test_the_spend_cap_of_the_settings_stops_generation(tmp_path, prompts_file, server):
    root = str(tmp_path / "data")
    kept = pool_inputs.intake_stage(root, [str(prompts_file)]).prompts
    capped = GenerationSettings(workers=1, max_total_tokens=5)  # the first answer alone spends more
    made = pool_inputs.generation_stage(root, kept, MODEL, settings=capped)
    assert made.summary["stopped"]["by"] == "spend_cap" and len(server.requests) == 1
    assert made.summary["by_status"] == {"generated": 1, "not_generated": 1}
    # Stopped runs are not reused: without the cap, only the missing sample is paid for.
    again = pool_inputs.generation_stage(root, kept, MODEL)
    assert again.generated and again.summary["cache_hits"] == 1 and len(server.requests) == 2


def test_intake_models_rewrite_once_and_key_the_intake(tmp_path, server):
    posts = tmp_path / "posts.jsonl"
    posts.write_text(json.dumps({"title": "tiny timer?", "selftext": "hi all, could someone make me a little "
                                 "pomodoro timer page, 25 and 5 minutes, with a start button? thanks!"}) + "\n")
    rewritten = "Build a single HTML pomodoro timer page with 25 and 5 minute phases and a start button."
    server.fallback = RoutedReplies({"pomodoro": [chat_reply(rewritten)]})
    root = str(tmp_path / "data")
    plain = pool_inputs.intake_stage(root, [str(posts)])
    assert len(server.requests) == 0 and plain.prompts[0].prompt.startswith("tiny timer?")
    first = pool_inputs.intake_stage(root, [str(posts)], rewrite_model="openai/rewriter")
    assert [p.prompt for p in first.prompts] == [rewritten] and len(server.requests) == 1
    assert first.key != plain.key and first.written
    assert server.requests[0].body["model"] == "rewriter" and server.requests[0].body["max_tokens"] == 600
    # The same intake again: the rewrite comes from ROOT/cache/intake, the tables are committed.
    again = pool_inputs.intake_stage(root, [str(posts)], rewrite_model="openai/rewriter")
    assert (again.key, again.prompts, again.written) == (first.key, first.prompts, False)
    assert len(server.requests) == 1 and list((tmp_path / "data" / "cache" / "intake").rglob("*.json"))


def test_a_stopped_generation_is_not_reused(tmp_path):
    out = tmp_path / "g"
    out.mkdir()
    (out / "responses.jsonl").write_text("")
    (out / "summary.json").write_text(json.dumps({"stopped": {"by": "spend_cap", "reason": "cap"}}))
    assert pool_inputs.generation_done(out) is None
    (out / "summary.json").write_text(json.dumps({"stopped": None, "calls": 1}))
    assert pool_inputs.generation_done(out) == {"stopped": None, "calls": 1}


def test_items_come_from_prompt_files_with_test_cases(tmp_path, prompts_file):
    plain = tmp_path / "plain.jsonl"
    plain.write_text(json.dumps({"id": "a", "prompt": "Build a page"}) + "\n")
    forum = tmp_path / "posts.jsonl"
    forum.write_text(json.dumps({"title": "help", "selftext": "make me a page"}) + "\n")
    assert pool_inputs.items_from_prompts([str(plain), str(forum), str(prompts_file)]) == str(prompts_file)
    assert pool_inputs.items_from_prompts([str(plain)]) is None


def test_object_store_roots_are_refused(tmp_path):
    with pytest.raises(ValueError, match="local data root"):
        pool_inputs.local_root("memory://bucket/data")
