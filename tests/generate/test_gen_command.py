"""`webmend generate` on the command line (webmend/generate/command.py), against the scripted server."""

import json
import logging

from llm.llm_fixtures import MODEL, SECRET_KEY, server  # noqa: F401  (fixture)
from llm.llm_server import RoutedReplies, chat_reply, error_reply, rate_limited

from webmend.cli import main
from webmend.store import DataRoot

PAGE = "<!DOCTYPE html><html><head><title>T</title></head><body><h1>Tip calculator</h1></body></html>"


def write_prompts(path, ids):
    path.write_text("".join(json.dumps({"id": i, "prompt": f"[{i}] Build a {i} page"}) + "\n" for i in ids))
    return path


def echo_key(request):
    """A provider error that quotes the credential it was sent, as some proxies do."""
    return error_reply(400, f"model not allowed for {request.headers.get('authorization')}")


def test_generate_writes_outputs_and_never_a_key(server, tmp_path, caplog, capfd):
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="LiteLLM")
    server.fallback = RoutedReplies({"[tip]": [rate_limited(retry_after=0.01), chat_reply(PAGE)],
                                     "[quiz]": [chat_reply(f"```html\n{PAGE}\n```")]}, default=echo_key)
    prompts = write_prompts(tmp_path / "prompts.jsonl", ["tip", "quiz", "echo"])
    out = tmp_path / "out"
    code = main(["-v", "generate", str(prompts), "--model", MODEL, "--samples", "2", "--out", str(out),
                 "--workers", "2", "--max-tokens", "2048", "--seed", "3", "--run-id", "cli-run"])
    assert code == 0
    captured = capfd.readouterr()  # stdout also has litellm's debug lines here: caplog switched them on
    summary = json.loads((out / "summary.json").read_text())
    assert "litellm.completion(model='openai/scripted-model'" in caplog.text  # its debug records were seen
    assert summary["by_status"] == {"failed": 2, "generated": 4} and summary["run_id"] == "cli-run"
    lines = [json.loads(line) for line in (out / "responses.jsonl").read_text().splitlines()]
    assert [line["id"] for line in lines] == ["tip", "tip#1", "quiz", "quiz#1"]
    rows = DataRoot(out).read("generations").to_pylist()
    assert len(rows) == 6 and {r["error"] for r in rows if r["status"] == "failed"} == {
        "bad_request: openai/scripted-model: HTTP 400 BadRequestError: litellm.BadRequestError: "
        "OpenAIException - model not allowed for Bearer ***"}
    assert json.loads(rows[0]["params"]) == {"max_tokens": 2048, "seed": 3}
    assert all(r.headers["authorization"] == f"Bearer {SECRET_KEY}" for r in server.requests)  # it was used...

    # ...and is nowhere in what we wrote or logged.
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.suffix == ".parquet" for p in files) and any(p.parent.parent.name == "cache" for p in files)
    for p in files:
        assert SECRET_KEY.encode() not in p.read_bytes(), p
    assert caplog.records and SECRET_KEY not in caplog.text
    assert SECRET_KEY not in captured.out + captured.err


def test_rejected_key_exits_1_with_every_sample_accounted_for(server, tmp_path, capsys):
    server.script(error_reply(401, "invalid api key", err_type="invalid_request_error"))
    prompts = write_prompts(tmp_path / "p.jsonl", ["a", "b", "c"])
    code = main(["generate", str(prompts), "--model", MODEL, "--out", str(tmp_path / "o"), "--workers", "1"])
    assert code == 1
    summary = json.loads(capsys.readouterr().out)
    assert summary["by_status"] == {"failed": 1, "not_generated": 2} and summary["stopped"]["by"] == "auth"
    assert len(server.requests) == 1


def test_bad_prompts_file_exits_2(tmp_path, capsys):
    bad = tmp_path / "p.jsonl"
    bad.write_text('{"id": "a#2", "prompt": "x"}\n')
    assert main(["generate", str(bad), "--model", MODEL, "--out", str(tmp_path / "o")]) == 2
    assert "marks sample ids" in capsys.readouterr().err
    assert main(["generate", str(tmp_path / "missing.jsonl"), "--model", MODEL]) == 2
    good = write_prompts(tmp_path / "ok.jsonl", ["a"])
    assert main(["generate", str(good), "--model", "nosuchprovider/x", "--out", str(tmp_path / "o")]) == 2
    assert "cannot tell its provider" in capsys.readouterr().err


def test_verbose_keeps_stdout_for_the_summary(server, tmp_path, capfd):
    server.script(chat_reply(PAGE))
    prompts = write_prompts(tmp_path / "p.jsonl", ["tip"])
    assert main(["-v", "generate", str(prompts), "--model", MODEL, "--out", str(tmp_path / "o")]) == 0
    captured = capfd.readouterr()
    assert json.loads(captured.out)["by_status"] == {"generated": 1}  # nothing but the JSON on stdout
    assert "generate [1/1 samples (100%)" in captured.err and "tip: generated page=complete" in captured.err
