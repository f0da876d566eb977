"""A small website on 127.0.0.1 for crawler tests: scripted routes and a log of every request."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Hit:
    path: str
    host: str
    user_agent: str
    at: float  # time.monotonic() on arrival


class Site:
    """routes: path -> (status, headers, body). Paths not in routes answer 404."""

    def __init__(self, routes: dict[str, tuple[int, dict, bytes | str]] | None = None):
        self.routes = dict(routes or {})
        self.hits: list[Hit] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's naming)
                site.hits.append(Hit(self.path, self.headers.get("Host", ""), self.headers.get("User-Agent", ""), time.monotonic()))
                status, headers, body = site.routes.get(self.path, (404, {"Content-Type": "text/plain"}, "not found"))
                data = body.encode("utf-8") if isinstance(body, str) else body
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> "Site":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def paths(self) -> list[str]:
        return [h.path for h in self.hits]


def html_page(body: str, title: str = "Tasks", head: str = "") -> tuple[int, dict, str]:
    doc = f"<!DOCTYPE html><html><head><title>{title}</title>{head}</head><body>{body}</body></html>"
    return 200, {"Content-Type": "text/html; charset=utf-8"}, doc
