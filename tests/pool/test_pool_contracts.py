"""A corpus planned with task contracts: each page's job carries its task's contract, and a
contract is part of what names a batch (adding or changing one makes the batch new, not done)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from webmend.config import EvalConfig
from webmend.contracts.command import items_with_contracts
from webmend.pool.batches import load_plan

CONTRACT = Path(__file__).resolve().parents[2] / "data" / "contracts" / "todo_list" / "contract.json"


def plan(tmp_path, contracts):
    pages = tmp_path / "pages"
    pages.mkdir(exist_ok=True)
    (pages / "todo_list.html").write_text("<!DOCTYPE html><html><body><ul></ul></body></html>")
    (pages / "other.html").write_text("<!DOCTYPE html><html><body>other</body></html>")
    attach = (lambda items: items_with_contracts(items, contracts)) if contracts else None
    return load_plan(str(tmp_path / "root"), [str(pages)], [], None, EvalConfig(), 1, attach=attach)


def test_jobs_carry_their_contract_and_it_names_their_batch(tmp_path):
    bare, with_contract = plan(tmp_path, None), plan(tmp_path, [str(CONTRACT)])
    jobs = {j.raw.id: j for b in with_contract.batches for j in b.items}
    assert jobs["todo_list"].item["contract"]["task"]["id"] == "todo_list" and jobs["other"].item is None
    keys = lambda p: {b.items[0].raw.id: b.key for b in p.batches}  # noqa: E731
    assert keys(bare)["other"] == keys(with_contract)["other"]
    assert keys(bare)["todo_list"] != keys(with_contract)["todo_list"]
    changed = copy.deepcopy(json.loads(CONTRACT.read_text()))
    changed["transitions"][0]["intent"] = "add the task 'Buy bread'"
    (tmp_path / "changed.json").write_text(json.dumps(changed))
    assert keys(plan(tmp_path, [str(tmp_path / "changed.json")]))["todo_list"] != keys(with_contract)["todo_list"]
    assert jobs["todo_list"].input_hash == next(j for b in bare.batches for j in b.items if j.raw.id == "todo_list").input_hash
