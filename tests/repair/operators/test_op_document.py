"""The four document operators on one page that lacks all four, in Chromium."""

from __future__ import annotations

import pytest
from repair_op_cases import assert_nothing_broken, firing, repair_round

from webmend.repair.operators.document import CHARSET, LANG, TITLE, VIEWPORT

DOCUMENT_OPS = [CHARSET, VIEWPORT, LANG, TITLE]


@pytest.fixture(scope="module")
def document_round(cfg, worker):
    return repair_round(DOCUMENT_OPS, "bare_document", cfg, worker)


def test_bare_document_lacks_exactly_the_four(document_round):
    r = document_round
    s = r.d0.static
    assert (s["has_viewport_meta"], s["charset_declared"], s["lang"], s["title"]) == (False, False, None, None)
    assert firing(r.d0, r.html) == ["add_charset", "add_viewport_meta", "add_lang", "add_title"]
    assert r.finding["add_title"] == {"title": "Lemon Drizzle Cake"}


def test_static_evidence_after_the_edits(document_round):
    r = document_round
    s = r.d1.static
    assert (s["has_viewport_meta"], s["charset_declared"], s["lang"], s["title"]) == (True, True, "en", "Lemon Drizzle Cake")
    assert all(op.detect(r.d1, r.fixed) is None for op in DOCUMENT_OPS)
    assert firing(r.d1, r.fixed) == []
    assert r.fixed.index('<meta charset="utf-8">') < r.fixed.index("<style>")
    assert_nothing_broken(r)
