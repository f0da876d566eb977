"""A data root of Parquet trace tables on any fsspec filesystem (a local folder by default).

Layout: ROOT/TABLE/KEY.parquet, one file per (table, key). Keys come from the writer's inputs
(stage, content hashes, config hash) so a rerun finds its own files: it skips them, or replaces them
when asked, and never duplicates rows. See docs/data-root.md.

Why a file is never seen half-written:
- local disk: the file is written under a hidden temporary name and renamed into place (atomic);
- object stores: the data object is put first, then an empty marker ROOT/TABLE/_COMMITTED/KEY;
  readers only trust files that have a marker.
Two writers on one root: locally a lock file per (table, key) serialises writers of the same key and
the second one skips (write-once by key); on object stores both puts are whole objects, last wins.
"""

from __future__ import annotations

import fcntl
import logging
import os
import re
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Literal

import fsspec
import pyarrow as pa
import pyarrow.parquet as pq
from fsspec.implementations.local import LocalFileSystem

from webmend.schemas.hashing import sha256_hex
from webmend.schemas.tables import ALLOWED_VALUES, SCHEMA_VERSION, TABLES, V1_COLUMNS

log = logging.getLogger(__name__)

DEFAULT_ROOT = "runs/data"
COMMITTED = "_COMMITTED"
_KEY_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def make_key(*parts: object) -> str:
    """Deterministic file key from e.g. (stage, input hashes..., config hash): 32 hex chars."""
    if not parts:
        raise ValueError("make_key needs at least one part")
    return sha256_hex("\x1f".join(str(p) for p in parts))[:32]


