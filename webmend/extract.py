"""Turn a raw model answer (str or bytes) into the single HTML page to evaluate.

Model answers wrap the page in reasoning blocks, Markdown fences, prose,
drafts and separate CSS/JS snippets.  ``extract_page`` finds the page and
labels every answer with one status from ``EXTRACT_STATUSES``.

Two rules shape the code:

* It never raises: a batch of thousands of answers must not stop on one odd
  answer, so every path ends in an ``Extraction``.
* It is linear in the answer size: answers can be megabytes of repeated
  garbage, so scanning uses ``str.find``, ``bisect`` over precomputed tag
  positions and regexes without lazy spans or nested quantifiers (no
  catastrophic backtracking).
"""

from __future__ import annotations

import bisect
import codecs
import functools
import re
import unicodedata
from dataclasses import dataclass, field
from itertools import islice

from charset_normalizer import from_bytes

__all__ = [
    "DECODED_FLAG_PREFIX",
    "EXTRACT_FLAGS",
    "EXTRACT_STATUSES",
    "Extraction",
    "decode_bytes",
    "extract_page",
]

# Closed list of outcomes; downstream code switches on these strings.
EXTRACT_STATUSES = ("ok", "empty", "binary", "no_html", "trivial")

# Fixed flags, in the order they appear in ``Extraction.flags``.  Bytes input
# decoded from something other than UTF-8 adds ``decoded_<codec>`` last.
EXTRACT_FLAGS = (
    "think_block",
    "fenced",
    "prose_around",
    "multiple_documents",
    "separate_assets",
    "assets_inlined",
    "truncated",
    "fragment",
)
DECODED_FLAG_PREFIX = "decoded_"

# Real answers hold a handful of fences, documents and think tags.  Inputs
# with thousands are garbage (repeated tokens); capping the Python-level
# loops keeps them linear-time and fast, and only the garbage is affected.
_MAX_THINK_TAGS = 1000
_MAX_FENCE_LINES = 2000
_MAX_DOC_STARTS = 2000
_MAX_POSITIONS = 20_000


@dataclass(frozen=True)
class Extraction:
    """Result of ``extract_page``.

    ``html`` is set for status ``ok`` and ``trivial`` (the markup that was
    judged too small is kept for inspection) and is None otherwise.
    ``encoding`` is the codec used for bytes input, None for str input.
    """

    html: str | None
    status: str
    reason: str
    flags: tuple[str, ...]
    encoding: str | None


# ---------------------------------------------------------------------------
# Decoding bytes
# ---------------------------------------------------------------------------

# UTF-32 BOMs first: the UTF-32-LE BOM begins with the UTF-16-LE BOM.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# Only the first 2 KB are searched, like a browser's pre-scan, so the lazy
# attribute span is bounded.
_META_CHARSET = re.compile(
    rb"<meta\b[^<>]*?charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:-]+)", re.IGNORECASE
)
_META_PRESCAN_BYTES = 2048

# Labels browsers accept that Python's codec registry does not know.
_LABEL_ALIASES = {"x-sjis": "shift_jis", "windows-31j": "cp932", "x-gbk": "gbk"}

# WHATWG decodes these labels with a superset codec.  Latin-1 and ASCII
# labels go straight to cp1252 (latin-1 would turn its smart quotes into
# control characters); the others try the declared codec first and the
# superset only when the vendor extensions make it fail.
_PREFERRED = {"ascii": "cp1252", "iso8859-1": "cp1252"}
_SUPERSETS = {
    "ascii": "iso8859-1",
    "iso8859-1": "iso8859-1",
    "shift_jis": "cp932",
    "euc_kr": "cp949",
    "gb2312": "gb18030",
    "gbk": "gb18030",
}


def _codec_name(label: str) -> str | None:
    """Python's canonical codec name for a label, or None when unknown."""
    label = label.strip().lower()
    label = _LABEL_ALIASES.get(label, label)
    try:
        return codecs.lookup(label).name
    except (LookupError, ValueError):
        return None


def _try_decode(data: bytes, codec: str) -> str | None:
    try:
        return data.decode(codec)
    except (UnicodeDecodeError, LookupError):
        return None


def _decode_bom(data: bytes) -> tuple[str, str] | None:
    # A BOM is the strongest signal there is; decode leniently after it.
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(codec, errors="replace"), codec
    return None


