"""Tests for webmend.extract: one small inline answer per rule."""

from __future__ import annotations

import random
import time

import pytest

from webmend.extract import (
    EXTRACT_FLAGS,
    EXTRACT_STATUSES,
    Extraction,
    decode_bytes,
    extract_page,
)

PAGE = """<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Counter</title></head>
<body>
<h1>Counter</h1>
<button id="inc">+1</button>
<script>
let n = 0;
document.getElementById("inc").addEventListener("click", () => n++);
</script>
</body>
</html>"""


def page(marker: str) -> str:
    """A complete page whose heading tells drafts apart."""
    return PAGE.replace("<h1>Counter</h1>", f"<h1>{marker}</h1>")


def check(result: Extraction, status: str = "ok", flags: tuple[str, ...] = ()) -> None:
    assert result.status == status, result.reason
    assert result.flags == flags
    assert result.reason


# --- public constants --------------------------------------------------------


def test_status_list_is_closed():
    assert EXTRACT_STATUSES == ("ok", "empty", "binary", "no_html", "trivial")
    assert "truncated" in EXTRACT_FLAGS


# --- unfenced documents ------------------------------------------------------


def test_bare_document_is_returned_as_is():
    result = extract_page(PAGE)
    check(result)
    assert result.html == PAGE
    assert result.encoding is None


def test_bare_document_with_prose_around():
    result = extract_page(f"Here is your page:\n\n{PAGE}\n\nLet me know if it helps!")
    check(result, flags=("prose_around",))
    assert result.html == PAGE


def test_document_after_label_on_same_line():
    result = extract_page(f"Here it is: {PAGE}")
    check(result, flags=("prose_around",))
    assert result.html == PAGE


def test_html_without_doctype_and_uppercase_tags():
    doc = "<HTML>\n<BODY><H1>Upper case page</H1><P>Still a page.</P></BODY>\n</HTML>"
    result = extract_page(f"Old school:\n{doc}\n")
    check(result, flags=("prose_around",))
    assert result.html == doc


# --- fences --------------------------------------------------------------------


def test_fenced_with_prose_before_and_after():
    result = extract_page(f"Sure! Here's the page.\n\n```html\n{PAGE}\n```\n\nEnjoy!")
    check(result, flags=("fenced", "prose_around"))
    assert result.html == PAGE


@pytest.mark.parametrize("label", ["HTML", "htm", "html5", "index.html", "html title=demo"])
def test_fence_label_variants(label):
    result = extract_page(f"```{label}\n{PAGE}\n```")
    check(result, flags=("fenced",))
    assert result.html == PAGE


def test_unlabelled_fence():
    result = extract_page(f"```\n{PAGE}\n```")
    check(result, flags=("fenced",))
    assert result.html == PAGE


def test_tilde_fence():
    result = extract_page(f"Page below.\n~~~html\n{PAGE}\n~~~\n")
    check(result, flags=("fenced", "prose_around"))
    assert result.html == PAGE


def test_longer_fence_and_indented_fence():
    assert extract_page(f"````html\n{PAGE}\n````").html == PAGE
    assert extract_page(f"1. Save this:\n   ```html\n{PAGE}\n   ```").html == PAGE


def test_markup_on_the_fence_line():
    result = extract_page(f"```html{PAGE}\n```")
    check(result, flags=("fenced",))
    assert result.html == PAGE


def test_closing_fence_glued_to_closing_tag():
    # "</html>```": the fence never closes on its own line, but the page is whole.
    result = extract_page(f"```html\n{PAGE}```\nThanks")
    assert result.status == "ok"
    assert result.html == PAGE
    assert "truncated" not in result.flags


def test_backticks_inside_page_script_do_not_cut_the_page():
    doc = page("Markdown").replace("let n = 0;", "const md = `\n```js\nx()\n```\n`;\nlet n = 0;")
    for answer in (doc, f"```html\n{doc}\n```"):
        result = extract_page(answer)
        assert result.status == "ok"
        assert result.html == doc
        assert "truncated" not in result.flags
        assert "separate_assets" not in result.flags


def test_non_html_fence_only_is_no_html():
    result = extract_page("Run this:\n```python\nprint('hello world, this is not a page')\n```")
    check(result, status="no_html")
    assert result.html is None


# --- think blocks --------------------------------------------------------------


