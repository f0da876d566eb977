"""The committed JSON Schemas are exactly what the pydantic models generate."""

from webmend.schemas.export import HERE, SCHEMAS, render


def test_committed_schemas_are_current():
    for name, model in SCHEMAS.items():
        assert (HERE / name).read_text() == render(model), f"run: python -m webmend.schemas.export ({name})"