def _decode_utf16_sniff(data: bytes) -> tuple[str, str] | None:
    """UTF-16 without BOM: mostly-ASCII text puts a NUL in every other byte.

    This must run before the strict UTF-8 step because NUL bytes are valid
    UTF-8, so UTF-16 markup would otherwise "decode" into NUL-laced text.
    """
    sample = data[:4096]
    half = len(sample) // 2
    if half < 2:
        return None
    even_nuls = sample[0::2].count(0)
    odd_nuls = sample[1::2].count(0)
    if odd_nuls > 0.3 * half and even_nuls < 0.05 * half:
        codec = "utf-16-le"
    elif even_nuls > 0.3 * half and odd_nuls < 0.05 * half:
        codec = "utf-16-be"
    else:
        return None
    return data.decode(codec, errors="replace"), codec


def _decode_utf8(data: bytes) -> tuple[str, str] | None:
    text = _try_decode(data, "utf-8")
    return None if text is None else (text, "utf-8")


def _declared_codec(data: bytes) -> str | None:
    """Codec named by a <meta charset> or http-equiv in the first 2 KB."""
    match = _META_CHARSET.search(data[:_META_PRESCAN_BYTES])
    if match is None:
        return None
    codec = _codec_name(match.group(1).decode("ascii", errors="replace"))
    # A declaration found by an ASCII scan cannot be UTF-16/32 (WHATWG maps
    # those to UTF-8), and UTF-8 itself already failed the strict step.
    if codec is None or codec.startswith(("utf-16", "utf-32", "utf-8")):
        return None
    return codec


def _decode_declared(data: bytes) -> tuple[str, str] | None:
    codec = _declared_codec(data)
    if codec is None:
        return None
    for candidate in (_PREFERRED.get(codec, codec), _SUPERSETS.get(codec)):
        text = _try_decode(data, candidate) if candidate else None
        if text is not None:
            return text, candidate
    return None


def _decode_declared_lenient(data: bytes) -> tuple[str, str] | None:
    # A declared codec with a few bad bytes beats UTF-8 with many.
    codec = _declared_codec(data)
    if codec is None:
        return None
    return data.decode(codec, errors="replace"), codec


_ASCII_BYTES = bytes(range(128))


def _is_single_byte_latin(text: str, data: bytes, codec: str) -> bool:
    """True when a detected codec is one of the many Latin code pages."""
    if len(text) != len(data):
        return False
    # Look only at the distinct non-ASCII bytes (deleting ASCII runs in C).
    high = bytes(sorted(set(data.translate(None, _ASCII_BYTES))))
    chars = high.decode(codec, errors="replace")
    return all(
        unicodedata.name(char, "").startswith("LATIN") for char in chars if char.isalpha()
    )


def _decode_detected(data: bytes) -> tuple[str, str] | None:
    """Statistical detection, biased to cp1252 among Latin code pages.

    On short Western text charset_normalizer picks almost at random between
    cp1250/cp1257/cp852/mac_* (all decode the bytes); answers from models
    are overwhelmingly cp1252 in that case, which is also the WHATWG default.
    """
    try:
        # preemptive_behaviour=False: the detector would otherwise obey a
        # <meta charset> anywhere in 8 KB; declarations were handled above
        # with the browser's 2 KB rule.
        best = from_bytes(data, preemptive_behaviour=False).best()
    except Exception:  # third-party heuristics: a crash there must not stop us
        best = None
    if best is None:
        return None
    cp1252 = _try_decode(data, "cp1252")
    codec = _codec_name(best.encoding or "") or "utf-8"
    text = str(best)
    if cp1252 is not None and codec != "cp1252" and _is_single_byte_latin(text, data, codec):
        return cp1252, "cp1252"
    return text, codec


def decode_bytes(data: bytes) -> tuple[str, str]:
    """Decode an answer: BOM, UTF-16 sniff, strict UTF-8, <meta charset>,
    detection, then UTF-8 with replacement characters.  Never raises.

    Returns (text, codec) where codec is Python's canonical lower-case name
    ("utf-8", "cp1252", "shift_jis", "utf-16-le", ...).
    """
    data = bytes(data)
    steps = (
        _decode_bom,
        _decode_utf16_sniff,
        _decode_utf8,
        _decode_declared,
        _decode_detected,
        _decode_declared_lenient,
    )
    for step in steps:
        decoded = step(data)
        if decoded is not None:
            return decoded
    return data.decode("utf-8", errors="replace"), "utf-8"


