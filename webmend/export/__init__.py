"""Export of refined SFT corpora (docs/export.md): routes from the trace tables, Parquet parts per
format, a Great Expectations gate, a manifest, versions with lineage. The core is `run.export_corpus`."""
