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
