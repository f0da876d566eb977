"""Where everything besides the trace tables lives under a data root, defined once (docs/data-root.md).

Paths are relative to the root; `local_dir` gives one on a local root. Caches of model answers
are all under `cache/<stage>/`; folders a stage writes whole (a generation run, a contract build)
are named by the stage's key under their own folder.
"""

from __future__ import annotations

from pathlib import Path

from webmend.store.root import DataRoot

RESPONSES = "responses"  # generation runs from prompts: responses/GKEY/{responses.jsonl, summary.json}
CONTRACT_BUILDS = "_contracts"  # contract builds: _contracts/KEY/{contracts.jsonl, rejects.jsonl, summary.json}
REPAIR_SCRATCH = "_repair"  # the flow's repair round journals and repaired pages
KEYFRAMES = "keyframes"  # keyframe PNGs named by content (also under a `webmend evaluate --out` folder)
CORPUS = "corpus"  # export versions, when no export folder is given
CACHE = "cache"  # model answers by stage: cache/generate, cache/intake, cache/contracts, cache/repair
CACHE_STAGES = ("generate", "intake", "contracts", "repair")


def cache_path(stage: str) -> str:
    if stage not in CACHE_STAGES:
        raise ValueError(f"no answer cache for stage {stage!r} (caches: {', '.join(CACHE_STAGES)})")
    return f"{CACHE}/{stage}"


def url_under(root: str, relative: str) -> str:
    """A root-relative path joined to the root's URL or folder as given."""
    return f"{str(root).rstrip('/')}/{relative}"


def local_dir(root: DataRoot | str, relative: str) -> Path:
    """The folder at `relative` under a local data root (caches and run folders are read by path)."""
    root = root if isinstance(root, DataRoot) else DataRoot(root)
    if not root.local:
        raise ValueError(f"{relative} needs a local data root (got {root.url})")
    return Path(root.path) / relative
