"""Export of refined SFT corpora: Parquet, manifests, validation gate (issue 14). Not built yet."""
