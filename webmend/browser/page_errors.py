"""What a page can do to a browser call, as exceptions the evaluator's layers catch."""

from __future__ import annotations


class PageHung(Exception):
    """A browser call exceeded its wall-clock cap: the page is stuck (usually a JS loop)."""


class PageCrashed(Exception):
    """The renderer died (out of memory, or killed)."""


class JsError(Exception):
    """Test-case JavaScript threw."""


class PromisePending(Exception):
    """Test-case JavaScript returned a promise that was still pending when its page-time budget
    ran out (the page itself answered throughout: not a hang)."""
