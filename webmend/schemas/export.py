"""Write the JSON Schema files generated from the pydantic models (run after changing them)."""

from __future__ import annotations

import json
from pathlib import Path

from webmend.schemas.contract import Contract
from webmend.schemas.manifest import Manifest
from webmend.schemas.repair import Diagnosis, RepairRecord
from webmend.schemas.results import ResultRecord, Summary
from webmend.schemas.tables import render_tables
from webmend.schemas.training import CheckpointReport, RlRun, RlUpdate, TrainRun

HERE = Path(__file__).parent
SCHEMAS = {"result.schema.json": ResultRecord, "summary.schema.json": Summary,
           "repair.schema.json": RepairRecord, "diagnosis.schema.json": Diagnosis,
           "manifest.schema.json": Manifest, "contract.schema.json": Contract,
           "train_run.schema.json": TrainRun, "checkpoint_report.schema.json": CheckpointReport,
           "rl_update.schema.json": RlUpdate, "rl_run.schema.json": RlRun}
TABLES_FILE = "tables.schema.json"  # the trace tables' pyarrow schemas, for documentation


def render(model) -> str:
    schema = model.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def main() -> None:
    for name, model in SCHEMAS.items():
        (HERE / name).write_text(render(model))
    (HERE / TABLES_FILE).write_text(render_tables())


if __name__ == "__main__":
    main()
