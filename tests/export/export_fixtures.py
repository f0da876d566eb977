"""A small data root made by real runs of the evaluator and the repair stage, shared by the export
tests (built once per session; tests copy it before changing anything).

Five answers to four prompts (data/fixtures/repair): each page is repaired by the deterministic
operators; `truncated_tail` is an unfinished document until repaired; `bare_document` has two
samples (`#1` differs by a comment), so one prompt has two pages; `wide_media`'s prompt is the
benchmark prompt of BENCHMARK."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import FIXTURES

from webmend.cli import main

PAGES = FIXTURES / "repair"
ITEMS = PAGES / "items.jsonl"
PROMPTS = ("bare_document", "truncated_tail", "wide_media", "start_overlay")
_BUILT: dict[str, Path] = {}


def _items() -> dict[str, dict]:
    return {json.loads(line)["id"]: json.loads(line) for line in ITEMS.read_text().splitlines() if line.strip()}


def write_responses(path: Path, ids=PROMPTS, second_sample: bool = True) -> Path:
    items = _items()
    lines = [{"id": pid, "prompt": items[pid]["prompt"],
              "response": "Here is the page:\n```html\n" + (PAGES / f"{pid}.html").read_text() + "\n```"} for pid in ids]
    if second_sample:
        html = (PAGES / "bare_document.html").read_text().replace("<body>", "<body>\n<!-- second sample -->")
        lines.append({"id": "bare_document#1", "prompt": items["bare_document"]["prompt"], "response": html})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def write_benchmark(path: Path) -> Path:
    path.write_text(json.dumps({"id": "bench_lodge", "prompt": _items()["wide_media"]["prompt"]}) + "\n")
    return path


def evaluate_and_repair(responses: Path, root: Path, work: Path) -> None:
    """`webmend evaluate --data-root` then `webmend repair --data-root` (operators only)."""
    assert main(["evaluate", "--responses", str(responses), "--tests", str(ITEMS), "--out", str(work / "eval"),
                 "--data-root", str(root), "--workers", "2"]) == 0
    assert main(["repair", "--responses", str(responses), "--tests", str(ITEMS), "--from", str(work / "eval"),
                 "--out", str(work / "repair"), "--data-root", str(root), "--rounds", "2", "--workers", "2"]) == 0


def traced_root(tmp_path_factory) -> tuple[Path, Path]:
    """(data root, benchmark file); the root must not be changed (copy_root for that)."""
    if "root" not in _BUILT:
        base = tmp_path_factory.mktemp("export-traces")
        evaluate_and_repair(write_responses(base / "responses.jsonl"), base / "root", base)
        _BUILT["root"], _BUILT["bench"] = base / "root", write_benchmark(base / "bench.jsonl")
    return _BUILT["root"], _BUILT["bench"]


def copy_root(root: Path, to: Path) -> Path:
    shutil.copytree(root, to, ignore=shutil.ignore_patterns("_locks"))
    return to
