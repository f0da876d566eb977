"""Evaluate a candidate page with the evaluator library, into a result record like `webmend evaluate` writes.

Same config, same test cases, same browser worker as the original's evaluation: a candidate's
verdicts are comparable with its checkpoint's only when nothing else changed.
"""

from __future__ import annotations

from pathlib import Path

from webmend.browser.worker import BrowserWorker
from webmend.config import EvalConfig
from webmend.evaluate.inputs import RawInput
from webmend.evaluate.records import evaluate_input


def evaluate_html(html: str, item: dict | None, cfg: EvalConfig, worker: BrowserWorker, page_id: str = "page",
                  keyframes_to: str | Path | None = None, must_pass: frozenset[str] = frozenset()) -> dict:
    """The result record of one page given as text. Never raises for the page's own faults, except
    EarlyRejected when one of the `must_pass` test cases fails (it runs before everything else)."""
    raw = RawInput(index=0, id=page_id, source=f"repair:{page_id}", raw=html)
    return evaluate_input(raw, item, cfg, worker, keyframes_to, must_pass=must_pass)
