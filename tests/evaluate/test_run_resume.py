"""Resume bookkeeping of results.jsonl, without a browser."""

from __future__ import annotations

import json

from webmend.evaluate.run import completed_records


def _line(i: int, config_hash: str = "h1") -> bytes:
    return (json.dumps({"index": i, "config_hash": config_hash}) + "\n").encode()


def test_counts_complete_records_and_cuts_a_torn_tail(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_bytes(_line(0) + _line(1) + _line(2)[:9])
    assert completed_records(path, "h1") == 2
    assert path.read_bytes() == _line(0) + _line(1)


def test_stops_at_records_written_under_another_config(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_bytes(_line(0) + _line(1, "other") + _line(2))
    assert completed_records(path, "h1") == 1
    assert path.read_bytes() == _line(0)


def test_a_clean_file_is_left_untouched_and_a_missing_one_is_empty(tmp_path):
    path = tmp_path / "results.jsonl"
    assert completed_records(path, "h1") == 0
    path.write_bytes(_line(0) + _line(1))
    before = path.stat().st_mtime_ns
    assert completed_records(path, "h1") == 2
    assert path.stat().st_mtime_ns == before


def test_a_large_file_is_read_line_by_line(tmp_path):
    path = tmp_path / "results.jsonl"
    with open(path, "wb") as fh:
        for i in range(20000):
            fh.write(_line(i))
        fh.write(b'{"index": 20000, "conf')
    assert completed_records(path, "h1") == 20000
    assert path.read_bytes().endswith(_line(19999))
