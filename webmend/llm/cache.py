"""A response cache on disk, so a rerun never pays twice for the same call.

The key is a hash of (model, parameters, messages, sample index): a second sample of the same prompt
is a different call, while changing an unrelated setting (timeouts, rate limits) keeps the hits.
One JSON file per key (ROOT/ab/abcdef....json), written under a temporary name and renamed into
place, so a killed run never leaves half an entry and concurrent writers of one key cannot corrupt it.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import uuid
from pathlib import Path

from webmend.schemas.hashing import sha256_hex

log = logging.getLogger(__name__)


def cache_key(model: str, params: dict, messages: list[dict], sample_index: int = 0) -> str:
    blob = json.dumps({"model": model, "params": params, "messages": messages, "sample_index": sample_index},
                      sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return sha256_hex(blob)


class ResponseCache:
    """get(key) -> dict | None, put(key, value). Values are JSON objects."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self.hits = 0
        self.misses = 0
        self._count_lock = threading.Lock()

    def _count(self, hit: bool) -> None:
        with self._count_lock:
            if hit:
                self.hits += 1
            else:
                self.misses += 1

    def _path(self, key: str) -> Path:
        if len(key) < 8 or not all(c in "0123456789abcdef" for c in key):
            raise ValueError(f"bad cache key {key!r}: expected a hex digest")
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        path = self._path(key)
        try:
            value = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            self._count(False)
            return None
        except (OSError, json.JSONDecodeError) as exc:
            # Only reachable through outside tampering (writes are atomic): treat as a miss.
            log.warning("cache entry %s unreadable (%s): ignoring it", path, exc)
            self._count(False)
            return None
        self._count(True)
        return value

    def put(self, key: str, value: dict) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}")
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                json.dump(value, fh, ensure_ascii=False, sort_keys=True)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        finally:
            if tmp.exists():
                tmp.unlink()
