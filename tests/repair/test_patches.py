"""Patch-mode answers: reading the JSON and applying each patch exactly, whitespace-tolerantly or fuzzily."""

import json
import time

import pytest

from webmend.repair.patches import MAX_PATCHES, Applied, Patch, PatchError, apply_patches, parse_patches

PAGE = """<!doctype html>
<html>
<head><title>Clicker</title></head>
<body>
  <div class="panel">
    <button id="add">Add</button>
    <span id="count">0</span>
  </div>
  <script>
    let count = 0;
    document.getElementById("add").addEventListener("click", () => {
      count += 1;
      document.getElementById("count").textContent = String(count);
    });
  </script>
</body>
</html>
"""
LISTENER = ('document.getElementById("add").addEventListener("click", () => {\n'
            '      count += 1;\n'
            '      document.getElementById("count").textContent = String(count);')


def reason(excinfo) -> str:
    return excinfo.value.reason


# --- parse_patches ---------------------------------------------------------------------------------

def answer(*patches: tuple[str, str]) -> str:
    return json.dumps({"patches": [{"old_str": o, "new_str": n} for o, n in patches]}, indent=2)


def test_plain_json_is_read():
    assert parse_patches(answer(("a", "b"), ("c", "d"))) == [Patch("a", "b"), Patch("c", "d")]


def test_fenced_json_with_prose_around_it_is_read():
    text = f"Here is the fix {{as asked}}:\n```json\n{answer(('color: red', 'color: blue'))}\n```\nDone {{}}."
    assert parse_patches(text) == [Patch("color: red", "color: blue")]


def test_braces_inside_the_strings_do_not_confuse_the_scan():
    css = ".a { color: red; }\n.b { margin: 0 }"
    assert parse_patches("Answer: " + answer((css, css.replace("red", "blue")))) == [
        Patch(css, css.replace("red", "blue"))]


def test_raw_newlines_inside_strings_are_accepted():
    text = '{"patches": [{"old_str": "<p>\n  a</p>", "new_str": "<p>b</p>"}]}'
    assert parse_patches(text) == [Patch("<p>\n  a</p>", "<p>b</p>")]


@pytest.mark.parametrize("text, expected", [
    ("I would change the button colour.", "no JSON object found"),
    ("Use {braces} as in `a { color: red }`.", "no JSON object found"),
    ('```json\n{"patches": [{"old_str": "a", "new_str": "b"},]}\n```', "invalid JSON"),
    ('{"edits": []}', 'no JSON object with a "patches" list'),
    ('{"patches": {"old_str": "a", "new_str": "b"}}', '"patches" is not a list'),
    ('{"patches": []}', "the patch list is empty"),
    ('{"patches": ["a"]}', "patch 1 is not an object"),
    ('{"patches": [{"old_str": "a", "new_str": "b"}, {"old_str": "c"}]}', "patch 2 has no new_str"),
    ('{"patches": [{"new_str": "b"}]}', "patch 1 has no old_str"),
    ('{"patches": [{"old_str": 3, "new_str": "b"}]}', "patch 1: old_str is not a string"),
    ('{"patches": [{"old_str": "", "new_str": "b"}]}', "patch 1: old_str is empty"),
])
def test_malformed_answers_name_the_problem(text, expected):
    with pytest.raises(PatchError) as excinfo:
        parse_patches(text)
    assert reason(excinfo).startswith(expected)
    assert "\n" not in reason(excinfo)


def test_too_many_patches_are_refused():
    with pytest.raises(PatchError, match=f"more than the {MAX_PATCHES} allowed"):
        parse_patches(answer(*[(f"a{i}", f"b{i}") for i in range(MAX_PATCHES + 1)]))


# --- apply_patches ---------------------------------------------------------------------------------

def test_exact_patch_is_applied():
    out = apply_patches(PAGE, [Patch('<button id="add">Add</button>', '<button id="add">Add one</button>')])
    assert out == Applied(PAGE.replace(">Add<", ">Add one<"), exact=1)


def test_patches_apply_in_sequence_each_to_the_previous_result():
    out = apply_patches(PAGE, [Patch("count += 1;", "count += step;"),
                               Patch("let count = 0;", "let count = 0;\n    const step = 2;"),
                               Patch("count += step;", "count += step * 1;")])
    assert "const step = 2;" in out.html and "count += step * 1;" in out.html
    assert out.exact == 3


def test_old_str_matching_twice_is_ambiguous():
    with pytest.raises(PatchError) as excinfo:
        apply_patches(PAGE, [Patch('document.getElementById("', 'document.querySelector("#')])
    assert reason(excinfo) == "patch 1: old_str matches 2 places (ambiguous)"


def test_old_str_not_found_is_refused():
    with pytest.raises(PatchError) as excinfo:
        apply_patches(PAGE, [Patch("canvas.getContext('2d')", "canvas.getContext('webgl')")])
    assert reason(excinfo).startswith("patch 1: old_str not found")


