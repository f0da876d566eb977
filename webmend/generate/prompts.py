"""The generation prompt (htmlcure D.6.1) and the prompt files `webmend generate` reads."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from webmend.schemas.hashing import sha256_hex

# Minimal on purpose: generation is measured under one uniform interface (htmlcure D.6.1).
SYSTEM_PROMPT = (
    "You generate benchmark solutions as a single self-contained HTML document. Return only the final "
    "HTML. Do not include analysis, explanations, markdown fences, or any text before/after the HTML. "
    "Start with <!DOCTYPE html> when applicable and ensure the document is complete and closed."
)

# Appended to the task once, only after a provider safety refusal.
SAFE_DEMO_SUFFIX = (
    "Build a harmless, front-end-only demo. Use fake placeholder data only. Do not process, transmit, "
    "store, or validate real credentials or payment data; if payment fields are requested, implement "
    "UI-only demo formatting/validation with synthetic examples."
)


@dataclass(frozen=True)
class PromptIn:
    id: str
    prompt: str

    @property
    def hash(self) -> str:
        return sha256_hex(self.prompt)


def messages_for(prompt: str, *, safe_demo: bool = False) -> list[dict]:
    user = f"{prompt}\n\n{SAFE_DEMO_SUFFIX}" if safe_demo else prompt
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def load_prompts(path: str | Path) -> list[PromptIn]:
    """Prompts with `id` and `prompt` from JSONL (HTMLBench items work as they are) or Parquet
    (`webmend prompts` output). Ids must be unique and free of '#', which marks sample ids."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such prompts file")
    rows = _parquet_rows(path) if path.suffix.lower() == ".parquet" else _jsonl_rows(path)
    prompts: list[PromptIn] = []
    seen: set[str] = set()
    for where, row in rows:
        item = _prompt_from(where, row)
        if item.id in seen:
            raise ValueError(f"{where}: duplicate prompt id {item.id!r}")
        seen.add(item.id)
        prompts.append(item)
    return prompts


def _prompt_from(where: str, row: object) -> PromptIn:
    if not isinstance(row, dict):
        raise ValueError(f"{where}: a prompt must be a JSON object")
    pid, prompt = row.get("id"), row.get("prompt")
    if pid is None or str(pid).strip() == "":
        raise ValueError(f"{where}: a prompt needs an 'id'")
    if "#" in str(pid):
        raise ValueError(f"{where}: prompt id {pid!r} contains '#', which marks sample ids (P#k)")
    if not isinstance(prompt, str) or not prompt.strip():
        raise ValueError(f"{where}: prompt {pid!r} has no 'prompt' text")
    return PromptIn(str(pid), prompt)


def _jsonl_rows(path: Path):
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield f"{path}:{lineno}", json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: invalid JSON ({exc})") from None


def _parquet_rows(path: Path):
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    missing = {"id", "prompt"} - set(table.column_names)
    if missing:
        raise ValueError(f"{path}: missing column(s) {sorted(missing)}")
    for i, row in enumerate(table.select(["id", "prompt"]).to_pylist()):
        yield f"{path}:row {i}", row
