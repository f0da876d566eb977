"""`webmend contract build | execute | validate` (docs/icg-format.md, docs/cli.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from webmend.contracts.executability import FilterConfig
from webmend.contracts.building import write_lines
from webmend.llm.settings import add_settings_arguments, settings_from_args
from webmend.schemas.vocab import FAMILIES
from webmend.stage.progress import Meter, terminal_report


def add_contract_arguments(p) -> None:
    sub = p.add_subparsers(dest="contract_command", required=True)
    b = sub.add_parser("build", help="write a contract per prompt with a model, validated before it is kept")
    b.add_argument("prompts", nargs="+", help="prompt files: HTMLBench items or prompt lists (as `webmend generate`)")
    b.add_argument("--model", required=True, help="PROVIDER/MODEL as litellm names it")
    b.add_argument("--out", default="out/contracts", help="output folder: contracts.jsonl, rejects.jsonl, summary.json")
    b.add_argument("--family", choices=FAMILIES, help="the task family of prompts whose file gives none (an item's category wins)")
    add_settings_arguments(b)  # --workers (tasks at once), --timeout, --max-retries, --rpm, --tpm, spend caps, --max-tokens
    x = sub.add_parser("execute", help="run one contract on pages in the sandbox and score it")
    x.add_argument("contract", help="a contract (.json)")
    x.add_argument("pages", nargs="+", help="HTML files or folders of them (as `webmend evaluate` takes)")
    x.add_argument("--out", help="write one result per page here (.jsonl); else to stdout")
    x.add_argument("--no-share", action="store_true", help="replay every transition's chain from a fresh load")
    a = sub.add_parser("audit", help="write a contract's human audit sheet (HTML) from `execute` results")
    a.add_argument("contract", help="a contract (.json)")
    a.add_argument("results", nargs="?", help="`contract execute --out` lines for this contract (.jsonl)")
    a.add_argument("--out", required=True, help="the sheet (.html)")
    v = sub.add_parser("validate", help="keep contracts that enough reference pages can execute")
    v.add_argument("contracts", nargs="+", help=".json, .jsonl (as `contract build` writes) or folders of contract.json")
    v.add_argument("--refs", nargs="+", required=True,
                   help="reference HTML files or folders; a page belongs to the task its nearest folder names")
    v.add_argument("--min-refs", type=int, default=FilterConfig().min_references, help="references that must pass")
    v.add_argument("--min-t", type=float, default=FilterConfig().min_transition_validity, help="T a reference must reach")
    v.add_argument("--out", default="out/contracts-validated", help="output folder: contracts.jsonl (kept), verdicts.jsonl, summary.json")


def items_with_contracts(items: dict[str, dict], paths: list[str] | None) -> dict[str, dict]:
    """Attach each contract to the item of its task (one is made from the task when the items have
    none), so a page gets its task's contract as it gets its test cases. An invalid contract is an
    error naming its problems: a contract that cannot be executed must not score pages."""
    from webmend.contracts.executability import load_contracts
    from webmend.contracts.validate import validate_contract

    out = dict(items)
    for contract in load_contracts(paths or []):
        task = contract.get("task") or {}
        problems = validate_contract(contract)
        if problems:
            raise ValueError(f"contract {task.get('id')!r} is not valid: " + "; ".join(str(p) for p in problems[:5]))
        tid = str(task["id"])
        item = dict(out.get(tid) or {"id": tid, "prompt": task.get("prompt"), "category": task.get("family")})
        out[tid] = {**item, "contract": contract}
    return out


def tasks_from(paths: list[str], family: str | None = None) -> list[dict]:
    """{id, prompt, family} per prompt; the family from an HTMLBench item's category when it has
    one, else `family`."""
    from webmend.generate.prompts import load_prompts

    tasks = []
    for path in paths:
        families = {}
        if str(path).endswith(".jsonl"):
            for line in Path(path).read_text(encoding="utf-8").splitlines():
                row = json.loads(line) if line.strip() else {}
                if isinstance(row, dict) and row.get("id") is not None:
                    families[str(row["id"])] = row.get("category")
        tasks += [{"id": p.id, "prompt": p.prompt, "family": families.get(p.id) or family} for p in load_prompts(path)]
    return tasks


def run_contract(args) -> int:
    return {"build": _build, "execute": _execute, "validate": _validate, "audit": _audit}[args.contract_command](args)


def _audit(args) -> int:
    from webmend.contracts.audit import audit_sheet
    from webmend.contracts.executability import load_contracts

    contract = load_contracts([args.contract])[0]
    lines = Path(args.results).read_text(encoding="utf-8").splitlines() if args.results else []
    results = [r for r in map(json.loads, filter(str.strip, lines)) if r.get("task_id") == contract["task"]["id"]]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(audit_sheet(contract, results), encoding="utf-8")
    tmp.replace(out)
    print(f"{out}: {len(results)} page(s)", file=sys.stderr)
    return 0


def _execute(args) -> int:
    from webmend.config import EvalConfig
    from webmend.evaluate.contract_run import execute_contract
    from webmend.contracts.executability import load_contracts, page_paths

    contract = load_contracts([args.contract])[0]
    lines = []
    pages = page_paths(args.pages)
    meter = Meter("contract execute", total=len(pages), report=terminal_report())
    for page in pages:
        run = execute_contract(Path(page).read_text(encoding="utf-8", errors="replace"), contract, EvalConfig(),
                               share_prefixes=not args.no_share)
        lines.append({"task_id": contract["task"]["id"], "page": page, **run.to_dict()})
        s = run.score
        meter.advance(1, f"{page}: T={s.transition_validity} Re={s.req_explicit} Ri={s.req_implicit} r_web={s.reward}")
    if args.out:
        write_lines(Path(args.out), lines)
    else:
        print("".join(json.dumps(r, sort_keys=True) + "\n" for r in lines), end="")
    return 0


def _validate(args) -> int:
    from webmend.config import EvalConfig
    from webmend.contracts.executability import filter_contract, load_contracts, references_by_task

    contracts = load_contracts(args.contracts)
    ids = {str((c.get("task") or {}).get("id", "")) for c in contracts}
    refs, unclaimed = references_by_task(args.refs, ids)
    rules = FilterConfig(min_references=args.min_refs, min_transition_validity=args.min_t)
    kept, dropped = [], []
    meter = Meter("contract validate", total=len(contracts), unit="contracts", report=terminal_report())
    for contract in contracts:
        tid = str((contract.get("task") or {}).get("id", ""))
        verdict = filter_contract(contract, refs.get(tid, []), EvalConfig(), rules)
        (kept if verdict.kept else dropped).append((contract, verdict))
        meter.advance(1, f"{tid}: {'kept' if verdict.kept else 'dropped (' + verdict.reason + ')'}: {verdict.detail}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_lines(out / "contracts.jsonl", [c for c, _ in kept])
    write_lines(out / "verdicts.jsonl", [v.to_dict() for _, v in kept + dropped])
    summary = {"contracts": len(contracts), "kept": len(kept), "dropped": len(dropped),
               "by_reason": {r: sum(v.reason == r for _, v in dropped) for r in sorted({v.reason for _, v in dropped})},
               "rules": rules.model_dump(), "unclaimed_pages": unclaimed}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    return 0


def _build(args) -> int:
    from webmend.contracts.build import BUILD_PARAMS, ContractModel
    from webmend.contracts.building import build_contracts
    from webmend.llm.cache import ResponseCache

    for path in args.prompts:
        if not Path(path).is_file():
            print(f"webmend contract build: {path}: no such file", file=sys.stderr)
            return 2
    out = Path(args.out)
    settings = settings_from_args(args)
    params = {**BUILD_PARAMS, **({"max_tokens": settings.max_tokens} if settings.max_tokens else {})}
    model = ContractModel(settings.client(args.model), ResponseCache(out / "cache"), params)
    summary = build_contracts(tasks_from(args.prompts, args.family), model, out, workers=settings.workers,
                              report=terminal_report())
    print(json.dumps(summary, indent=2))
    return 0