# ---------------------------------------------------------------------------
# Binary / empty screening
# ---------------------------------------------------------------------------

# C0 controls other than tab, LF, VT, FF, CR; DEL; C1 controls (latin-1
# decoding of binary data produces those).
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")
_BINARY_SAMPLE = 1_000_000


def _binary_reason(text: str) -> str | None:
    """Why the text looks like binary data, or None for real text.

    Ratios come from the first megabyte: binary data shows itself anywhere.
    """
    sample = text[:_BINARY_SAMPLE]
    size = len(sample) or 1
    nuls = sample.count("\x00")
    if nuls > size * 0.001 or (nuls and size < 1000):
        return "the answer contains NUL bytes, so it is binary data, not text"
    if len(_CONTROL.findall(sample)) > size * 0.05:
        return "the answer is mostly control characters, so it is binary data"
    if sample.count("\ufffd") > size * 0.3:
        return "the answer did not decode as text (mostly replacement characters)"
    return None


# ---------------------------------------------------------------------------
# Think blocks
# ---------------------------------------------------------------------------

_THINK_TAG = re.compile(r"<(/?)think(?:ing)?\s*>", re.IGNORECASE)


@dataclass
class _Thoughts:
    answer: str  # the text with reasoning removed
    loose: str  # the text with only the think tags removed (fallback)
    found: bool


def _strip_think(text: str) -> _Thoughts:
    """Remove <think>/<thinking> blocks.

    A leading close tag without an open tag means the opening tag was part
    of the prompt template (common for reasoning models), so everything
    before it is reasoning.  An open tag that never closes keeps its
    content: the answer may have been written inside it.
    """
    tags = list(islice(_THINK_TAG.finditer(text), _MAX_THINK_TAGS))
    if not tags:
        return _Thoughts(text, text, False)
    pieces: list[str] = []
    pos = 0
    open_end: int | None = None
    for index, tag in enumerate(tags):
        closing = bool(tag.group(1))
        if not closing and open_end is None:
            pieces.append(text[pos : tag.start()])
            open_end = tag.end()
        elif closing and open_end is not None:
            pos, open_end = tag.end(), None
        elif closing and index == 0:
            pos = tag.end()
        # Nested opens and stray later closes are ignored.
    tail = text[pos:]
    if open_end is not None:
        # Keep what the unclosed block holds, minus any further think tags.
        tail = _THINK_TAG.sub("", text[open_end:])
    pieces.append(tail)
    return _Thoughts("".join(pieces), _THINK_TAG.sub("", text), True)


# ---------------------------------------------------------------------------
# Markdown fences
# ---------------------------------------------------------------------------

# A fence line: 3+ backticks (info string without backticks, per CommonMark)
# or 3+ tildes.  Indentation is allowed because fences sit in list items.
_FENCE_LINE = re.compile(
    r"^[ \t]*(?:(`{3,})([^`\n]*)|(~{3,})([^\n]*))$", re.MULTILINE
)

_HTML_LANGS = {"html", "htm", "xhtml", "html5", "markup"}
_CSS_LANGS = {"css", "scss", "sass", "less"}
_JS_LANGS = {"js", "javascript", "jsx", "mjs", "ts", "typescript", "tsx"}
_NEUTRAL_LANGS = {"", "text", "txt", "plaintext", "plain", "xml", "svg"}


@dataclass
class _Fence:
    open_start: int  # start of the opening fence line
    start: int  # first character of the content
    end: int  # end of the content
    close_end: int  # end of the closing fence line (or of the text)
    lang: str
    closed: bool
    kind: str = "other"  # html / css / js / other, set by _classify


def _fence_lang(info: str) -> str:
    """Normalise an info string: "HTML", "html title=x", "index.html"."""
    words = info.strip().lower().split()
    lang = words[0].strip("{}.") if words else ""
    for suffix, name in ((".html", "html"), (".htm", "html"), (".css", "css"), (".js", "js")):
        if lang.endswith(suffix):
            return name
    return lang


def _opening(text: str, match: re.Match) -> tuple[str, str, int]:
    """(marker, lang, content start) of an opening fence line.

    "```html<!DOCTYPE html>" puts markup on the fence line itself; the
    content then starts at the "<" instead of the next line.
    """
    marker = match.group(1) or match.group(3)
    info = (match.group(2) if match.group(1) else match.group(4)) or ""
    lt = info.find("<")
    if lt >= 0:
        return marker, _fence_lang(info[:lt]), match.start(2 if match.group(1) else 4) + lt
    return marker, _fence_lang(info), min(match.end() + 1, len(text))