class DataRoot:
    """Parquet trace tables under one folder or fsspec URL (e.g. s3://bucket/prefix)."""

    def __init__(self, url_or_path: str | os.PathLike = DEFAULT_ROOT, *, storage_options: dict | None = None):
        self.url = str(url_or_path)
        self.fs, path = fsspec.core.url_to_fs(self.url, **(storage_options or {}))
        self.local = isinstance(self.fs, LocalFileSystem)
        self.path = str(Path(path).resolve()) if self.local else path.rstrip("/")

    def __repr__(self) -> str:
        return f"DataRoot({self.url!r})"

    # --- names -------------------------------------------------------------------------------
    def table_dir(self, table: str) -> str:
        _check_table(table)
        return f"{self.path}/{table}"

    def file_path(self, table: str, key: str) -> str:
        """Path of TABLE/KEY.parquet on this root's filesystem (no protocol prefix)."""
        _check_key(key)
        return f"{self.table_dir(table)}/{key}.parquet"

    def file_url(self, table: str, key: str) -> str:
        """The same file as a URL any fsspec client (or DuckDB with the filesystem registered) opens."""
        path = self.file_path(table, key)
        return path if self.local else self.fs.unstrip_protocol(path)

    def _marker(self, table: str, key: str) -> str:
        return f"{self.table_dir(table)}/{COMMITTED}/{key}"

    # --- reading -----------------------------------------------------------------------------
    def exists(self, table: str, key: str) -> bool:
        """True once TABLE/KEY is committed (complete and visible to readers)."""
        if self.local:
            return os.path.isfile(self.file_path(table, key))
        return self.fs.exists(self._marker(table, key)) and self.fs.exists(self.file_path(table, key))

    def keys(self, table: str) -> list[str]:
        """Committed keys of a table, sorted."""
        if self.local:
            folder = self.table_dir(table)
            names = os.listdir(folder) if os.path.isdir(folder) else []
            return sorted(n[: -len(".parquet")] for n in names if n.endswith(".parquet") and not n.startswith("."))
        marker_dir = f"{self.table_dir(table)}/{COMMITTED}"
        if not self.fs.exists(marker_dir):
            return []
        markers = {p.rsplit("/", 1)[-1] for p in self.fs.ls(marker_dir, detail=False, refresh=True)}
        data = {p.rsplit("/", 1)[-1] for p in self.fs.ls(self.table_dir(table), detail=False, refresh=True)}
        return sorted(k for k in markers if f"{k}.parquet" in data)

    def files(self, table: str) -> list[str]:
        """URLs of the committed files of a table, sorted by key."""
        return [self.file_url(table, k) for k in self.keys(table)]

    def read(self, table: str, *, columns: list[str] | None = None) -> pa.Table:
        """All committed rows of a table (files in key order), cast to the current schema."""
        return self.read_keys(table, self.keys(table), columns=columns)

    def read_keys(self, table: str, keys: Iterable[str], *, columns: list[str] | None = None) -> pa.Table:
        """The committed rows of the files TABLE/KEY for these keys, in that order (keys not
        committed are skipped), cast to the current schema; `columns`: only these."""
        schema = TABLES[_check_table(table)]
        parts = [self._read_file(table, k, schema) for k in keys if self.exists(table, k)]
        out = pa.concat_tables(parts) if parts else schema.empty_table()
        return out.select(columns) if columns else out

    def _read_file(self, table: str, key: str, schema: pa.Schema) -> pa.Table:
        got = pq.read_table(self.file_path(table, key), filesystem=self.fs)
        # Files from an older schema_version may spell a column otherwise (V1_COLUMNS) or lack a
        # newer (nullable) one: read the old name, else fill with nulls.
        old = V1_COLUMNS.get(table, {})
        cols = []
        for f in schema:
            name = f.name if f.name in got.column_names else old.get(f.name)
            cols.append(got.column(name).cast(f.type) if name in got.column_names else pa.nulls(len(got), f.type))
        return pa.Table.from_arrays(cols, schema=schema)

    # --- writing -----------------------------------------------------------------------------
    def write(self, table: str, rows: Iterable[dict] | pa.Table, *, key: str,
              mode: Literal["skip", "replace"] = "skip") -> str:
        """Write TABLE/KEY.parquet atomically and return its URL.

        mode="skip" (default) leaves an already committed file untouched (a rerun does no work);
        mode="replace" overwrites it. Rows are validated against TABLES[table] first.
        """
        if mode not in ("skip", "replace"):
            raise ValueError(f"mode must be 'skip' or 'replace', not {mode!r}")
        data = to_table(table, rows)
        _check_key(key)
        if self.local:
            self._write_local(table, key, data, mode)
        else:
            self._write_object(table, key, data, mode)
        return self.file_url(table, key)

    def _write_local(self, table: str, key: str, data: pa.Table, mode: str) -> None:
        final = self.file_path(table, key)
        os.makedirs(os.path.dirname(final), exist_ok=True)
        with self._lock(table, key):
            if mode == "skip" and os.path.isfile(final):
                log.debug("skip %s/%s: already written", table, key)
                return
            _remove_stale_tmp(os.path.dirname(final), key)
            tmp = f"{os.path.dirname(final)}/.{key}.parquet.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}"
            try:
                pq.write_table(data, tmp)
                with open(tmp, "rb") as fh:  # data on disk before the name points at it
                    os.fsync(fh.fileno())
                os.replace(tmp, final)
            finally:
                if os.path.exists(tmp):
                    os.remove(tmp)

    @contextmanager
    def _lock(self, table: str, key: str):
        lock_dir = f"{self.path}/_locks/{table}"
        os.makedirs(lock_dir, exist_ok=True)
        # Lock files stay: deleting one while another process waits on it would break the exclusion.
        with open(f"{lock_dir}/{key}.lock", "a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def _write_object(self, table: str, key: str, data: pa.Table, mode: str) -> None:
        if mode == "skip" and self.exists(table, key):
            log.debug("skip %s/%s: already committed", table, key)
            return
        marker = self._marker(table, key)
        if mode == "replace" and self.fs.exists(marker):
            self.fs.rm(marker)  # readers must not trust the file while it is being replaced
        with self.fs.open(self.file_path(table, key), "wb") as fh:
            pq.write_table(data, fh)
        self.fs.pipe(marker, b"")
        self.fs.invalidate_cache()


def to_table(table: str, rows: Iterable[dict] | pa.Table) -> pa.Table:
    """Rows (dicts or a pyarrow Table) as a table of exactly TABLES[table]; raises ValueError if invalid.

    schema_version is filled in when absent; missing nullable columns become nulls; unknown
    columns, nulls in required columns and values outside a closed list are errors.
    """
    schema = TABLES[_check_table(table)]
    if isinstance(rows, pa.Table):
        data = _from_arrow(table, rows, schema)
    else:
        data = _from_dicts(table, list(rows), schema)
    _check_required(table, data, schema)
    _check_allowed(table, data)
    return data


def _from_dicts(table: str, rows: list[dict], schema: pa.Schema) -> pa.Table:
    names = set(schema.names)
    for i, row in enumerate(rows):
        extra = set(row) - names
        if extra:
            raise ValueError(f"{table} row {i}: unknown columns {sorted(extra)}")
    rows = [{"schema_version": SCHEMA_VERSION, **row} for row in rows]
    try:
        return pa.Table.from_pylist(rows, schema=schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError) as exc:
        raise ValueError(f"{table}: rows do not match the schema: {exc}") from exc


def _from_arrow(table: str, data: pa.Table, schema: pa.Schema) -> pa.Table:
    extra = set(data.column_names) - set(schema.names)
    if extra:
        raise ValueError(f"{table}: unknown columns {sorted(extra)}")
    cols = []
    for f in schema:
        if f.name in data.column_names:
            try:
                cols.append(data.column(f.name).cast(f.type))
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
                raise ValueError(f"{table}.{f.name}: cannot be {f.type}: {exc}") from exc
        elif f.name == "schema_version":
            cols.append(pa.array([SCHEMA_VERSION] * len(data), pa.string()))
        else:
            cols.append(pa.nulls(len(data), f.type))
    return pa.Table.from_arrays(cols, schema=schema)


def _check_required(table: str, data: pa.Table, schema: pa.Schema) -> None:
    for f in schema:
        if not f.nullable and data.column(f.name).null_count:
            raise ValueError(f"{table}.{f.name}: required, but {data.column(f.name).null_count} row(s) are null")


def _check_allowed(table: str, data: pa.Table) -> None:
    for (t, col), allowed in ALLOWED_VALUES.items():
        if t != table:
            continue
        bad = set(data.column(col).drop_null().to_pylist()) - set(allowed)
        if bad:
            raise ValueError(f"{table}.{col}: {sorted(bad)} not in {list(allowed)}")


def _check_table(table: str) -> str:
    if table not in TABLES:
        raise ValueError(f"unknown table {table!r}; tables: {sorted(TABLES)}")
    return table


def _check_key(key: str) -> None:
    if not isinstance(key, str) or not _KEY_RE.match(key):
        raise ValueError(f"bad key {key!r}: 1-128 of [A-Za-z0-9._-], not starting with '.', '_' or '-'")


def _remove_stale_tmp(folder: str, key: str) -> None:
    """Leftovers of a writer killed mid-write (we hold the key's lock, so none is still writing)."""
    prefix = f".{key}.parquet.tmp-"
    for name in os.listdir(folder):
        if name.startswith(prefix):
            os.remove(os.path.join(folder, name))
