"""What a page did while we watched it, gathered from browser events (outside the page's reach)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

REPORT_PREFIX = "__wm:"
# Chromium's performance notes about WebGL, printed as console warnings (below).
GL_DRIVER_PERFORMANCE = "GL Driver Message (OpenGL, Performance,"
# Console errors Chromium prints for requests *we* refused: evidence, not the page's fault.
_REFUSAL_MARKERS = (
    "net::ERR_BLOCKED_BY_CLIENT",
    "net::ERR_FAILED",
    "net::ERR_NAME_NOT_RESOLVED",
    "net::ERR_PROXY_CONNECTION_FAILED",
    "Not allowed to load local resource",
    "WebSocket connection to",
    "blocked by evaluator",
    "Fetch API cannot load chrome:",
    "Fetch API cannot load file:",
    "Fetch API cannot load about:",
)
_LOCAL_MARKERS = ("Not allowed to load local resource", "Fetch API cannot load chrome:", "Fetch API cannot load file:")


_CAPPED = ("console_errors", "page_errors", "refused_local", "popups")  # kept up to max_messages


@dataclass
class PageEvents:
    max_messages: int = 200
    console_errors: list[str] = field(default_factory=list)
    console_error_count: int = 0
    console_total: int = 0
    page_errors: list[str] = field(default_factory=list)
    page_error_count: int = 0
    refused_local: list[str] = field(default_factory=list)
    dialogs: int = 0
    dialog_kinds: dict[str, int] = field(default_factory=dict)
    popups: list[str] = field(default_factory=list)
    contained: dict[str, int] = field(default_factory=dict)  # close, print, service_worker
    downloads: int = 0
    crashes: int = 0
    hangs: list[str] = field(default_factory=list)
    webgl_documents: int = 0  # documents that created a WebGL context

    def on_console(self, kind: str, text: str) -> None:
        if text.startswith(REPORT_PREFIX):
            self._on_report(text[len(REPORT_PREFIX):])
            return
        if GL_DRIVER_PERFORMANCE in text:
            # Chromium's own note on a read-back of a WebGL canvas ("GPU stall due to
            # ReadPixels"), shown a few times per context. The compositor reads canvases back in
            # real frames, so how many appear depends on wall time, not on the page.
            return
        self.console_total += 1
        if kind != "error":
            return
        if any(m in text for m in _REFUSAL_MARKERS):
            if any(m in text for m in _LOCAL_MARKERS):
                self._keep(self.refused_local, text[:200])
            return
        self.console_error_count += 1
        self._keep(self.console_errors, text[:500])

    def on_page_error(self, message: str) -> None:
        self.page_error_count += 1
        self._keep(self.page_errors, message[:500])

    def on_dialog(self, kind: str) -> None:
        self.dialogs += 1
        self.dialog_kinds[kind] = self.dialog_kinds.get(kind, 0) + 1

    def _on_report(self, body: str) -> None:
        kind, _, detail = body.partition(" ")
        if kind == "dialog":
            self.on_dialog(detail or "alert")
        elif kind == "webgl":
            self.webgl_documents += 1
        elif kind == "popup":
            self.contained["popup"] = self.contained.get("popup", 0) + 1
            self._keep(self.popups, detail[:200])
        else:
            self.contained[kind] = self.contained.get(kind, 0) + 1

    def _keep(self, bucket: list, item) -> None:
        if len(bucket) < self.max_messages:
            bucket.append(item)

    def absorb(self, other: "PageEvents") -> None:
        """Add another page's events after these, as if they had been recorded here: counts
        add up, kept messages stay within max_messages."""
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            if f.name == "max_messages":
                continue
            if isinstance(mine, int):
                setattr(self, f.name, mine + theirs)
            elif isinstance(mine, dict):
                for key, n in theirs.items():
                    mine[key] = mine.get(key, 0) + n
            elif f.name in _CAPPED:
                for item in theirs:
                    self._keep(mine, item)
            else:
                mine.extend(theirs)

    @property
    def error_total(self) -> int:
        return self.console_error_count + self.page_error_count

    def to_dict(self) -> dict:
        return {
            "console_errors": self.console_errors,
            "console_error_count": self.console_error_count,
            "console_total": self.console_total,
            "page_errors": self.page_errors,
            "page_error_count": self.page_error_count,
            "refused_local": self.refused_local,
            "dialogs": self.dialogs,
            "dialog_kinds": dict(sorted(self.dialog_kinds.items())),
            "popups": self.popups,
            "contained": dict(sorted(self.contained.items())),
            "downloads": self.downloads,
            "crashes": self.crashes,
            "hangs": self.hangs,
            "webgl_documents": self.webgl_documents,
        }
