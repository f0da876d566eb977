"""close_document_tail: a truncated answer on its fixture in Chromium, and the scanner's edge
cases on source alone."""

from __future__ import annotations

import pytest
from repair_op_cases import assert_nothing_broken, diag, firing, repair_round

from webmend.repair.operators.tail import TAIL, scan


@pytest.fixture(scope="module")
def tail_round(cfg, worker):
    return repair_round([TAIL], "truncated_tail", cfg, worker)


def test_truncated_fixture_shows_only_its_defect(tail_round):
    r = tail_round
    assert "truncated" in r.d0.flags
    assert r.finding["open_element"] == "script" and r.finding["close_html"]
    assert firing(r.d0, r.html) == ["close_document_tail"]


def test_closed_script_runs_and_start_works(tail_round):
    r = tail_round
    # The script left open at the end was never run: Start did nothing. Closed, it runs.
    assert not r.passed("tc_start", after=False) and r.passed("tc_start", after=True)
    assert "truncated" not in r.d1.flags
    # Start was a dead, unwired button; now it has its listener and responds. (Reset at 25:00
    # changes nothing to see, so it stays "dead" in the probe, now wired.)
    assert {c.selector: c.wired for c in r.d0.controls.dead} == {"#start": False, "#reset": False}
    assert {c.selector: c.wired for c in r.d1.controls.dead} == {"#reset": True}
    assert r.fixed.rstrip().endswith("</script>\n</body>\n</html>")
    assert TAIL.detect(r.d1, r.fixed) is None
    assert firing(r.d1, r.fixed) == []
    assert_nothing_broken(r)


# -- source-only edge cases ------------------------------------------------------------------

D = diag()
DOC = "<!DOCTYPE html><html><head><title>T</title></head><body><p>Hi</p>"


@pytest.mark.parametrize("html", [
    DOC + "</body></html>",
    DOC + "</html>",  # </body> may be left out
    DOC + "<script>var end = '</html>';</script></body></html>",
    DOC + "<!-- a comment with <script> in it --></body></html>\n",
    "<div>a fragment</div><script>go()</script>",  # no <html>/<body>: nothing to close
])
def test_complete_documents_are_left_alone(html):
    assert TAIL.detect(D, html) is None


def test_a_script_cut_mid_statement_is_left_open():
    # Closed, it would run into a syntax error; left open, the browser never runs it.
    assert TAIL.detect(D, DOC + "<script>if (a < b) { x = 1;") is None


@pytest.mark.parametrize("html, tail", [
    (DOC + "<script>\nrun();", "<p>Hi</p><script>\nrun();\n</script>\n</body>\n</html>\n"),
    (DOC + "<script>if (a < b) { x = '</html>'; }", "x = '</html>'; }\n</script>\n</body>\n</html>\n"),
    (DOC.replace("<title>T</title></head><body><p>Hi</p>", "<style>\nbody { color: red"),
     "color: red\n</style>\n</body>\n</html>\n"),
    (DOC + "<!-- note", "<!-- note\n-->\n</body>\n</html>\n"),
    (DOC + '<div class="card"><button id="go" cla', '<div class="card">\n</body>\n</html>\n'),
    (DOC + "<ul><li>one</li>\n", "<li>one</li>\n</body>\n</html>\n"),
    (DOC + "</body>", "</body>\n</html>\n"),
    (DOC + "<script>var end = '</html>';</script>", "</script>\n</body>\n</html>\n"),  # text, not a tag
    ("<div>fragment</div><script>go()", "<script>go()\n</script>\n"),
])
def test_open_tails_are_closed(html, tail):
    f = TAIL.detect(D, html)
    assert f is not None
    out = TAIL.apply(html, f)
    assert out.endswith(tail)
    assert TAIL.detect(D, out) is None
    assert out.startswith(html[:len(html) - 40])  # nothing before the tail changed


def test_scan_reads_raw_text_as_the_tokenizer_does():
    t = scan("<html><body><script>document.write('<body>')</script><textarea></textarea>")
    assert t.opened and not t.body_closed and t.open_element is None
    assert scan("<html><textarea>unclosed").open_element == "textarea"