def test_second_patch_failing_names_patch_2():
    with pytest.raises(PatchError, match="^patch 2: old_str not found"):
        apply_patches(PAGE, [Patch("Add</button>", "Plus</button>"), Patch("Add</button>", "More</button>")])


def test_patch_that_changes_nothing_is_refused():
    with pytest.raises(PatchError, match="^patch 1 changes nothing$"):
        apply_patches(PAGE, [Patch("let count = 0;", "let count = 0;")])


def test_reindented_old_str_replaces_the_right_span():
    # The LLM quoted the listener with 2 more spaces of indentation than the page has.
    old = "\n".join("  " + line for line in LISTENER.split("\n"))
    new = old.replace("count += 1;", "count += 10;")
    out = apply_patches(PAGE, [Patch(old, new)])
    assert out.whitespace == 1 and out.exact == 0
    assert "count += 10;" in out.html
    # Only the quoted span changed: what came before and after it is untouched.
    head, tail = PAGE.split(LISTENER)
    assert out.html.startswith(head) and out.html.endswith(tail)


def test_old_str_with_spaces_for_newlines_matches_the_multiline_span():
    out = apply_patches(PAGE, [Patch('<button id="add">Add</button> <span id="count">0</span>',
                                     '<button id="add">+</button> <output id="count">0</output>')])
    assert out.whitespace == 1
    assert ('<div class="panel">\n    <button id="add">+</button> <output id="count">0</output>\n  </div>'
            in out.html)


def test_whitespace_tolerant_match_twice_is_ambiguous():
    html = "<p>a  b</p>\n<p>a\nb</p>"
    with pytest.raises(PatchError, match=r"^patch 1: old_str matches 2 places .*\(ambiguous\)$"):
        apply_patches(html, [Patch("a b", "c")])


def test_fuzzy_near_miss_is_applied_above_min_ratio():
    # One character misremembered ("+= 1" quoted as "+= 2") in a long old_str.
    old = LISTENER.replace("count += 1;", "count += 2;")
    new = old.replace("String(count)", "count.toFixed(0)")
    out = apply_patches(PAGE, [Patch(old, new)])
    assert out.fuzzy == 1
    head, tail = PAGE.split(LISTENER)
    assert out.html == head + new + tail


def test_fuzzy_near_miss_with_a_dropped_character_covers_the_whole_span():
    old = LISTENER.replace("String(count)", "Strin(count)")  # one character shorter than the page's text
    out = apply_patches(PAGE, [Patch(old, "REPLACED")])
    head, tail = PAGE.split(LISTENER)
    assert out.fuzzy == 1 and out.html == head + "REPLACED" + tail


def test_fuzzy_near_miss_is_refused_below_min_ratio():
    old = LISTENER.replace("count += 1;", "count += 2;")
    with pytest.raises(PatchError, match="^patch 1: old_str not found"):
        apply_patches(PAGE, [Patch(old, "x")], min_ratio=0.999)


def test_fuzzy_match_in_two_equal_places_is_ambiguous():
    block = LISTENER.replace('"add"', '"ID"').replace('"count"', '"out"')
    html = f"<script>\n{block.replace('ID', 'a')}\n}});\n{block.replace('ID', 'b')}\n}});\n</script>"
    old = block.replace("ID", "c")  # equally near both copies
    with pytest.raises(PatchError) as excinfo:
        apply_patches(html, [Patch(old, "x")])
    assert reason(excinfo) == "patch 1: old_str nearly matches several places equally well (ambiguous)"
    # Nearer to one copy than the other (the id plus one slip elsewhere): the nearer one is unique.
    out = apply_patches(html, [Patch(block.replace("ID", "a").replace("+= 1", "+= 2"), "x")])
    assert out.fuzzy == 1 and out.html.startswith("<script>\nx\n});\n" + block.replace("ID", "b"))


def test_results_are_deterministic():
    old = LISTENER.replace("count += 1;", "count += 2;")
    runs = {apply_patches(PAGE, [Patch(old, "x"), Patch("let count = 0;", "let count = 1;")]) for _ in range(3)}
    assert len(runs) == 1


def test_hopeless_old_str_on_a_large_page_is_refused_quickly():
    # Many short common tokens: without a score cutoff rapidfuzz aligns this for about 4 s.
    words = ["let", "const", "function", "return", "if", "else", "for", "x", "y", "player", "speed",
             "(", ")", "{", "}", ";", "=", "+"]
    html = " ".join(words[(i * i * 7919 + i) % len(words)] for i in range(30000))
    started = time.monotonic()
    with pytest.raises(PatchError, match="^patch 1: old_str not found"):
        apply_patches(html, [Patch("canvas.fillRect(player.x, player.y, 20, 20); " * 20, "x")])
    assert time.monotonic() - started < 3


def test_a_short_old_str_never_matches_approximately():
    page = "<script>document.getElementById('inc').addEventListener('click', go);</script>"
    with pytest.raises(PatchError, match="too short"):
        apply_patches(page, [Patch("document.getElementById('nope')", "x")], min_ratio=0.8)
