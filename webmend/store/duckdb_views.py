"""DuckDB over a data root: one view per trace table, in memory or saved as a database file.

Local roots: each view reads the table's Parquet glob, so a saved database file (default
ROOT/webmend.duckdb) stays current as files are added and opens in the `duckdb` shell or any
DuckDB client from 1.0 on (STORAGE_VERSION).
Object stores: the root's fsspec filesystem is registered on the connection (DuckDB's own S3
extension is not needed) and each view lists the committed files at the time it is built.
A table with no files yet gets an empty view with the table's columns.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import os
import uuid
from importlib.resources import files as resource_files
from typing import Mapping, Sequence

import duckdb
import pyarrow as pa

from webmend.schemas.tables import TABLES, V1_COLUMNS
from webmend.store.root import DataRoot

log = logging.getLogger(__name__)

DB_NAME = "webmend.duckdb"
# The database file holds only views, so an old storage format costs nothing and lets every DuckDB
# client from 1.0 on open it: the `duckdb` shell on PyPI (duckdb-cli, pinned) is still 1.5, and it
# refuses files in DuckDB 2.0's own format.
STORAGE_VERSION = "v1.0.0"
_SCALARS = {
    pa.string(): "VARCHAR", pa.bool_(): "BOOLEAN", pa.int32(): "INTEGER", pa.int64(): "BIGINT",
    pa.float64(): "DOUBLE", pa.timestamp("us", tz="UTC"): "TIMESTAMP WITH TIME ZONE",
}


def duckdb_type(type_: pa.DataType) -> str:
    """DuckDB spelling of the pyarrow types the trace tables use."""
    if type_ in _SCALARS:
        return _SCALARS[type_]
    if pa.types.is_list(type_):
        return f"{duckdb_type(type_.value_type)}[]"
    if pa.types.is_struct(type_):
        return "STRUCT(" + ", ".join(f"{f.name} {duckdb_type(f.type)}" for f in type_) + ")"
    raise ValueError(f"no DuckDB type for {type_}")


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def view_sql(root: DataRoot, table: str, con: duckdb.DuckDBPyConnection, columns: Sequence[str] | None = None,
             fill_missing: bool = False) -> str:
    """CREATE VIEW statement for one table of the root, with the current schema's column names:
    a column that files of schema version 1 spelled otherwise (V1_COLUMNS) is read under either
    name. fill_missing: columns that no file has yet (files older than the column) are added as
    nulls, so queries can name them. `columns`: the view has only these (a stage's declared reads),
    else all of the table's."""
    fields = [TABLES[table].field(c) for c in columns] if columns is not None else list(TABLES[table])
    if root.local:
        source = _quote(f"{root.table_dir(table)}/*.parquet") if root.keys(table) else None
    else:
        urls = root.files(table)
        source = "[" + ", ".join(_quote(u) for u in urls) + "]" if urls else None
    if source is None:
        cols = ", ".join(f'CAST(NULL AS {duckdb_type(f.type)}) AS "{f.name}"' for f in fields)
        return f'CREATE OR REPLACE VIEW "{table}" AS SELECT {cols} WHERE false'
    # union_by_name: files written under an older schema_version may lack newer columns.
    scan = f"read_parquet({source}, union_by_name = true)"
    present = {row[0] for row in con.execute(f"DESCRIBE SELECT * FROM {scan}").fetchall()}
    exprs = [_column(f, present, V1_COLUMNS.get(table, {}).get(f.name), fill_missing) for f in fields]
    return f'CREATE OR REPLACE VIEW "{table}" AS SELECT {", ".join(e for e in exprs if e)} FROM {scan}'


def _column(f: pa.Field, present: set[str], old: str | None, fill_missing: bool) -> str | None:
    """The view's expression for column f: itself, its schema-version-1 name, both, or null."""
    if f.name in present and old in present:
        return f'COALESCE("{f.name}", "{old}") AS "{f.name}"'
    if f.name in present:
        return f'"{f.name}"'
    if old in present:
        return f'"{old}" AS "{f.name}"'
    return f'CAST(NULL AS {duckdb_type(f.type)}) AS "{f.name}"' if fill_missing else None


def create_views(con: duckdb.DuckDBPyConnection, root: DataRoot, fill_missing: bool = False,
                 columns: Mapping[str, Sequence[str]] | None = None) -> None:
    """fill_missing: add absent columns as nulls (in-memory connections only: a saved database's
    views outlive the files they were built over, and a later file with the column would clash).
    columns: views of these tables with these columns only (a stage's declared reads)."""
    if not root.local:
        con.register_filesystem(root.fs)
    tables = list(columns) if columns is not None else list(TABLES)
    for table in tables:
        con.execute(view_sql(root, table, con, None if columns is None else columns[table], fill_missing))
    log.debug("views over %s: %s", root.url, ", ".join(tables))


def connect(root: DataRoot | str, columns: Mapping[str, Sequence[str]] | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with a view per trace table of the root (with `columns`: only
    those tables and columns, e.g. `StageSpec.read_columns()`)."""
    root = root if isinstance(root, DataRoot) else DataRoot(root)
    con = duckdb.connect()
    create_views(con, root, fill_missing=True, columns=columns)
    return con


def build_database(root: DataRoot | str, path: str | os.PathLike | None = None) -> str:
    """Write a DuckDB database file holding the views (default ROOT/webmend.duckdb); return its path.

    Built under a temporary name and renamed, so a client never opens a half-built file.
    """
    root = root if isinstance(root, DataRoot) else DataRoot(root)
    if path is None:
        if not root.local:
            raise ValueError("give a local path for the database file of a remote data root")
        path = os.path.join(root.path, DB_NAME)
    path = os.path.abspath(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        with duckdb.connect(tmp, config={"storage_compatibility_version": STORAGE_VERSION}) as con:
            create_views(con, root)
        os.replace(tmp, path)
    finally:
        for leftover in (tmp, f"{tmp}.wal"):
            if os.path.exists(leftover):
                os.remove(leftover)
    return path


def run_query(root: DataRoot | str, sql: str) -> tuple[list[str], list[tuple]]:
    """(column names, rows) of one SQL query over the root's views."""
    with connect(root) as con:
        cur = con.execute(sql)
        columns = [d[0] for d in cur.description] if cur.description else []
        return columns, cur.fetchall()


def example_queries() -> dict[str, str]:
    """The documented example queries shipped with the package (docs/queries.md): {name: SQL}."""
    folder = resource_files("webmend.store") / "queries"
    return {p.name[:-4]: p.read_text(encoding="utf-8") for p in sorted(folder.iterdir(), key=lambda p: p.name)
            if p.name.endswith(".sql")}


def format_result(columns: list[str], rows: list[tuple], fmt: str = "table") -> str:
    """Query output as an aligned text table, JSON (a list of objects) or CSV."""
    if fmt == "json":
        return json.dumps([dict(zip(columns, row)) for row in rows], indent=2, default=str)
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)
        return out.getvalue().rstrip("\n")
    if fmt != "table":
        raise ValueError(f"unknown format {fmt!r}: table, json or csv")
    cells = [columns] + [["NULL" if v is None else str(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines + [f"({len(rows)} row{'s' if len(rows) != 1 else ''})"])
