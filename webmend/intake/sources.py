"""File sources of prompts: forum dumps, prompt lists, HTMLBench items, library example indexes.

Every record becomes one `RawPrompt` that carries its provenance. Only the task text and the
family hints survive: author names, scores and other personal or account fields of a dump are
never read into a record. A record that cannot be used becomes a `RawPrompt` with `problem` set,
so that it reaches the rejects table instead of vanishing.
"""

from __future__ import annotations

import html
import json
import logging
import re
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

from webmend.schemas.vocab import FAMILIES, PROMPT_KINDS

log = logging.getLogger(__name__)

_TEXT_FIELDS = ("prompt", "instruction", "request", "task")
_BODY_FIELDS = ("selftext", "body", "text", "content")
_LICENCE_FIELDS = ("licence", "license")
_TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class RawPrompt:
    id: str
    text: str
    kind: str
    source: str
    file: str | None = None
    url: str | None = None
    fetched_at: str | None = None
    licence: str | None = None
    title: str | None = None
    hints: dict = field(default_factory=dict)  # family / subtype / interactive given by the source
    needs_rewrite: bool = False  # raw posts and index entries are not yet direct requests
    problem: str | None = None  # why the record is unusable (-> reject "malformed_input")
    source_policy: tuple[str, str] | None = None  # (policy rule, detail) the source itself imposes, e.g. a login wall


def iter_sources(paths) -> Iterator[RawPrompt]:
    for given in paths:
        path = Path(given)
        if not path.is_file():
            yield RawPrompt(path.stem, "", "prompt", path.stem, file=str(path), problem="no such file")
            continue
        yield from iter_file(path)


def iter_file(path: Path) -> Iterator[RawPrompt]:
    """Records of one file; those without a time of their own get the file's mtime (when it was fetched)."""
    mtime = datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc).isoformat()
    for raw in _iter_records(path):
        yield raw if raw.fetched_at else replace(raw, fetched_at=mtime)


def _iter_records(path: Path) -> Iterator[RawPrompt]:
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        yield from _iter_jsonl(path)
    elif suffix == ".parquet":
        yield from _iter_parquet(path)
    elif suffix == ".json":
        yield from _iter_json(path)
    elif suffix in (".txt", ".md", ""):
        yield from _iter_lines(path)
    else:
        yield RawPrompt(path.stem, "", "prompt", path.stem, file=str(path), problem=f"unsupported file type {suffix!r}")


def _iter_jsonl(path: Path) -> Iterator[RawPrompt]:
    with open(path, encoding="utf-8", errors="replace") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                yield RawPrompt(f"{path.stem}-{lineno}", "", "prompt", path.stem, file=where, problem=f"invalid JSON: {exc.msg}")
                continue
            yield record_to_prompt(obj, path.stem, where, f"{path.stem}-{lineno}")


def _iter_parquet(path: Path) -> Iterator[RawPrompt]:
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    for i, row in enumerate(table.to_pylist()):
        yield record_to_prompt(row, path.stem, f"{path}#{i}", f"{path.stem}-{i}")


def _iter_json(path: Path) -> Iterator[RawPrompt]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if _is_example_index(data):
        yield from iter_example_index(data, path)
    elif isinstance(data, list):
        for i, obj in enumerate(data):
            yield record_to_prompt(obj, path.stem, f"{path}#{i}", f"{path.stem}-{i}")
    else:
        yield RawPrompt(path.stem, "", "prompt", path.stem, file=str(path), problem="JSON is neither a list of records nor an example index")