def test_closed_think_block_is_removed_with_its_draft():
    answer = f"<think>\nMaybe:\n{page('Draft in thought')}\nNo, simpler.\n</think>\n{PAGE}"
    result = extract_page(answer)
    check(result, flags=("think_block",))
    assert result.html == PAGE


def test_thinking_tag_variant_and_case():
    result = extract_page(f"<THINKING>plan the page</Thinking>\n```html\n{PAGE}\n```")
    check(result, flags=("think_block", "fenced"))
    assert result.html == PAGE


def test_unclosed_think_block_still_finds_html_inside():
    result = extract_page(f"<think>\nI will write the page now.\n{PAGE}")
    check(result, flags=("think_block", "prose_around"))
    assert result.html == PAGE


def test_closing_think_without_opening_tag():
    # The opening tag was in the prompt template: everything before is reasoning.
    answer = f"plan: use <html> with a button\n</think>\n\n```html\n{PAGE}\n```"
    result = extract_page(answer)
    check(result, flags=("think_block", "fenced"))
    assert result.html == PAGE


def test_page_only_inside_think_block_is_used():
    result = extract_page(f"<think>\n{PAGE}\n</think>\nDone.")
    assert result.status == "ok"
    assert result.html == PAGE
    assert "think_block" in result.flags


def test_think_only_prose_is_no_html():
    result = extract_page("<think>The user wants a page.</think>\nI cannot do that.")
    check(result, status="no_html", flags=("think_block",))


# --- several documents ---------------------------------------------------------


def test_draft_then_final_takes_the_last():
    answer = (
        f"First attempt:\n```html\n{page('Draft')}\n```\n"
        f"Fixed version:\n```html\n{page('Final')}\n```\n"
    )
    result = extract_page(answer)
    check(result, flags=("fenced", "prose_around", "multiple_documents"))
    assert "<h1>Final</h1>" in result.html


def test_much_smaller_last_document_loses_to_the_largest():
    big = page("Full game").replace("</body>", "<p>" + "content " * 200 + "</p>\n</body>")
    small = page("Tiny")
    result = extract_page(f"```html\n{big}\n```\nA minimal variant:\n```html\n{small}\n```")
    assert result.status == "ok"
    assert result.html == big
    assert "multiple_documents" in result.flags


def test_complete_document_beats_truncated_final():
    answer = f"```html\n{page('Complete')}\n```\nImproved:\n```html\n{page('Cut')[:150]}"
    result = extract_page(answer)
    assert result.status == "ok"
    assert "<h1>Complete</h1>" in result.html
    assert "truncated" not in result.flags
    assert "multiple_documents" in result.flags


def test_truncated_draft_inside_script_then_final():
    draft = page("Draft")[: PAGE.index("let n")]  # stops inside <script>
    answer = f"```html\n{draft}\n```\nSorry, here is the whole file:\n```html\n{page('Final')}\n```"
    result = extract_page(answer)
    assert result.status == "ok"
    assert result.html == page("Final")


def test_two_unfenced_documents():
    answer = f"{page('Draft')}\n\nOops, corrected:\n\n{page('Final')}"
    result = extract_page(answer)
    check(result, flags=("prose_around", "multiple_documents"))
    assert result.html == page("Final")


def test_doc_string_inside_script_is_not_a_new_document():
    inner = 'frame.srcdoc = `\n<!DOCTYPE html>\n<html><body>inner</body></html>\n`;'
    doc = PAGE.replace("let n = 0;", inner + "\nlet n = 0;")
    result = extract_page(doc)
    check(result)
    assert result.html == doc


# --- separate assets -----------------------------------------------------------


def test_html_with_separate_css_and_js_fences_is_not_merged():
    answer = (
        f"index.html:\n```html\n{PAGE}\n```\n"
        "style.css:\n```css\nbody { color: red; }\n```\n"
        "app.js:\n```javascript\nconsole.log('hi');\n```\n"
    )
    result = extract_page(answer)
    check(result, flags=("fenced", "prose_around", "separate_assets"))
    assert result.html == PAGE
    assert "color: red" not in result.html


# --- truncation ------------------------------------------------------------------


def test_truncated_document_without_closing_html():
    cut = PAGE[: PAGE.index("</body>")]
    result = extract_page(cut)
    check(result, flags=("truncated",))
    assert result.html == cut.strip()