def _parse_fences(text: str) -> list[_Fence]:
    """Pair opening and closing fence lines (CommonMark rules, simplified)."""
    fences: list[_Fence] = []
    current: tuple[re.Match, str, str, int] | None = None
    for match in islice(_FENCE_LINE.finditer(text), _MAX_FENCE_LINES):
        if current is None:
            marker, lang, start = _opening(text, match)
            current = (match, marker, lang, start)
            continue
        opener, marker, lang, start = current
        this_marker = match.group(1) or match.group(3)
        info = (match.group(2) if match.group(1) else match.group(4)) or ""
        # Closing: same character, at least as long, no info string.
        if this_marker[0] == marker[0] and len(this_marker) >= len(marker) and not info.strip():
            end = max(start, match.start())
            close_end = min(match.end() + 1, len(text))
            fences.append(_Fence(opener.start(), start, end, close_end, lang, True))
            current = None
    if current is not None:
        opener, _marker, lang, start = current
        fences.append(_Fence(opener.start(), start, len(text), len(text), lang, False))
    return fences


# ---------------------------------------------------------------------------
# Locating documents
# ---------------------------------------------------------------------------

_DOC_START = re.compile(r"<!doctype\s+html|<html(?=[\s>/])", re.IGNORECASE)
_HTML_CLOSE = re.compile(r"</html\s*>", re.IGNORECASE)
_SCRIPT_OPEN = re.compile(r"<script(?=[\s>/])", re.IGNORECASE)
_SCRIPT_CLOSE = re.compile(r"</script", re.IGNORECASE)
_ANY_TAG = re.compile(r"<[A-Za-z!]")
_LINE_PREFIX_LIMIT = 200
_FENCE_PREFIX = re.compile(r"(?:`{3,}|~{3,})[\w.-]*")


def _at_line_start(text: str, pos: int) -> bool:
    """True when only whitespace (or a "Here it is:" label) precedes pos on
    its line.  Doc starts mentioned mid-sentence ("wrap it in `<html>`")
    are prose, not documents.  The look-back is bounded to stay linear."""
    floor = max(0, pos - _LINE_PREFIX_LIMIT)
    newline = text.rfind("\n", floor, pos)
    if newline < 0 and floor > 0:
        return False
    prefix = text[newline + 1 : pos].strip()
    return not prefix or prefix.endswith(":") or _FENCE_PREFIX.fullmatch(prefix) is not None


@dataclass
class _Index:
    """Positions of the tags that matter, computed once per text."""

    starts: list[int]
    start_is_doctype: list[bool]
    closes: list[int]
    close_ends: list[int]
    script_opens: list[int]
    script_closes: list[int]
    strong: set[int] = field(default_factory=set)


def _positions(pattern: re.Pattern, text: str) -> list[re.Match]:
    return list(islice(pattern.finditer(text), _MAX_POSITIONS))


def _build_index(text: str) -> _Index:
    starts, kinds = [], []
    for match in islice(_DOC_START.finditer(text), _MAX_DOC_STARTS):
        if _at_line_start(text, match.start()):
            starts.append(match.start())
            kinds.append(match.group(0)[1] == "!")
    closes = _positions(_HTML_CLOSE, text)
    return _Index(
        starts=starts,
        start_is_doctype=kinds,
        closes=[m.start() for m in closes],
        close_ends=[m.end() for m in closes],
        script_opens=[m.start() for m in _positions(_SCRIPT_OPEN, text)],
        script_closes=[m.start() for m in _positions(_SCRIPT_CLOSE, text)],
    )


def _last_before(positions: list[int], lo: int, hi: int) -> int:
    """Index of the last position in [lo, hi), or -1."""
    i = bisect.bisect_left(positions, hi) - 1
    return i if i >= 0 and positions[i] >= lo else -1


def _inside_script(index: _Index, lo: int, pos: int) -> bool:
    # A doc start inside an open <script> is a string literal (srcdoc,
    # template), not a new document.
    last_open = _last_before(index.script_opens, lo, pos)
    if last_open < 0:
        return False
    last_close = _last_before(index.script_closes, lo, pos)
    return last_close < 0 or index.script_closes[last_close] < index.script_opens[last_open]


