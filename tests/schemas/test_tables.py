"""The committed tables.schema.json is exactly what the pyarrow schemas in tables.py render."""

import json

from webmend.schemas.export import HERE, TABLES_FILE
from webmend.schemas.tables import COMMON_FIELDS, TABLES, render_tables


def test_committed_table_schemas_are_current():
    assert (HERE / TABLES_FILE).read_text() == render_tables(), "run: python -m webmend.schemas.export"


def test_rendered_tables_list_every_column():
    doc = json.loads(render_tables())
    assert sorted(doc["tables"]) == sorted(TABLES)
    for name, cols in doc["tables"].items():
        assert [c["name"] for c in cols] == TABLES[name].names
        assert [c["name"] for c in cols[-len(COMMON_FIELDS):]] == [f.name for f in COMMON_FIELDS]


def test_every_column_is_documented():
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "data-root.md").read_text()
    common = {f.name for f in COMMON_FIELDS}
    sections = dict(re.findall(r"^### (\w+)\n(.*?)(?=^### |\Z)", doc, flags=re.S | re.M))
    for name, schema in TABLES.items():
        assert name in sections, f"docs/data-root.md: no section '### {name}'"
        documented = set(re.findall(r"^\| `(\w+)` \|", sections[name], flags=re.M))
        missing = [c for c in schema.names if c not in common and c not in documented]
        assert not missing, f"docs/data-root.md ### {name}: document columns {missing}"
    for field in COMMON_FIELDS:
        assert f"| `{field.name}` |" in doc
