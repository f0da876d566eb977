"""Writing the export's Parquet parts through fsspec: one writer per (route, format), parts of at
most `rows_per_file` rows, each streamed to a staging name and hashed after it is closed.

Nothing here holds more than one row batch of HTML.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.parquet as pq

from webmend.schemas.corpus import FILE_SCHEMAS

BATCH_ROWS = 256  # rows buffered before a row group goes to the file


@dataclass
class WrittenFile:
    path: str  # relative to the export folder
    rows: int
    bytes: int = 0
    sha256: str = ""


@dataclass
class PartWriter:
    """Rows of one format into numbered parts under STAGING/REL/part-NNNNN.parquet."""

    fs: object
    staging: str
    rel: str  # e.g. refined/sharegpt
    fmt: str
    rows_per_file: int
    files: list[WrittenFile] = field(default_factory=list)
    _writer: pq.ParquetWriter | None = None
    _handle: object = None
    _buffer: list[dict] = field(default_factory=list)
    _in_part: int = 0

    def add(self, row: dict) -> None:
        if self._writer is None:
            self._open()
        self._buffer.append(row)
        self._in_part += 1
        if len(self._buffer) >= BATCH_ROWS:
            self._flush()
        if self._in_part >= self.rows_per_file:
            self._close_part()

    def close(self) -> list[WrittenFile]:
        if self._writer is None and not self.files:
            self._open()  # an empty dataset is still a dataset: one part with the schema and no rows
        if self._writer is not None:
            self._close_part()
        for f in self.files:
            f.bytes, f.sha256 = file_digest(self.fs, f"{self.staging}/{f.path}")
        return self.files

    def _open(self) -> None:
        rel = f"{self.rel}/part-{len(self.files):05d}.parquet"
        self.fs.makedirs(f"{self.staging}/{self.rel}", exist_ok=True)
        self._handle = self.fs.open(f"{self.staging}/{rel}", "wb")
        self._writer = pq.ParquetWriter(self._handle, FILE_SCHEMAS[self.fmt], compression="zstd")
        self.files.append(WrittenFile(rel, 0))
        self._in_part = 0

    def _flush(self) -> None:
        if self._buffer:
            self._writer.write_table(pa.Table.from_pylist(self._buffer, schema=FILE_SCHEMAS[self.fmt]))
            self.files[-1].rows += len(self._buffer)
            self._buffer = []

    def _close_part(self) -> None:
        self._flush()
        self._writer.close()
        self._handle.close()
        self._writer = self._handle = None


def file_digest(fs, path: str, chunk: int = 1 << 20) -> tuple[int, str]:
    """(bytes, sha256 hex) of a file, read in chunks."""
    digest, size = hashlib.sha256(), 0
    with fs.open(path, "rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
            size += len(block)
    return size, digest.hexdigest()


@dataclass
class StagedFile(WrittenFile):
    dataset: str | None = None
    route: str | None = None
    format: str | None = None