def _splits(index: _Index, current: int, pos: int) -> bool:
    """Whether the doc start at pos begins a new document."""
    if pos in index.strong:
        return True
    if _last_before(index.closes, current, pos) >= 0:
        return True
    return not _inside_script(index, current, pos)


@dataclass
class _Candidate:
    start: int
    end: int
    is_doc: bool  # has <!DOCTYPE html> or <html>
    complete: bool  # ends with </html> (docs) / closed fence (fragments)
    fenced: bool

    @property
    def size(self) -> int:
        return self.end - self.start


def _close_doc(index: _Index, start: int, limit: int, fenced: bool) -> _Candidate:
    """A document runs to the last </html> before limit, else to limit."""
    i = _last_before(index.closes, start, limit)
    if i >= 0:
        return _Candidate(start, index.close_ends[i], True, True, fenced)
    return _Candidate(start, limit, True, False, fenced)


def _scan_docs(
    index: _Index, lo: int, hi: int, fenced: bool, first_only: bool = False
) -> list[_Candidate]:
    """Documents whose start lies in [lo, hi); with first_only, stop after
    the first one (keeps _extend linear)."""
    first = bisect.bisect_left(index.starts, lo)
    last = bisect.bisect_left(index.starts, hi)
    docs: list[_Candidate] = []
    current = -1
    waiting_for_html = False  # a doctype's own <html> tag is not a new doc
    for i in range(first, last):
        pos, is_doctype = index.starts[i], index.start_is_doctype[i]
        if current >= 0 and not is_doctype and waiting_for_html:
            waiting_for_html = False
            continue
        if current >= 0 and not _splits(index, current, pos):
            continue
        if current >= 0:
            docs.append(_close_doc(index, current, pos, fenced))
            if first_only:
                return docs
        current, waiting_for_html = pos, is_doctype
    if current >= 0:
        docs.append(_close_doc(index, current, hi, fenced))
    return docs


def _extend(index: _Index, text: str, doc: _Candidate) -> _Candidate:
    """Let an unfinished document run past its region when its </html>
    comes later: a "```" line inside the page's JavaScript ends the fence
    (or starts a bogus one) early."""
    if doc.complete:
        return doc
    longer = _scan_docs(index, doc.start, len(text), doc.fenced, first_only=True)
    if longer and longer[0].complete and longer[0].end > doc.end:
        return longer[0]
    return doc


# ---------------------------------------------------------------------------
# Candidates: fenced blocks, bare documents, bare fragments
# ---------------------------------------------------------------------------

# Searching for "\n" first is much faster than a MULTILINE "^" on big input.
_FRAGMENT_START = re.compile(r"\n[ \t]*<[A-Za-z!]")
_LEADING_TAG = re.compile(r"[ \t]*<[A-Za-z!]")


def _classify(text: str, fence: _Fence) -> str:
    """html / css / js / other, from the label and then the content."""
    if fence.lang in _HTML_LANGS:
        return "html"
    if fence.lang in _CSS_LANGS:
        return "css"
    if fence.lang in _JS_LANGS:
        return "js"
    head = text[fence.start : fence.start + 2000].lstrip()
    if _DOC_START.match(head) or (fence.lang in _NEUTRAL_LANGS and _ANY_TAG.match(head)):
        return "html"
    return "other"


def _mark_strong_starts(text: str, index: _Index, fences: list[_Fence]) -> None:
    """A document that opens a fence is always a new document, even when the
    previous (truncated) draft left a <script> open."""
    for fence in fences:
        if fence.kind != "html":
            continue
        i = bisect.bisect_left(index.starts, fence.start)
        if i < len(index.starts) and index.starts[i] < fence.end:
            if not text[fence.start : index.starts[i]].strip():
                index.strong.add(index.starts[i])


def _fence_candidates(text: str, index: _Index, fence: _Fence) -> list[_Candidate]:
    docs = _scan_docs(index, fence.start, fence.end, fenced=True)
    if docs:
        return [_extend(index, text, doc) for doc in docs]
    if not _ANY_TAG.search(text, fence.start, fence.end):
        return []  # "```html" around prose: nothing to render
    return [_Candidate(fence.start, fence.end, False, fence.closed, True)]