def test_unterminated_fence_takes_everything_after_it():
    cut = PAGE[: PAGE.index("</script>")]
    result = extract_page(f"Here you go:\n```html\n{cut}")
    check(result, flags=("fenced", "prose_around", "truncated"))
    assert result.html == cut.strip()


def test_unterminated_fence_with_fragment_is_truncated():
    frag = '<div id="app"><canvas id="c" width="300" height="200"></canvas></div>\n<p>Score: 0</p>'
    result = extract_page(f"```html\n{frag}")
    check(result, flags=("fenced", "truncated", "fragment"))
    assert result.html == frag


def test_unclosed_script_is_truncated():
    frag = '<div id="app">Game board here</div>\n<script>\nconst board = [];\nfunction draw() {'
    result = extract_page(f"```html\n{frag}\n```")
    check(result, flags=("fenced", "truncated", "fragment"))


# --- fragments -------------------------------------------------------------------


def test_bare_fragment_with_script():
    frag = (
        '<div id="app"><button id="b">Click me</button></div>\n'
        "<script>\ndocument.getElementById('b').onclick = () => alert('hi');\n</script>"
    )
    result = extract_page(f"Put this in your page:\n\n{frag}\n\nThat's it.")
    check(result, flags=("prose_around", "fragment"))
    assert result.html == frag


def test_fenced_fragment():
    frag = "<style>p { color: teal; }</style>\n<p>A paragraph with enough text to count.</p>"
    result = extract_page(f"```html\n{frag}\n```")
    check(result, flags=("fenced", "fragment"))
    assert result.html == frag


# --- empty, binary, prose, trivial ----------------------------------------------


@pytest.mark.parametrize("raw", ["", "   \n\t  ", b"", b"  \r\n", None, "\ufeff  "])
def test_empty(raw):
    result = extract_page(raw)
    check(result, status="empty")
    assert result.html is None


def test_binary_bytes():
    rng = random.Random(7)
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(rng.randrange(256) for _ in range(4000))
    result = extract_page(png)
    assert result.status == "binary"
    assert result.html is None


def test_binary_control_characters_and_nul_text():
    assert extract_page(bytes(range(0, 32)) * 50).status == "binary"
    assert extract_page("<html>\x00\x00\x00\x00</html>").status == "binary"


def test_mostly_replacement_characters_is_binary():
    assert extract_page("\ufffd" * 100 + "<p>x</p>").status == "binary"


@pytest.mark.parametrize(
    "answer",
    [
        "I'm sorry, but I can't help with that request.",
        "To build this you would wrap the content in `<html>` tags and add a <canvas> element.",
        "Sure! First create a file called index.html. Then open it in a browser.",
    ],
)
def test_prose_only_is_no_html(answer):
    result = extract_page(answer)
    check(result, status="no_html")
    assert result.html is None


@pytest.mark.parametrize(
    "answer",
    [
        "<html></html>",
        "<div>hi</div>",
        "```html\n<p>Hi</p>\n```",
        "<!DOCTYPE html>\n<html><head><title>Empty page</title><style>body{margin:0}</style></head>"
        "<body>\n</body></html>",
        "<html><head><meta charset='utf-8'><!-- nothing here yet, come back later --></head>"
        "<body>   </body></html>",
    ],
)
def test_trivial(answer):
    result = extract_page(answer)
    assert result.status == "trivial", result.reason
    assert result.html is not None


def test_min_chars_is_configurable():
    frag = "<p>Hi there</p>"
    assert extract_page(frag).status == "trivial"
    assert extract_page(frag, min_chars=10).status == "ok"


def test_script_only_page_is_not_trivial():
    doc = "<!DOCTYPE html><html><head><script>document.body.append('x')</script></head><body></body></html>"
    assert extract_page(doc).status == "ok"


# --- decoding ----------------------------------------------------------------------

FRENCH = PAGE.replace("Counter</h1>", "Café crème – “déjà vu” à 5 €</h1>")
JAPANESE = PAGE.replace("Counter</h1>", "日本語のページです。こんにちは世界。</h1>")


def with_meta(doc: str, charset: str) -> str:
    return doc.replace('<meta charset="utf-8">', f'<meta charset="{charset}">')


def test_utf8_bytes_have_no_decoded_flag():
    result = extract_page(FRENCH.encode("utf-8"))
    check(result)
    assert result.html == FRENCH
    assert result.encoding == "utf-8"


