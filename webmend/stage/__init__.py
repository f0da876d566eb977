"""The stage protocol for batch work, shared by every stage that runs over a corpus.

A stage cuts its inputs into keyed batches (`batches.cut`: the stage name, the items' content
hashes in order and the config hash name each batch, so a rerun cuts the same keys), runs each
batch somewhere (`run.run_stage` with a `submit` callable: a local process pool, Dask, or a Prefect
task runner), and commits each batch's rows as it completes, the marker last: a batch whose marker
exists is done and a rerun skips it. Failures of the machine are resubmitted, failures of the data
are not; the report counts what happened. `executors` is the one place that maps `submit` onto a
local process pool or a Dask cluster. Pure library: no Prefect import.
"""
