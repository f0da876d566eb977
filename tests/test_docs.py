"""The docs stand on their own in a clone: no pointers into the workspace outside the repository,
and every relative link in README.md and docs/ leads to a file that exists."""

from __future__ import annotations

import re
import subprocess

from conftest import ROOT

# Split so that this file does not match its own check.
OUTSIDE_NOTES = "shared" + "/notes"
LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.DOTALL | re.MULTILINE)
CODE_SPAN = re.compile(r"`[^`\n]*`")


def _tracked(*patterns: str) -> list:
    out = subprocess.run(["git", "ls-files", "-z", "--", *patterns], cwd=ROOT, capture_output=True, check=True)
    return [ROOT / p for p in out.stdout.decode().split("\0") if p]


def _links(text: str) -> list[str]:
    text = CODE_SPAN.sub("", FENCE.sub("", text))
    return LINK.findall(text)


def test_no_tracked_file_points_into_shared_notes():
    hits = [p.relative_to(ROOT).as_posix() for p in _tracked("*.md", "*.py")
            if p.is_file() and OUTSIDE_NOTES in p.read_text(encoding="utf-8", errors="replace")]
    assert hits == []


def test_relative_links_in_readme_and_docs_resolve():
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = []
    for md in files:
        for target in _links(md.read_text(encoding="utf-8")):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE) or target.startswith("#"):
                continue  # a URL (https:, mailto:) or an anchor in the same page
            path = target.split("#", 1)[0].split("?", 1)[0]
            if not (md.parent / path).exists():
                broken.append(f"{md.relative_to(ROOT).as_posix()}: {target}")
    assert broken == []


def test_link_pattern_finds_links_and_images_outside_code_only():
    text = "see [a](docs/a.md) and [b](b.md#x)\n`[c](c.md)`\n```\n[d](d.md)\n```\n![img](i.png)"
    assert _links(text) == ["docs/a.md", "b.md#x", "i.png"]


SOURCE_PATH = re.compile(r"(?<![\w/.-])((?:webmend|tests|bench|scripts)/[\w/.-]*\w)")


def test_source_paths_named_in_readme_and_docs_exist():
    """A path such as `webmend/evaluate/page.py` named in prose must survive a move of the code."""
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    missing = []
    for md in files:
        for path in SOURCE_PATH.findall(md.read_text(encoding="utf-8")):
            if "*" not in path and "NAME" not in path and not (ROOT / path).exists():  # NAME: a placeholder
                missing.append(f"{md.relative_to(ROOT).as_posix()}: {path}")
    assert missing == []