def _gaps(fences: list[_Fence], size: int) -> list[tuple[int, int]]:
    """Text regions outside all fences."""
    gaps, pos = [], 0
    for fence in fences:
        gaps.append((pos, fence.open_start))
        pos = fence.close_end
    gaps.append((pos, size))
    return [(lo, hi) for lo, hi in gaps if hi > lo]


def _first_tag_line(text: str, lo: int, hi: int) -> int:
    """Start of the first tag that begins a line in [lo, hi), or -1."""
    # Both patterns end with "<" plus one character, hence end() - 2.
    if lo == 0 or text[lo - 1] == "\n":
        match = _LEADING_TAG.match(text, lo, hi)
        if match is not None:
            return match.end() - 2
    match = _FRAGMENT_START.search(text, lo, hi)
    return -1 if match is None else match.end() - 2


def _last_tag_line_end(text: str, lo: int, hi: int) -> int:
    """End of the last line in [lo, hi) that ends with ">", or -1.

    Walks backwards one line at a time (each line is looked at once)."""
    while hi > lo:
        gt = text.rfind(">", lo, hi)
        if gt < 0:
            return -1
        newline = text.find("\n", gt, hi)
        line_end = hi if newline < 0 else newline
        if not text[gt + 1 : line_end].strip():
            return gt + 1
        hi = text.rfind("\n", lo, gt) + 1  # no ">" on this line ends it
        if hi <= lo:
            return -1
    return -1


def _bare_fragment(text: str, lo: int, hi: int) -> _Candidate | None:
    """Unfenced markup without <html>: from the first line that starts with
    a tag to the last line that ends with one, dropping prose around."""
    first = _first_tag_line(text, lo, hi)
    if first < 0:
        return None
    last_end = _last_tag_line_end(text, first, hi)
    if last_end <= first:
        return None
    return _Candidate(first, last_end, False, True, False)


@dataclass
class _Scan:
    candidates: list[_Candidate]
    fences: list[_Fence]


def _drop_nested(candidates: list[_Candidate]) -> list[_Candidate]:
    """Remove candidates inside another (an extended document swallows the
    pieces a stray fence line cut it into)."""
    ordered = sorted(candidates, key=lambda c: (c.start, -c.end))
    kept: list[_Candidate] = []
    for cand in ordered:
        if kept and cand.start >= kept[-1].start and cand.end <= kept[-1].end:
            continue
        kept.append(cand)
    return kept


def _scan(text: str) -> _Scan:
    fences = _parse_fences(text)
    index = _build_index(text)
    for fence in fences:
        fence.kind = _classify(text, fence)
    _mark_strong_starts(text, index, fences)
    candidates: list[_Candidate] = []
    for fence in fences:
        if fence.kind == "html":
            candidates.extend(_fence_candidates(text, index, fence))
    for lo, hi in _gaps(fences, len(text)):
        for doc in _scan_docs(index, lo, hi, fenced=False):
            candidates.append(_extend(index, text, doc))
    if not candidates:
        for lo, hi in _gaps(fences, len(text)):
            fragment = _bare_fragment(text, lo, hi)
            if fragment is not None:
                candidates.append(fragment)
    return _Scan(_drop_nested(candidates), fences)


def _pick(candidates: list[_Candidate]) -> _Candidate:
    """Complete documents beat unfinished ones, which beat fragments.  Within
    a tier the last one wins (final answers come last) unless it is under
    half the size of the largest, which then wins instead."""
    tier = (
        [c for c in candidates if c.is_doc and c.complete]
        or [c for c in candidates if c.is_doc]
        or candidates
    )
    largest = max(tier, key=lambda c: c.size)
    last = tier[-1]
    return last if last.size * 2 >= largest.size else largest


# ---------------------------------------------------------------------------
# Judging the chosen markup
# ---------------------------------------------------------------------------

# Any tag other than the page shell; one such tag makes the page non-empty.
_CONTENT_TAG = re.compile(
    r"<(?!(?:html|head|body|title|meta|link|base|style)\b)[A-Za-z]", re.IGNORECASE
)
_HIDDEN_OPEN = re.compile(r"<!--|<(title|style)\b", re.IGNORECASE)
_TAG = re.compile(r"<[^<>]*>")


