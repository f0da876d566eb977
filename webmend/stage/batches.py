"""Keyed batches: fixed-size chunks of a stage's inputs in input order, named by their content."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Generic, Sequence, TypeVar

from webmend.store import make_key

T = TypeVar("T")


@dataclass(frozen=True)
class Batch(Generic[T]):
    index: int  # position among all batches of the corpus
    key: str  # the file key its rows are committed under (TABLE/KEY.parquet)
    items: tuple[T, ...]


def chunk_keys(stage: str, input_hashes: Sequence[str], config_hash: str, batch_size: int) -> list[str]:
    """Keys of the consecutive batch_size-item chunks (the last may be shorter): the stage, the
    chunk's input hashes in order and the config hash.

    The same contents in the same order again (say, chunks of identical empty answers) would share
    a key and the second would be skipped as done: repeats get numbered keys instead.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    seen: Counter[str] = Counter()
    keys = []
    for start in range(0, len(input_hashes), batch_size):
        key = make_key(stage, *input_hashes[start:start + batch_size], config_hash)
        seen[key] += 1
        keys.append(key if seen[key] == 1 else make_key(key, "repeat", seen[key] - 1))
    return keys


def cut(stage: str, items: Sequence[T], input_hashes: Sequence[str], config_hash: str,
        batch_size: int) -> list[Batch[T]]:
    if len(items) != len(input_hashes):
        raise ValueError(f"{len(items)} items but {len(input_hashes)} input hashes")
    keys = chunk_keys(stage, input_hashes, config_hash, batch_size)
    return [Batch(n, key, tuple(items[n * batch_size:(n + 1) * batch_size])) for n, key in enumerate(keys)]
