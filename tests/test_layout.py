"""The test tree itself: pytest imports test modules by basename (prepend mode), so two test
files with one name in different folders break collection of the whole suite."""

from __future__ import annotations

from collections import Counter

from conftest import ROOT


def test_test_module_basenames_are_unique():
    names = Counter(p.name for p in (ROOT / "tests").rglob("test_*.py"))
    assert [n for n, c in names.items() if c > 1] == []


def test_only_one_conftest():
    assert [p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("conftest.py")] == ["tests/conftest.py"]
