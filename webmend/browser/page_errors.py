"""What a page can do to a browser call, as exceptions the evaluator's layers catch."""

from __future__ import annotations


class PageHung(Exception):
    """A browser call exceeded its wall-clock cap: the page is stuck (usually a JS loop)."""


class BudgetExhausted(Exception):
    """The page used up its whole wall-clock budget (limits.page_wall_s + test_wall_s per test).

    Not a hang: the page may be busy but legitimate (heavy WebGL on a software renderer). Every
    guarded call after this raises it at once, so each layer stops and keeps what it gathered.
    """


class PageCrashed(Exception):
    """The renderer died (out of memory, or killed)."""


class JsError(Exception):
    """Test-case JavaScript threw."""


class PromisePending(Exception):
    """Test-case JavaScript returned a promise that was still pending when its page-time budget
    ran out (the page itself answered throughout: not a hang)."""


class WouldChangePage(Exception):
    """Test-case JavaScript evaluated as a pure observation (V8's side-effect check) would have
    changed the page, or returned a promise that needs page time: its test case cannot share a
    document with others and gets one of its own (evaluate/testcase_share.py)."""
