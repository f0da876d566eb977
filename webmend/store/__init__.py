"""Trace-table storage: Parquet files under a data root (local folder or fsspec URL)."""

from webmend.store.root import DEFAULT_ROOT, DataRoot, make_key, to_table

__all__ = ["DEFAULT_ROOT", "DataRoot", "make_key", "to_table"]
