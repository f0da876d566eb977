"""Keyed batches: fixed chunks in input order, keys from content and config, repeats numbered."""

from __future__ import annotations

import pytest

from webmend.stage.batches import chunk_keys, cut
from webmend.store import make_key


def test_chunks_keep_input_order_and_the_last_may_be_shorter():
    batches = cut("s", list("abcde"), ["ha", "hb", "hc", "hd", "he"], "cfg", 2)
    assert [b.items for b in batches] == [("a", "b"), ("c", "d"), ("e",)]
    assert [b.index for b in batches] == [0, 1, 2]
    assert batches[0].key == make_key("s", "ha", "hb", "cfg")


def test_keys_change_with_the_stage_the_content_and_the_config():
    base = chunk_keys("s", ["a", "b"], "cfg", 2)
    assert base == chunk_keys("s", ["a", "b"], "cfg", 2)
    variants = [chunk_keys("t", ["a", "b"], "cfg", 2), chunk_keys("s", ["a", "c"], "cfg", 2),
                chunk_keys("s", ["a", "b"], "cfg2", 2)]
    assert len({base[0], *(v[0] for v in variants)}) == 4


def test_repeated_chunks_get_numbered_keys():
    keys = chunk_keys("s", ["a", "a", "a"], "cfg", 1)
    assert len(set(keys)) == 3 and keys[0] == make_key("s", "a", "cfg")


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="at least 1"):
        chunk_keys("s", ["a"], "cfg", 0)
    with pytest.raises(ValueError, match="input hashes"):
        cut("s", ["a", "b"], ["h"], "cfg", 1)
