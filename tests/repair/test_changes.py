"""What a candidate changed, summarised for the next prompt (webmend/repair/changes.py)."""

from __future__ import annotations

from webmend.repair.changes import MAX_LINES, diff_summary

PAGE = "\n".join(["<html>", "<body>", "<button id=reset>Reset</button>", "<script>", "function reset() {",
                  "  pause();", "}", "</script>", "</body>", "</html>"])


def test_an_edit_is_named_by_place_with_the_lines_out_and_in():
    after = PAGE.replace("  pause();", "  pause();\n  remaining = full;")
    assert diff_summary(PAGE, after) == "+1/-0 lines in 1 place: after line 6 'pause();': + 'remaining = full;'"
    swapped = PAGE.replace("Reset</button>", "Reset timer</button>")
    assert diff_summary(PAGE, swapped) == ("+1/-1 lines in 1 place: line 3: - '<button id=reset>Reset</button>' "
                                           "+ '<button id=reset>Reset timer</button>'")
    assert diff_summary(PAGE, PAGE) == "nothing changed"


def test_a_rewrite_is_named_as_one():
    assert diff_summary(PAGE, "<html><body><p>new</p></body></html>").startswith("a rewrite: +1/-10 lines")


def test_a_page_too_long_to_align_is_summarised_by_counts():
    # a hostile candidate: aligning this many repeated lines takes quadratic time
    huge = "\n".join(f"<p>{i % 7}</p>" for i in range(MAX_LINES + 1))
    assert diff_summary(PAGE, huge) == (f"+{MAX_LINES + 1}/-10 lines (not placed: the pages have 10 and "
                                        f"{MAX_LINES + 1} lines)")