def _iter_lines(path: Path) -> Iterator[RawPrompt]:
    """A plain prompt list: one prompt per non-blank line."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        for lineno, line in enumerate(fh, 1):
            if line.strip():
                yield RawPrompt(f"{path.stem}-{lineno}", line.strip(), "prompt", path.stem, file=f"{path}:{lineno}")


def record_to_prompt(obj, source: str, where: str, fallback_id: str) -> RawPrompt:
    if not isinstance(obj, dict):
        return RawPrompt(fallback_id, "", "prompt", source, file=where, problem="record is not an object")
    rid = str(obj.get("id") or fallback_id)
    common = dict(
        id=rid,
        source=str(obj.get("source") or _forum_source(obj) or source),
        file=str(obj.get("file") or where),  # a prompts table read back keeps the first file
        url=_str_or_none(obj.get("url") or obj.get("permalink")),
        fetched_at=_str_or_none(obj.get("fetched_at") or obj.get("created_utc")),
        licence=next((str(obj[k]) for k in _LICENCE_FIELDS if obj.get(k)), None),
    )
    prompt = next((obj[k] for k in _TEXT_FIELDS if isinstance(obj.get(k), str) and obj[k].strip()), None)
    if prompt is not None:
        kind = "benchmark_item" if "test_cases" in obj else str(obj.get("kind") or "prompt")
        return RawPrompt(text=prompt.strip(), kind=kind if kind in PROMPT_KINDS else "prompt", hints=_hints(obj), **common)
    title = obj.get("title") if isinstance(obj.get("title"), str) else ""
    body = next((obj[k] for k in _BODY_FIELDS if isinstance(obj.get(k), str)), "")
    text = "\n\n".join(part for part in (title.strip(), _plain(body)) if part)
    if not text:
        return RawPrompt(text="", kind="forum_post", problem="no prompt, title or body text", **common)
    return RawPrompt(text=text, kind="forum_post", title=title.strip() or None, hints=_hints(obj), needs_rewrite=True, **common)


def _forum_source(obj: dict) -> str | None:
    sub = obj.get("subreddit")
    return f"reddit/r/{sub}" if isinstance(sub, str) and sub else None


def _hints(obj: dict) -> dict:
    hints = {}
    family = obj.get("category") or obj.get("family")
    if family in FAMILIES:
        hints["family"] = family
    subtype = obj.get("sub_type") or obj.get("subtype")
    if isinstance(subtype, str) and subtype:
        hints["subtype"] = subtype
    interactive = obj.get("has_interaction", obj.get("interactive"))
    if isinstance(interactive, bool):
        hints["interactive"] = interactive
    return hints


def _plain(body: str) -> str:
    """Forum bodies are often HTML (StackExchange) or carry HTML entities (Reddit)."""
    text = _TAG.sub(" ", body) if "<" in body and ">" in body else body
    return re.sub(r"[ \t]+", " ", html.unescape(text)).strip()


def _str_or_none(value) -> str | None:
    return None if value is None or value == "" else str(value)


# Library example indexes ---------------------------------------------------------------------

# three.js examples' files.json: {"webgl": ["webgl_animation_keyframes", ...], "css3d": [...], ...}
_THREE_GROUPS = {"webgl", "webgpu", "css2d", "css3d", "svg", "physics", "misc", "games", "tests", "webaudio", "webxr"}
THREE_EXAMPLES_URL = "https://threejs.org/examples/#{name}"
THREE_LICENCE = "MIT (three.js examples index; only the example name is used)"


def _is_example_index(data) -> bool:
    return (
        isinstance(data, dict)
        and bool(data)
        and all(isinstance(v, list) and all(isinstance(n, str) for n in v) for v in data.values())
        and bool(set(data) & _THREE_GROUPS)
    )


def iter_example_index(index: dict, path: Path) -> Iterator[RawPrompt]:
    """One seed request per example name (WebUIProof B.1 seeds 3D tasks from three.js examples)."""
    for group, names in index.items():
        for name in names:
            topic = example_topic(name, group)
            text = (
                f"Using three.js in a single self-contained HTML file, build an interactive demo of {topic} "
                f"({group} renderer), like the official three.js example '{name}'."
            )
            yield RawPrompt(
                id=f"threejs-{name}",
                text=text,
                kind="library_example",
                source="threejs_examples",
                file=f"{path}:{group}",
                url=THREE_EXAMPLES_URL.format(name=name),
                licence=THREE_LICENCE,
                title=name,
                hints={"family": "three_d_webgl", "interactive": True},
                needs_rewrite=True,
            )


def example_topic(name: str, group: str) -> str:
    """'webgl_animation_keyframes' -> 'animation keyframes'."""
    words = name.split("_")
    if words and words[0] == group:
        words = words[1:]
    return " ".join(words) or name
