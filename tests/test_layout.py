"""The test tree itself: pytest imports test modules by basename (prepend mode), so two test
files with one name in different folders break collection of the whole suite."""

from __future__ import annotations

import ast
from collections import Counter

from conftest import ROOT


def test_test_module_basenames_are_unique():
    names = Counter(p.name for p in (ROOT / "tests").rglob("test_*.py"))
    assert [n for n, c in names.items() if c > 1] == []


def test_only_one_conftest():
    assert [p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("conftest.py")] == ["tests/conftest.py"]


# The stages and their libraries, lowest first (docs/architecture.md). A package may import from
# its own package and from any package on a lower line, never from its own line or above.
LAYERS = [
    ["schemas"],
    ["config", "store"],
    ["llm", "cdn", "stage"],
    ["browser"],
    ["extract"],
    ["intake"],
    ["generate"],
    ["evaluate"],
    ["repair"],
    ["contracts"],
    ["export"],
    ["training"],
    ["pool"],
    ["flows"],
    ["model_check"],
    ["cli"],
]
RANK = {name: n for n, names in enumerate(LAYERS) for name in names}


def _package_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "webmend" and len(parts) > 1 else None


def _webmend_imports(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):  # function-level imports too: a lazy import is still a dependency
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + ([f"{node.module}.{a.name}" for a in node.names] if node.module == "webmend" else [])
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            if (pkg := _package_of(name)) is not None:
                yield node.lineno, pkg


def test_every_package_has_a_layer():
    packages = {p.stem if p.is_file() else p.name for p in (ROOT / "webmend").iterdir()
                if (p.is_dir() and (p / "__init__.py").exists()) or (p.suffix == ".py" and p.stem != "__init__")}
    assert packages - RANK.keys() == set()


def test_imports_run_downward():
    upward = []
    for path in sorted((ROOT / "webmend").rglob("*.py")):
        own = _package_of(".".join(path.relative_to(ROOT).with_suffix("").parts))
        if own in (None, "__init__"):
            continue
        for line, pkg in _webmend_imports(path):
            if pkg != own and RANK[pkg] >= RANK[own]:
                upward.append(f"{path.relative_to(ROOT)}:{line} imports webmend.{pkg}")
    assert upward == []
