"""Read what the user hands us: HTML files/folders, raw-answer JSONL, and test items.

Everything is streamed: a huge JSONL is read line by line. Every input yields exactly one
`RawInput`, even when it cannot be read; the problem then travels as a reject status.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from webmend.schemas.hashing import sha256_hex

log = logging.getLogger(__name__)

HTML_SUFFIXES = (".html", ".htm")
MAX_INPUT_BYTES = 20 * 1024 * 1024


@dataclass(frozen=True)
class RawInput:
    index: int
    id: str
    source: str
    raw: bytes | str | None
    reject: tuple[str, str] | None = None  # (status, reason) when the input itself is unusable
    prompt: str | None = None


def input_hash(raw: RawInput) -> str:
    """sha256 of the input as given; an unusable input (no content) hashes its identity and reason."""
    if raw.raw is not None:
        return sha256_hex(raw.raw)
    return sha256_hex(f"unusable\x1f{raw.id}\x1f{raw.source}\x1f{raw.reject}")


def _page_files(path: Path) -> Iterator[tuple[str, Path]]:
    if path.is_dir():
        for file in sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in HTML_SUFFIXES):
            yield file.relative_to(path).with_suffix("").as_posix(), file
    else:
        yield path.with_suffix("").name, path


def _read_page(index: int, page_id: str, file: Path) -> RawInput:
    source = str(file)
    try:
        size = file.stat().st_size
        if size > MAX_INPUT_BYTES:
            return RawInput(index, page_id, source, None, ("too_large", f"{size} bytes exceeds {MAX_INPUT_BYTES}"))
        return RawInput(index, page_id, source, file.read_bytes())
    except OSError as exc:
        return RawInput(index, page_id, source, None, ("unreadable", f"cannot read file: {exc.strerror or exc}"))


def iter_pages(paths: Iterable[str | Path], start: int = 0) -> Iterator[RawInput]:
    index = start
    for given in paths:
        path = Path(given)
        if not path.exists():
            yield RawInput(index, path.with_suffix("").name, str(path), None, ("unreadable", "no such file or folder"))
            index += 1
            continue
        for page_id, file in _page_files(path):
            yield _read_page(index, page_id, file)
            index += 1


def iter_responses(path: str | Path, start: int = 0) -> Iterator[RawInput]:
    """One RawInput per non-blank line of a {"id", "prompt"?, "response"} JSONL file."""
    source = str(path)
    index = start
    with open(path, "rb") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            yield _parse_response_line(index, lineno, line, source)
            index += 1


def _parse_response_line(index: int, lineno: int, line: bytes, source: str) -> RawInput:
    where = f"{source}:{lineno}"
    fallback_id = f"line-{lineno}"
    if len(line) > MAX_INPUT_BYTES:
        return RawInput(index, fallback_id, where, None, ("too_large", f"line of {len(line)} bytes"))
    try:
        obj = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        return RawInput(index, fallback_id, where, None, ("malformed_input", f"invalid JSON: {exc}"))
    if not isinstance(obj, dict):
        return RawInput(index, fallback_id, where, None, ("malformed_input", "line is not a JSON object"))
    rid = str(obj.get("id") or fallback_id)
    prompt = obj.get("prompt") if isinstance(obj.get("prompt"), str) else None
    response = obj.get("response")
    if response is None:
        return RawInput(index, rid, where, None, ("malformed_input", "no 'response' field"), prompt)
    if not isinstance(response, str):
        return RawInput(index, rid, where, None, ("malformed_input", "'response' is not a string"), prompt)
    return RawInput(index, rid, where, response, None, prompt)


def load_items(path: str | Path | None) -> dict[str, dict]:
    """HTMLBench-format items by id. Malformed lines are an error: tests must be trustworthy."""
    if path is None:
        return {}
    items: dict[str, dict] = {}
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: invalid JSON ({exc})") from None
            if not isinstance(obj, dict) or "id" not in obj:
                raise ValueError(f"{path}:{lineno}: an item needs an 'id'")
            if not isinstance(obj.get("test_cases", []), list):
                raise ValueError(f"{path}:{lineno}: 'test_cases' must be a list")
            items[str(obj["id"])] = obj
    return items


def match_item(items: dict[str, dict], page_id: str) -> dict | None:
    """Exact id, else the prompt id of a sample id `P#k`, else the last path component."""
    if page_id in items:
        return items[page_id]
    base = page_id.split("#", 1)[0]
    if base in items:
        return items[base]
    return items.get(base.rsplit("/", 1)[-1])
