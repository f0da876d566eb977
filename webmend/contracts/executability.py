"""The executability filter (docs/icg-format.md, "Executability"): a contract is kept only when
enough independent reference implementations of its task reach T >= a threshold.

A contract is written against the task, not one page; a contract whose steps only one page can
follow, or whose checks read one page's internals, fails the other implementations. Structural
problems (validate.py) drop a contract before any page runs.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, Field

from webmend.browser.worker import BrowserWorker
from webmend.config import EvalConfig
from webmend.evaluate.contract_run import execute_contract
from webmend.contracts.validate import validate_contract
from webmend.schemas.contract import Contract

log = logging.getLogger(__name__)

# out_of_time: not a verdict on the contract: too few references reached T because some ran out of
# the page's wall-clock budget (a busy machine), and those could have made up the number.
DROP_REASONS = ("invalid", "too_few_references", "too_few_executable", "out_of_time")


class FilterConfig(BaseModel):
    min_references: int = Field(default=3, ge=1, description="reference pages that must reach min_transition_validity")
    min_transition_validity: float = Field(default=0.6, ge=0, le=1, description="T a reference must reach")


@dataclass(frozen=True)
class Reference:
    name: str  # where the page came from (a path, or a record id)
    html: str


@dataclass
class FilterVerdict:
    task_id: str
    kept: bool
    reason: str | None = None  # DROP_REASONS, None when kept
    detail: str = ""
    references: dict[str, dict] = field(default_factory=dict)  # name -> {T, reward, failed: [transition: reason]}

    def to_dict(self) -> dict:
        return {"task_id": self.task_id, "kept": self.kept, "reason": self.reason, "detail": self.detail,
                "references": self.references}


def filter_contract(contract: dict | Contract, references: list[Reference], cfg: EvalConfig,
                    rules: FilterConfig = FilterConfig(), worker: BrowserWorker | None = None) -> FilterVerdict:
    data = contract.model_dump(by_alias=True) if isinstance(contract, Contract) else contract
    task_id = str((data.get("task") or {}).get("id", ""))
    problems = validate_contract(data)
    if problems:
        return FilterVerdict(task_id, False, "invalid", "; ".join(str(p) for p in problems[:10]))
    if len(references) < rules.min_references:
        return FilterVerdict(task_id, False, "too_few_references",
                             f"{len(references)} reference page(s), {rules.min_references} needed")
    runs = {}
    for ref in sorted(references, key=lambda r: r.name):
        run = execute_contract(ref.html, data, cfg, worker=worker)
        runs[ref.name] = {"T": run.score.transition_validity, "reward": run.score.reward,
                          "failed": {tid: o.reason for tid, o in run.transitions.items() if o.status != "passed"}}
        if run.out_of_time:  # its T would be the machine's: neither for nor against the contract
            runs[ref.name].update(T=None, reward=None, out_of_time=run.out_of_time)
    good = [n for n, r in runs.items() if r["T"] is not None and r["T"] >= rules.min_transition_validity]
    undecided = [n for n, r in runs.items() if r["T"] is None]
    if len(good) < rules.min_references <= len(good) + len(undecided):
        return FilterVerdict(task_id, False, "out_of_time",
                             f"{len(good)} of {len(runs)} references reach T >= {rules.min_transition_validity}; "
                             f"{', '.join(undecided)} ran out of the page's wall-clock budget: run it again", runs)
    if len(good) < rules.min_references:
        below = ", ".join(f"{n} T={r['T']}" for n, r in runs.items() if n not in good and n not in undecided)
        return FilterVerdict(task_id, False, "too_few_executable",
                             f"{len(good)} of {len(runs)} references reach T >= {rules.min_transition_validity} "
                             f"({rules.min_references} needed); below: {below}", runs)
    return FilterVerdict(task_id, True, None, f"{len(good)} of {len(runs)} references reach T >= "
                         f"{rules.min_transition_validity}", runs)


def references_by_task(paths: list[str], task_ids: set[str]) -> tuple[dict[str, list[Reference]], list[str]]:
    """Reference pages from HTML files or folders, and the pages no task claimed. A page belongs to
    the task whose id names the nearest folder on its path (data/contracts/TASK/refs/x.html)."""
    found: dict[str, list[Reference]] = {t: [] for t in task_ids}
    unclaimed = []
    for page in map(Path, page_paths(paths)):
        owners = [part for part in page.resolve().parts[:-1] if part in task_ids]
        if not owners:
            log.warning("%s: no contract's task id names a folder on its path", page)
            unclaimed.append(str(page))
            continue
        found[owners[-1]].append(Reference(str(page), page.read_text(encoding="utf-8", errors="replace")))
    return found, unclaimed


def page_paths(paths: list[str]) -> list[str]:
    """HTML files, and every .html below a folder (sorted), as `webmend evaluate` takes them."""
    out = []
    for path in paths:
        p = Path(path)
        if p.is_dir():
            out += [str(f) for f in sorted(p.rglob("*.html"))]
        elif p.is_file():
            out.append(str(p))
        else:
            raise FileNotFoundError(f"{path}: no such file or folder")
    return out


def load_contracts(paths: list[str]) -> list[dict]:
    """Contracts from .json files (one each), .jsonl files (one per line, as `contract build`
    writes them) or folders (every contract.json below)."""
    out = []
    for path in paths:
        p = Path(path)
        if p.is_dir():
            out += [json.loads(f.read_text(encoding="utf-8")) for f in sorted(p.rglob("contract.json"))]
        elif p.suffix == ".jsonl":
            out += [json.loads(line) for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]
        elif p.is_file():
            out.append(json.loads(p.read_text(encoding="utf-8")))
        else:
            raise FileNotFoundError(f"{path}: no such file or folder")
    return out