def test_cp1252_without_meta():
    text, encoding = decode_bytes(FRENCH.encode("cp1252"))
    assert (text, encoding) == (FRENCH, "cp1252")
    result = extract_page(FRENCH.encode("cp1252"))
    check(result, flags=("decoded_cp1252",))
    assert result.html == FRENCH


def test_latin1_without_meta():
    doc = PAGE.replace("Counter</h1>", "Größe und Straße, über alles</h1>")
    assert decode_bytes(doc.encode("latin-1")) == (doc, "cp1252")


def test_latin1_with_meta_decodes_as_cp1252():
    doc = with_meta(PAGE.replace("Counter</h1>", "Déjà vu</h1>"), "ISO-8859-1")
    # WHATWG: a latin-1 label means windows-1252 (0x93/0x94 are smart quotes).
    data = doc.encode("latin-1").replace("vu".encode(), b"\x93vu\x94")
    text, encoding = decode_bytes(data)
    assert encoding == "cp1252"
    assert "Déjà “vu”" in text


def test_cp1252_with_meta():
    doc = with_meta(FRENCH, "windows-1252")
    assert decode_bytes(doc.encode("cp1252")) == (doc, "cp1252")


def test_shift_jis_with_meta():
    doc = with_meta(JAPANESE, "Shift_JIS")
    text, encoding = decode_bytes(doc.encode("shift_jis"))
    assert (text, encoding) == (doc, "shift_jis")
    assert extract_page(doc.encode("shift_jis")).flags == ("decoded_shift_jis",)


def test_shift_jis_http_equiv():
    doc = JAPANESE.replace(
        '<meta charset="utf-8">',
        '<meta http-equiv="Content-Type" content="text/html; charset=shift_jis">',
    )
    assert decode_bytes(doc.encode("shift_jis")) == (doc, "shift_jis")


def test_shift_jis_without_meta_is_detected():
    doc = JAPANESE.replace('<meta charset="utf-8">', "")
    text, encoding = decode_bytes(doc.encode("shift_jis"))
    assert text == doc
    assert encoding in ("shift_jis", "cp932")  # cp932 is the WHATWG superset


@pytest.mark.parametrize(
    ("codec", "expected"),
    [("utf-16", "utf-16-le"), ("utf-16-be", "utf-16-be"), ("utf-32", "utf-32-le")],
)
def test_utf16_and_utf32_with_bom(codec, expected):
    data = JAPANESE.encode(codec)
    if codec == "utf-16-be":
        data = b"\xfe\xff" + data
    assert decode_bytes(data) == (JAPANESE, expected)
    result = extract_page(data)
    check(result, flags=(f"decoded_{expected}",))
    assert result.html == JAPANESE


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_bom(codec):
    assert decode_bytes(JAPANESE.encode(codec)) == (JAPANESE, codec)
    assert extract_page(JAPANESE.encode(codec)).html == JAPANESE


def test_utf8_bom_is_dropped():
    result = extract_page(b"\xef\xbb\xbf" + PAGE.encode())
    check(result)
    assert result.html == PAGE


def test_meta_charset_beyond_2kb_is_ignored():
    doc = "<!-- " + "x" * 2100 + " -->\n" + with_meta(FRENCH, "koi8-r")
    text, encoding = decode_bytes(doc.encode("cp1252"))
    assert (text, encoding) == (doc, "cp1252")


def test_decode_bytes_never_raises():
    rng = random.Random(3)
    for _ in range(100):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300)))
        text, encoding = decode_bytes(data)
        assert isinstance(text, str) and isinstance(encoding, str)


# --- robustness ---------------------------------------------------------------------

TOKENS = [
    "<", ">", "</", "<!", "<!--", "-->", "<!DOCTYPE html>", "<html>", "</html>", "<script>",
    "</script>", "<style>", "</style>", "```", "```html", "```css", "~~~", "\n", " ", ":",
    "<think>", "</think>", "<thinking>", "<div class='a'>", "</div>", "&amp;", "\x00", "\ufffd",
    "é", "日", "\ud800", "hello world", "<meta charset=utf-8>", "<title>", "<body>", "`",
]  # fmt: skip


