"""`webmend contract build PROMPTS --model M --out DIR` (docs/icg-format.md "Building")."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def add_contract_arguments(p) -> None:
    sub = p.add_subparsers(dest="contract_command", required=True)
    b = sub.add_parser("build", help="write a contract per prompt with a model, validated before it is kept")
    b.add_argument("prompts", nargs="+", help="prompt files: HTMLBench items or prompt lists (as `webmend generate`)")
    b.add_argument("--model", required=True, help="PROVIDER/MODEL as litellm names it")
    b.add_argument("--out", default="out/contracts", help="output folder: contracts.jsonl, rejects.jsonl, summary.json")


def tasks_from(paths: list[str]) -> list[dict]:
    """{id, prompt, family} per prompt; the family from an HTMLBench item's category when it has one."""
    from webmend.generate.prompts import load_prompts

    tasks = []
    for path in paths:
        families = {}
        if str(path).endswith(".jsonl"):
            for line in Path(path).read_text(encoding="utf-8").splitlines():
                row = json.loads(line) if line.strip() else {}
                if isinstance(row, dict) and row.get("id") is not None:
                    families[str(row["id"])] = row.get("category")
        tasks += [{"id": p.id, "prompt": p.prompt, "family": families.get(p.id)} for p in load_prompts(path)]
    return tasks


def run_contract(args) -> int:
    from webmend.contracts.build import ContractModel, build_contract
    from webmend.llm.cache import ResponseCache
    from webmend.llm.settings import GenerationSettings

    for path in args.prompts:
        if not Path(path).is_file():
            print(f"webmend contract build: {path}: no such file", file=sys.stderr)
            return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    model = ContractModel(GenerationSettings().client(args.model), ResponseCache(out / "cache"))
    kept, rejected = [], []
    for task in tasks_from(args.prompts):
        result = build_contract(task, model)
        (kept if result.kept else rejected).append(result)
        print(f"{task['id']}: {'kept' if result.kept else 'rejected'}"
              + (" (sent back once)" if result.sent_back else ""), file=sys.stderr)
    _write_lines(out / "contracts.jsonl", [r.contract for r in kept])
    _write_lines(out / "rejects.jsonl", [{"task_id": r.task_id, "problems": r.problems, "sent_back": r.sent_back}
                                         for r in rejected])
    summary = {"tasks": len(kept) + len(rejected), "kept": len(kept), "rejected": len(rejected),
               "sent_back": sum(r.sent_back for r in kept + rejected), "llm_calls": model.calls}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    return 0


def _write_lines(path: Path, rows: list[dict]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), encoding="utf-8")
    tmp.replace(path)
