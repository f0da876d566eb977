"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, for tests of LLM paths.

Tests reach it through the real litellm stack (`model="openai/NAME"`, `api_base=server.base_url`).
Each POST to `/v1/chat/completions` takes the next scripted `Reply` from a queue; when the queue is
empty the `fallback` callable answers (by default a 500 saying the script ran out, so a test that
makes an unplanned call fails loudly). Every request is logged (path, headers, JSON body).

    with ScriptedLLMServer() as server:
        server.script(rate_limited(retry_after=2), chat_reply("<!DOCTYPE html>..."))
        ...  # litellm.completion(..., api_base=server.base_url)
        assert len(server.requests) == 2

Reusable by any test that talks to an LLM (generation, prompt rewrite, classification).
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable


@dataclass
class Reply:
    """One scripted answer: HTTP status, extra headers, body (dict -> JSON, str -> raw), delay."""

    status: int = 200
    body: dict | str = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


@dataclass(frozen=True)
class Request:
    path: str
    headers: dict[str, str]
    body: dict

    @property
    def messages(self) -> list[dict]:
        return self.body.get("messages", [])

    @property
    def user_text(self) -> str:
        return "\n".join(str(m.get("content")) for m in self.messages if m.get("role") == "user")


def chat_reply(content: str | None, *, finish_reason: str = "stop", model: str = "scripted",
               prompt_tokens: int = 10, completion_tokens: int | None = None, refusal: str | None = None,
               delay_s: float = 0.0) -> Reply:
    """A 200 chat completion. `completion_tokens` defaults to a rough length-based count."""
    if completion_tokens is None:
        completion_tokens = max(1, len(content or "") // 4)
    message: dict = {"role": "assistant", "content": content}
    if refusal is not None:
        message["refusal"] = refusal
    body = {
        "id": "chatcmpl-scripted", "object": "chat.completion", "created": 1_700_000_000, "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }
    return Reply(200, body, delay_s=delay_s)


def error_reply(status: int, message: str = "scripted error", *, code: str | None = None,
                err_type: str = "server_error", headers: dict[str, str] | None = None) -> Reply:
    """An OpenAI-style error body with the given status."""
    return Reply(status, {"error": {"message": message, "type": err_type, "code": code, "param": None}},
                 dict(headers or {}))


def rate_limited(retry_after: float | None = None) -> Reply:
    headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
    return error_reply(429, "rate limit reached", code="rate_limit_exceeded", err_type="requests", headers=headers)


def content_filtered() -> Reply:
    """A safety refusal as a 200 answer whose finish reason is `content_filter` (Azure/OpenAI style)."""
    return chat_reply("", finish_reason="content_filter", completion_tokens=0)


def policy_violation() -> Reply:
    """A safety refusal as an error (HTTP 400, code content_policy_violation)."""
    return error_reply(400, "Your request was rejected as a result of our safety system.",
                       code="content_policy_violation", err_type="invalid_request_error")


class RoutedReplies:
    """A fallback that picks replies by request content, for concurrent callers whose order varies.

    routes: {substring of the user text: [replies in order]}; the first route whose substring occurs
    takes the call and pops its next reply (the last one repeats). No match: `default(request)`.
    """

    def __init__(self, routes: dict[str, list[Reply]], default: Callable[[Request], Reply] | None = None):
        self._routes = {marker: deque(replies) for marker, replies in routes.items()}
        self._default = default or _unscripted
        self._lock = threading.Lock()

    def __call__(self, request: Request) -> Reply:
        text = request.user_text
        with self._lock:
            for marker, replies in self._routes.items():
                if marker in text and replies:
                    return replies.popleft() if len(replies) > 1 else replies[0]
        return self._default(request)


def _unscripted(request: Request) -> Reply:
    return error_reply(500, f"unscripted call to {request.path}: the test's script ran out")


class ScriptedLLMServer:
    """Threaded HTTP server; `base_url` ends in /v1 like OpenAI's."""

    def __init__(self, fallback: Callable[[Request], Reply] = _unscripted):
        self.fallback = fallback
        self.requests: list[Request] = []
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def start(self) -> "ScriptedLLMServer":
        self._thread.start()
        return self

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> "ScriptedLLMServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    def _next_reply(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self._queue:
                return self._queue.popleft()
        return self.fallback(request)

    def _handler_class(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):  # noqa: N802 (http.server naming)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                request = Request(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                self._send(server._next_reply(request))

            def do_GET(self):  # noqa: N802
                self._send(error_reply(404, f"no GET route {self.path}"))

            def _send(self, reply: Reply) -> None:
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                payload = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                data = payload.encode("utf-8")
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test): nothing to answer

            def log_message(self, *args) -> None:
                pass  # keep test output clean

        return Handler
