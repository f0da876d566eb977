"""Content hashes, one definition: sha256 hex of UTF-8 text or of bytes.

Every row's input_hash and page_hash, cache keys, keyframe file names and run keys are built from this, so the
same content is named the same way in every stage.
"""

from __future__ import annotations

import hashlib


def sha256_hex(content: str | bytes) -> str:
    return hashlib.sha256(content.encode("utf-8") if isinstance(content, str) else content).hexdigest()