def _shell_text(html: str) -> str:
    """Text of a page made only of shell tags, minus title/style/comments.

    Only called when _CONTENT_TAG found nothing, so no <script> can hide
    inside; each closer is searched from the opener, so this is linear.
    """
    pieces, pos = [], 0
    while True:
        opener = _HIDDEN_OPEN.search(html, pos)
        if opener is None:
            pieces.append(html[pos:])
            break
        pieces.append(html[pos : opener.start()])
        name = opener.group(1)
        closer = "-->" if name is None else "</" + name.lower()
        end = _find_ci(html, closer, opener.end())
        gt = html.find(">", end) if end >= 0 else -1
        if gt < 0:
            break  # never closed: the rest is hidden too
        pos = gt + 1
    return _TAG.sub("", "".join(pieces))


def _find_ci(text: str, needle: str, start: int) -> int:
    match = re.compile(re.escape(needle), re.IGNORECASE).search(text, start)
    return -1 if match is None else match.start()


def _trivial_reason(html: str, min_chars: int) -> str | None:
    if len(html) < min_chars:
        return f"the markup is only {len(html)} characters (minimum {min_chars})"
    if _CONTENT_TAG.search(html) is None and not _shell_text(html).strip():
        return "the page has no elements and no text in its body"
    return None


# Greedy ".*" jumps to the end and backs off: finds the last <script> in
# linear time without iterating over every match.
_LAST_SCRIPT_OPEN = re.compile(r"(?s:.*)<script(?=[\s>/])", re.IGNORECASE)


def _unclosed_script(html: str) -> bool:
    """The answer stopped inside a script: no </script> after the last
    <script> opening."""
    last_open = _LAST_SCRIPT_OPEN.match(html)
    return last_open is not None and _SCRIPT_CLOSE.search(html, last_open.end()) is None


def _is_truncated(chosen: _Candidate, html: str) -> bool:
    # Unfinished: a document without </html>, a fragment whose fence never
    # closed, or a script left open.
    return not chosen.complete or _unclosed_script(html)


def _live_fences(scan: _Scan) -> list[_Fence]:
    """Fences that are not inside a candidate: a "```" line inside a page's
    JavaScript is part of the page, not a code block of the answer."""
    starts = [c.start for c in scan.candidates]  # sorted by _drop_nested
    reach, furthest = [], -1
    for cand in scan.candidates:
        furthest = max(furthest, cand.end)
        reach.append(furthest)  # furthest end among candidates so far
    live = []
    for fence in scan.fences:
        i = bisect.bisect_right(starts, fence.open_start) - 1
        if i < 0 or reach[i] < fence.close_end:
            live.append(fence)
    return live


def _has_prose(text: str, scan: _Scan, fences: list[_Fence]) -> bool:
    """Non-blank text outside every candidate and HTML/CSS/JS fence."""
    covered = [(c.start, c.end) for c in scan.candidates]
    covered += [(f.open_start, f.close_end) for f in fences if f.kind != "other"]
    pos = 0
    for lo, hi in sorted(covered):
        if lo > pos and text[pos:lo].strip():
            return True
        pos = max(pos, hi)
    return bool(text[pos:].strip())


# ---------------------------------------------------------------------------
# Public entry point
# ---------------------------------------------------------------------------


def _result(status: str, reason: str, flags: set[str], encoding: str | None, html: str | None = None) -> Extraction:
    ordered = [f for f in EXTRACT_FLAGS if f in flags]
    ordered += sorted(f for f in flags if f.startswith(DECODED_FLAG_PREFIX))
    return Extraction(html, status, reason, tuple(ordered), encoding)


def _to_text(raw: object, flags: set[str]) -> tuple[str, str | None]:
    """str as is; bytes decoded (flagging non-UTF-8 codecs); None as empty."""
    if raw is None:
        return "", None
    if isinstance(raw, (bytes, bytearray, memoryview)):
        text, encoding = decode_bytes(bytes(raw))
        if encoding not in ("utf-8", "ascii"):
            flags.add(DECODED_FLAG_PREFIX + encoding)
        return text, encoding
    return (raw if isinstance(raw, str) else str(raw)), None


def _no_html_reason(scan: _Scan) -> str:
    if any(f.kind != "html" for f in scan.fences):
        return "the answer has code blocks but none contains HTML"
    return "the answer is prose with no HTML markup"


# Repair and RL evaluate the same answer again and again; extraction depends on nothing but the
# input, so an identical input is extracted once per process. Large inputs are not kept.
MEMO_MAX_CHARS = 1 << 20


