"""A small OpenAI-compatible server for one checkpoint, with weights reloadable from disk: the CPU
stand-in for vLLM or SGLang in RL rollouts and `train eval --backend openai` (tests, a laptop).

    python -m webmend.training.trainenv.serve --model DIR [--host 127.0.0.1] [--port 0] [--name policy]

It prints one JSON line {"url": "http://HOST:PORT/v1", "model": NAME} once it listens. Endpoints:

    GET  /v1/models                  the served name, the folder it was loaded from, its weights' digest
    POST /v1/chat/completions        messages, max_tokens, temperature, seed, n (choices sampled in turn)
    POST /update_weights_from_disk   {"model_path": DIR} -> {"success", "message", "digest"}
                                     (SGLang's endpoint of that name takes the same body)

Requests are served one at a time (one model, CPU): concurrency is the client's queue. Sampling uses
the same generation code as the policy worker; a request's seed makes its answer reproducible."""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from webmend.training.trainenv.generate import sample_ids
from webmend.training.trainenv.policy_worker import param_digest


class Served:
    def __init__(self, model_dir: str, name: str):
        self.name = name
        self.lock = threading.Lock()
        self.load(model_dir)

    def load(self, model_dir: str) -> dict:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        if not Path(model_dir).is_dir():  # a folder on this machine, never a hub id to download
            raise FileNotFoundError(f"{model_dir}: no such model folder")
        tokenizer = AutoTokenizer.from_pretrained(model_dir)
        model = AutoModelForCausalLM.from_pretrained(model_dir, torch_dtype=torch.float32).eval()
        digest = param_digest(model)
        with self.lock:
            self.tokenizer, self.model, self.path, self.digest = tokenizer, model, model_dir, digest
        return digest

    def models(self) -> dict:
        return {"object": "list", "data": [{"id": self.name, "object": "model", "owned_by": "webmend",
                                            "root": self.path, "digest": self.digest}]}

    def complete(self, body: dict) -> dict:
        import torch

        n, choices, used = int(body.get("n") or 1), [], 0
        max_tokens = int(body.get("max_tokens") or body.get("max_completion_tokens") or 256)
        temperature = float(body.get("temperature", 1.0) if body.get("temperature") is not None else 1.0)
        with self.lock:
            tok = self.tokenizer
            prompt = tok.apply_chat_template(body["messages"], add_generation_prompt=True, return_tensors="pt")
            if body.get("seed") is not None:
                torch.manual_seed(int(body["seed"]))
            for index in range(n):
                ids = sample_ids(tok, self.model, prompt, max_tokens, temperature)
                stopped = bool(ids) and ids[-1] == tok.eos_token_id
                choices.append({"index": index, "finish_reason": "stop" if stopped else "length",
                                "message": {"role": "assistant", "content": tok.decode(ids, skip_special_tokens=True)}})
                used += len(ids)
        prompt_tokens = int(prompt.shape[1])
        return {"id": f"chatcmpl-{time.time_ns()}", "object": "chat.completion", "created": int(time.time()),
                "model": self.name, "choices": choices,
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": used, "total_tokens": prompt_tokens + used}}


def handler(served: Served):
    class Handler(BaseHTTPRequestHandler):
        def _send(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):  # noqa: N802  (http.server's naming)
            if self.path.rstrip("/") in ("/v1/models", "/models"):
                return self._send(200, served.models())
            if self.path.rstrip("/") == "/health":
                return self._send(200, {"ok": True})
            return self._send(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self):  # noqa: N802
            try:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            except json.JSONDecodeError as exc:
                return self._send(400, {"error": {"message": f"bad JSON: {exc}"}})
            try:
                if self.path.rstrip("/") in ("/v1/chat/completions", "/chat/completions"):
                    return self._send(200, served.complete(body))
                if self.path.rstrip("/") == "/update_weights_from_disk":
                    digest = served.load(body["model_path"])
                    return self._send(200, {"success": True, "message": f"loaded {body['model_path']}", "digest": digest})
            except (KeyError, OSError, ValueError) as exc:  # a bad request or an unreadable folder: the client's fault
                return self._send(400, {"success": False, "error": {"message": f"{type(exc).__name__}: {exc}"}})
            except Exception as exc:  # noqa: BLE001  (answer, so the client sees a 500, not a dropped connection)
                return self._send(500, {"success": False, "error": {"message": f"{type(exc).__name__}: {exc}"}})
            return self._send(404, {"error": {"message": f"no route {self.path}"}})

        def log_message(self, fmt, *args):  # requests go to stderr, never to the stdout line
            sys.stderr.write("serve: " + fmt % args + "\n")

    return Handler


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0, help="0: any free port (printed)")
    ap.add_argument("--name", default="policy", help="the served model name")
    args = ap.parse_args(argv)
    server = ThreadingHTTPServer((args.host, args.port), handler(Served(args.model, args.name)))
    host, port = server.server_address[:2]
    print(json.dumps({"url": f"http://{host}:{port}/v1", "model": args.name}), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
