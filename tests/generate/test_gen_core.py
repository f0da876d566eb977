"""One sample end to end through litellm: rows, the safe-demo retry, the per-call cache (webmend/generate/core.py)."""

import json

from llm.llm_fixtures import MODEL, make_client, server  # noqa: F401  (fixture)
from llm.llm_server import chat_reply, content_filtered, error_reply, policy_violation

from webmend.generate.core import RunStop, generate_sample, page_status
from webmend.generate.prompts import SAFE_DEMO_SUFFIX, SYSTEM_PROMPT, PromptIn
from webmend.generate.samples import GenerationConfig, Sample
from webmend.llm.cache import ResponseCache
from webmend.schemas.hashing import sha256_hex

PAGE = "<!DOCTYPE html>\n<html><head><title>Pay</title></head><body><form><input name=card></form></body></html>"
CFG = GenerationConfig(MODEL, temperatures=(0.4,))
CHECKOUT = PromptIn("apps_checkout", "Build a checkout page with a credit-card form")


def sample(index=0):
    return Sample(CHECKOUT, index, 0.4)


def test_page_status_uses_the_evaluator_extractor():
    assert page_status(PAGE) == "complete"
    assert page_status("Here you go:\n```html\n" + PAGE + "\n```\nEnjoy!") == "complete"
    assert page_status(PAGE[:70]) == "truncated"
    assert page_status("I'm sorry, I can't write that page.") == "no_html"
    assert page_status("") == "no_html"


def test_generated_sample_row(server, tmp_path):
    server.script(chat_reply(PAGE, prompt_tokens=40, completion_tokens=90))
    result = generate_sample(sample(), CFG, make_client(), ResponseCache(tmp_path), RunStop())
    assert result.response == PAGE
    (row,) = result.rows
    assert row["status"] == "generated" and row["extraction_status"] == "complete"
    assert (row["id"], row["prompt_id"], row["sample_index"]) == ("apps_checkout", "apps_checkout", 0)
    assert (row["provider"], row["model"], json.loads(row["params"])) == ("openai", MODEL, {"temperature": 0.4})
    assert row["input_hash"] == sha256_hex(CHECKOUT.prompt) and row["response_hash"] == sha256_hex(PAGE)
    assert (row["total_tokens"], row["retries"], row["cache_hit"], row["safe_demo_retry"]) == (130, 0, False, False)
    (req,) = server.requests
    assert req.messages == [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": CHECKOUT.prompt}]


def test_refusal_gets_exactly_one_safe_demo_retry(server, tmp_path):
    server.script(content_filtered(), chat_reply(PAGE))
    result = generate_sample(sample(), CFG, make_client(), ResponseCache(tmp_path), RunStop())
    assert result.response == PAGE
    first, retry = result.rows
    assert (first["status"], first["finish_reason"], first["safe_demo_retry"]) == ("refused", "content_filter", False)
    assert first["extraction_status"] == "no_html"
    assert (retry["status"], retry["safe_demo_retry"]) == ("generated", True)
    assert [r.user_text for r in server.requests] == [CHECKOUT.prompt, f"{CHECKOUT.prompt}\n\n{SAFE_DEMO_SUFFIX}"]


def test_refused_twice_gives_no_response(server, tmp_path):
    server.script(policy_violation(), content_filtered())
    result = generate_sample(sample(), CFG, make_client(), ResponseCache(tmp_path), RunStop())
    assert result.response is None
    assert [r["status"] for r in result.rows] == ["refused", "refused"]
    assert "safety system" in result.rows[0]["error"]
    assert len(server.requests) == 2  # no third try


def test_each_call_is_cached_and_a_rerun_pays_nothing(server, tmp_path):
    server.script(content_filtered(), chat_reply(PAGE))
    cache = ResponseCache(tmp_path)
    generate_sample(sample(), CFG, make_client(), cache, RunStop())
    again = generate_sample(sample(), CFG, make_client(), cache, RunStop())
    assert len(server.requests) == 2  # the rerun reached the server not once
    assert again.response == PAGE
    assert [(r["status"], r["cache_hit"], r["safe_demo_retry"]) for r in again.rows] == [
        ("refused", True, False), ("generated", True, True)]


def test_sample_index_is_part_of_the_cache_key(server, tmp_path):
    server.script(chat_reply(PAGE), chat_reply(PAGE.replace("Pay", "Pay 2")))
    cache = ResponseCache(tmp_path)
    a = generate_sample(sample(0), CFG, make_client(), cache, RunStop())
    b = generate_sample(sample(1), CFG, make_client(), cache, RunStop())
    assert a.response != b.response and b.rows[0]["id"] == "apps_checkout#1"
    assert len(server.requests) == 2


def test_failed_call_is_a_row_not_a_crash_and_is_not_cached(server, tmp_path):
    server.script(error_reply(400, "prompt too long", err_type="invalid_request_error"), chat_reply(PAGE))
    cache, stop = ResponseCache(tmp_path), RunStop()
    failed = generate_sample(sample(), CFG, make_client(), cache, stop)
    assert failed.response is None and stop.reason is None  # one bad request does not stop the run
    (row,) = failed.rows
    assert row["status"] == "failed" and row["error"].startswith("bad_request: ") and "prompt too long" in row["error"]
    assert generate_sample(sample(), CFG, make_client(), cache, stop).response == PAGE


def test_rejected_credentials_stop_the_run(server, tmp_path):
    server.script(error_reply(401, "invalid api key", err_type="invalid_request_error"))
    stop = RunStop()
    generate_sample(sample(), CFG, make_client(), ResponseCache(tmp_path), stop)
    assert stop.by == "auth"
    later = generate_sample(Sample(PromptIn("other", "Build a clock"), 0, 0.4), CFG, make_client(),
                            ResponseCache(tmp_path), stop)
    assert later.rows[0]["status"] == "not_generated" and "credentials rejected" in later.rows[0]["error"]
    assert len(server.requests) == 1



def test_an_entry_from_an_older_layout_is_a_miss(server, tmp_path):
    from webmend.generate.prompts import messages_for
    from webmend.generate.samples import params_for
    from webmend.llm.cache import cache_key

    cache = ResponseCache(tmp_path)
    key = cache_key(MODEL, params_for(sample(), CFG), messages_for(CHECKOUT.prompt), 0)
    cache.put(key, {"text": PAGE, "old_field": 1})
    server.script(chat_reply(PAGE))
    result = generate_sample(sample(), CFG, make_client(), cache, RunStop())
    assert result.rows[0]["cache_hit"] is False and len(server.requests) == 1
    assert generate_sample(sample(), CFG, make_client(), cache, RunStop()).rows[0]["cache_hit"] is True
