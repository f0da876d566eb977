"""The deterministic operators, in the order the loop tries them (docs/repair.md lists each).

A page fixed by operators alone costs no LLM call.
"""

from __future__ import annotations

from webmend.repair.operators.base import Finding, Operator
from webmend.repair.operators.document import CHARSET, LANG, TITLE, VIEWPORT
from webmend.repair.operators.game import FOCUSABLE_CANVAS, KEYS_DONT_SCROLL
from webmend.repair.operators.layout import FIT_MEDIA
from webmend.repair.operators.overlay import REBIND_START
from webmend.repair.operators.tail import TAIL
from webmend.schemas.repair import Diagnosis

# The tail comes first: every other edit inserts into <head> or before </body>, which a document
# cut off inside a <script> does not have (the insert would land in the open script).
# No operator rewrites CDN versions: the mirror already serves the nearest installed version of a
# package (recorded as a substitution), so a version it lacks is no defect a user would see, and
# an edit for it would only please the mirror.
OPERATORS: tuple[Operator, ...] = (TAIL, CHARSET, VIEWPORT, LANG, TITLE, REBIND_START, FOCUSABLE_CANVAS,
                                   KEYS_DONT_SCROLL, FIT_MEDIA)
BY_NAME = {op.name: op for op in OPERATORS}


def detect_all(d: Diagnosis, html: str, skip: frozenset[str] = frozenset()) -> list[tuple[Operator, Finding]]:
    """Every operator whose defect this page shows, in OPERATORS order."""
    found = []
    for op in OPERATORS:
        if op.name in skip:
            continue
        finding = op.detect(d, html)
        if finding is not None:
            found.append((op, finding))
    return found


def apply_all(html: str, fixes: list[tuple[Operator, Finding]]) -> str:
    for op, finding in fixes:
        html = op.apply(html, finding)
    return html