def extract_page(raw: str | bytes, *, min_chars: int = 40) -> Extraction:
    """Find the HTML page in one model answer.  Never raises."""
    if isinstance(raw, (str, bytes)) and len(raw) <= MEMO_MAX_CHARS:
        return _extract_memo(raw, min_chars)
    return _extract_page(raw, min_chars)


@functools.lru_cache(maxsize=128)
def _extract_memo(raw: str | bytes, min_chars: int) -> Extraction:
    return _extract_page(raw, min_chars)  # Extraction is frozen: safe to share


def _extract_page(raw: str | bytes, min_chars: int) -> Extraction:
    flags: set[str] = set()
    text, encoding = _to_text(raw, flags)
    text = text.lstrip("\ufeff")
    if not text.strip():
        return _result("empty", "the answer is empty or whitespace", flags, encoding)
    binary = _binary_reason(text)
    if binary is not None:
        return _result("binary", binary, flags, encoding)

    thoughts = _strip_think(text)
    if thoughts.found:
        flags.add("think_block")
    work, scan = thoughts.answer, _scan(thoughts.answer)
    if not scan.candidates and thoughts.found:
        # The page was only written inside the reasoning: use it.
        work, scan = thoughts.loose, _scan(thoughts.loose)
    if not scan.candidates:
        return _result("no_html", _no_html_reason(scan), flags, encoding)
    return _judge(work, scan, flags, encoding, min_chars)


def _judge(text: str, scan: _Scan, flags: set[str], encoding: str | None, min_chars: int) -> Extraction:
    chosen = _pick(scan.candidates)
    html = text[chosen.start : chosen.end].strip()
    flags.update(_candidate_flags(text, scan, chosen, html))
    if "separate_assets" in flags:
        html, inlined = _inline_assets(html, text, _live_fences(scan))
        if inlined:
            flags.add("assets_inlined")
    reason = _trivial_reason(html, min_chars)
    if reason is not None:
        return _result("trivial", reason, flags, encoding, html)
    return _result("ok", _ok_reason(chosen, flags), flags, encoding, html)


_LOCAL_CSS = re.compile(r"<link\b[^>]*\bhref\s*=\s*[\"']?(?![a-z]+:|//)([^\"'\s>]+\.css)[^>]*>", re.I)
_LOCAL_JS = re.compile(r"<script\b[^>]*\bsrc\s*=\s*[\"']?(?![a-z]+:|//)([^\"'\s>]+\.js)[^>]*>\s*</script>", re.I)


def _inline_assets(html: str, text: str, fences: list[_Fence]) -> tuple[str, bool]:
    """Put the answer's separate CSS/JS blocks where the page links local files, as a user
    saving the files side by side would get. Only links to local files are replaced, and only
    when there is exactly one block of that kind, so nothing is guessed."""
    inlined = False
    for kind, pattern, wrap in (
        ("css", _LOCAL_CSS, lambda body: f"<style>\n{body}\n</style>"),
        ("js", _LOCAL_JS, lambda body: f"<script>\n{body}\n</script>"),
    ):
        blocks = [text[f.start : f.end] for f in fences if f.kind == kind]
        links = pattern.findall(html)
        if len(blocks) == 1 and len(links) == 1:
            tag = "style" if kind == "css" else "script"
            body = blocks[0].replace(f"</{tag}", f"<\\/{tag}")  # keep the block inside its element
            html = pattern.sub(lambda _m: wrap(body), html, count=1)
            inlined = True
    return html, inlined


def _candidate_flags(text: str, scan: _Scan, chosen: _Candidate, html: str) -> set[str]:
    flags = set()
    fences = _live_fences(scan)
    if chosen.fenced:
        flags.add("fenced")
    if _has_prose(text, scan, fences):
        flags.add("prose_around")
    if len(scan.candidates) > 1:
        flags.add("multiple_documents")
    if any(f.kind in ("css", "js") for f in fences):
        flags.add("separate_assets")
    if _is_truncated(chosen, html):
        flags.add("truncated")
    if not chosen.is_doc:
        flags.add("fragment")
    return flags


def _ok_reason(chosen: _Candidate, flags: set[str]) -> str:
    what = "an HTML document" if chosen.is_doc else "an HTML fragment"
    where = "in a code fence" if chosen.fenced else "in the answer text"
    tail = ", cut off before its end" if "truncated" in flags else ""
    return f"found {what} {where}{tail}"
