"""The CPU rollout server (`trainenv.serve`): OpenAI-shaped answers, seeded sampling, and weights
reloaded from disk only when the folder loads. Runs in the training environment."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from http.server import ThreadingHTTPServer

import pytest

from webmend.training.trainenv.policy_worker import param_digest
from webmend.training.trainenv.serve import Served, handler
from webmend.training.trainenv.tiny import build_model, build_tokenizer

TEXTS = ["<!DOCTYPE html><html><body><button>+1</button></body></html>", "A counter page.", "You write pages."]


def save_tiny(out, seed: int):
    tokenizer = build_tokenizer(TEXTS * 20, 300)
    model = build_model(len(tokenizer), seed, tokenizer)
    tokenizer.save_pretrained(out)
    model.save_pretrained(out, safe_serialization=True)
    return param_digest(model)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("serve")
    digests = {seed: save_tiny(root / f"m{seed}", seed) for seed in (0, 1)}
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler(Served(str(root / "m0"), "policy")))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", root, digests
    httpd.shutdown()


def call(url: str, body: dict | None = None) -> tuple[int, dict]:
    data = None if body is None else json.dumps(body).encode()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=60) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_answers_are_openai_shaped_and_a_seed_repeats_them(server):
    base, _, digests = server
    ask = {"messages": [{"role": "user", "content": "A counter page."}], "max_tokens": 12, "temperature": 1.0,
           "seed": 5, "n": 2}
    status, first = call(base + "/v1/chat/completions", ask)
    assert status == 200 and first["object"] == "chat.completion" and len(first["choices"]) == 2
    assert {c["finish_reason"] for c in first["choices"]} <= {"stop", "length"}
    assert first["usage"]["completion_tokens"] > 0
    _, again = call(base + "/v1/chat/completions", ask)
    assert [c["message"]["content"] for c in again["choices"]] == [c["message"]["content"] for c in first["choices"]]
    assert call(base + "/v1/chat/completions", {"max_tokens": 3})[0] == 400  # no messages


def test_weights_reload_from_disk_and_a_bad_folder_keeps_the_served_ones(server):
    base, root, digests = server
    status, answer = call(base + "/update_weights_from_disk", {"model_path": str(root / "missing")})
    assert status == 400 and answer["success"] is False
    assert call(base + "/v1/models")[1]["data"][0]["digest"] == digests[0]
    status, answer = call(base + "/update_weights_from_disk", {"model_path": str(root / "m1")})
    assert status == 200 and answer["success"] and answer["digest"] == digests[1] != digests[0]
    model = call(base + "/v1/models")[1]["data"][0]
    assert (model["id"], model["root"], model["digest"]) == ("policy", str(root / "m1"), digests[1])