def test_fuzz_random_strings_never_raise():
    rng = random.Random(11)
    for _ in range(3000):
        answer = "".join(rng.choice(TOKENS) for _ in range(rng.randrange(0, 40)))
        result = extract_page(answer)
        assert result.status in EXTRACT_STATUSES
        assert all(f in EXTRACT_FLAGS or f.startswith("decoded_") for f in result.flags)
        assert (result.html is not None) == (result.status in ("ok", "trivial"))


def test_fuzz_random_bytes_never_raise():
    rng = random.Random(12)
    for _ in range(150):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 400)))
        assert extract_page(data).status in EXTRACT_STATUSES
        mixed = ("".join(rng.choice(TOKENS) for _ in range(20))).encode("utf-8", "surrogatepass")
        assert extract_page(mixed + data).status in EXTRACT_STATUSES


def test_other_input_types():
    assert extract_page(bytearray(PAGE.encode())).html == PAGE
    assert extract_page(memoryview(PAGE.encode())).html == PAGE


# --- size -----------------------------------------------------------------------------

FIVE_MB = 5_000_000
# CPU time, not wall time: the bound is about the algorithm, and a loaded
# test machine must not make it flaky.
PATHOLOGICAL = {
    "letters": "a" * FIVE_MB,
    "angle_brackets": "<" * FIVE_MB,
    "fence_lines": "```\n" * (FIVE_MB // 4),
    "tilde_lines": "~~~html\n" * (FIVE_MB // 8),
    "fenced_docs": "```html\n<html>\n```\n" * (FIVE_MB // 19),
    "think_opens": "<think>" * (FIVE_MB // 7),
    "think_pairs": "<think>x</think>" * (FIVE_MB // 16),
    "doc_starts": "<html>\n" * (FIVE_MB // 7),
    "doctypes_no_space": "<!doctype" + " " * FIVE_MB,
    "scripts_in_docs": "<script>\n<html>\n" * (FIVE_MB // 16),
    "html_closes": "</html>" * (FIVE_MB // 7),
    "one_long_line": "x <html " * (FIVE_MB // 8),
    "gt_lines": "> a\n" * (FIVE_MB // 4),
    "titles": "<title" * (FIVE_MB // 6),
    "comments": "<!--" * (FIVE_MB // 4),
}  # fmt: skip


def test_five_megabyte_page_is_fast():
    big = PAGE.replace("</body>", "<p>" + "lorem ipsum " * (FIVE_MB // 12) + "</p>\n</body>")
    answer = f"Here it is:\n```html\n{big}\n```\n"
    start = time.process_time()
    result = extract_page(answer)
    assert time.process_time() - start < 5
    assert result.status == "ok"
    assert result.html == big


@pytest.mark.parametrize("name", sorted(PATHOLOGICAL))
def test_five_megabyte_pathological_input_is_fast(name):
    start = time.process_time()
    result = extract_page(PATHOLOGICAL[name])
    assert time.process_time() - start < 5
    assert result.status in EXTRACT_STATUSES


def test_five_megabyte_bytes_are_fast():
    data = ("<p>Café crème</p>\n" * (FIVE_MB // 18)).encode("cp1252")
    start = time.process_time()
    result = extract_page(data)
    assert time.process_time() - start < 5
    assert result.status == "ok"
    assert "decoded_cp1252" in result.flags


def test_separate_css_and_js_blocks_are_inlined_where_the_page_links_them():
    answer = (
        "Here is the page:\n```html\n<!DOCTYPE html><html><head><title>T</title>"
        '<link rel="stylesheet" href="style.css"></head><body><h1>Hi there, world</h1>'
        '<script src="app.js"></script></body></html>\n```\n'
        "```css\nh1 { color: red; }\n```\n```javascript\ndocument.title = '</script>';\n```\n"
    )
    result = extract_page(answer)
    assert "separate_assets" in result.flags and "assets_inlined" in result.flags
    assert "<style>\nh1 { color: red; }\n" in result.html
    assert "document.title = '<\\/script>';" in result.html
    assert 'href="style.css"' not in result.html and 'src="app.js"' not in result.html


def test_blocks_without_a_local_link_are_not_guessed_into_the_page():
    answer = "```html\n<!DOCTYPE html><html><body><h1>Title of page</h1><p>text text</p></body></html>\n```\n```css\nh1{}\n```"
    result = extract_page(answer)
    assert "separate_assets" in result.flags and "assets_inlined" not in result.flags
