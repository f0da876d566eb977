"""The human audit sheet of one task's contract (docs/icg-format.md, "Audit sheet").

One self-contained HTML file: the task, the requirements, the state graph (inline SVG), each
transition with its steps and assertions, and a verdict matrix of the pages the contract ran on,
with each failing transition's step and reason. Inline CSS, no JavaScript, no external resources;
every string from a contract or a result is escaped (contracts come from models, reasons quote
pages). Deterministic: the same contract and results give the same bytes.
"""

from __future__ import annotations

import json
from collections import deque
from html import escape

from webmend.schemas.contract import INITIAL_STATE, Contract

_CSS = """body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#222;max-width:75rem}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}td,th{border:1px solid #ccc;padding:.25rem .5rem;
vertical-align:top;text-align:left}th{background:#f3f3f3}.passed{background:#e3f5e1}.failed{background:#fbe2e0}
.blocked{background:#eee;color:#666}code{font-size:12px;white-space:pre-wrap}.small{color:#666;font-size:12px}"""
_BOX_W, _BOX_H, _COL, _ROW = 120, 36, 190, 60


def audit_sheet(contract: Contract | dict, results: list[dict]) -> str:
    """results: `webmend contract execute` lines ({page, transition_validity, ..., transitions})."""
    c = contract if isinstance(contract, Contract) else Contract.model_validate(contract)
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Contract audit: "
             f"{escape(c.task.id)}</title><style>{_CSS}</style></head><body>",
             f"<h1>Contract audit: {escape(c.task.id)}</h1>",
             f"<p><b>Family:</b> {escape(c.task.family or 'unknown')}</p><p><b>Prompt:</b> {escape(c.task.prompt)}</p>",
             _requirements(c), "<h2>States and transitions</h2>", _graph(c), _transitions(c),
             "<h2>Verdicts</h2>", _verdicts(c, results), "</body></html>\n"]
    return "\n".join(parts)


def _requirements(c: Contract) -> str:
    rows = "".join(f"<tr><td>{escape(r.id)}</td><td>{escape(r.kind)}</td><td>{escape(r.text)}</td></tr>"
                   for r in c.requirements)
    initial = "".join(f"<li>{escape(a.id)}: <code>{escape(_check(a))}</code></li>" for a in c.initial_contract.checks)
    return (f"<h2>Requirements</h2><table><tr><th>id</th><th>kind</th><th>text</th></tr>{rows}</table>"
            f"<p><b>Initial contract:</b> {escape(c.initial_contract.text)}</p><ul>{initial}</ul>")


def _depths(c: Contract) -> dict[str, int]:
    depth, queue = {INITIAL_STATE: 0}, deque([INITIAL_STATE])
    while queue:
        s = queue.popleft()
        for t in c.transitions:
            if t.from_ == s and t.to not in depth:
                depth[t.to] = depth[s] + 1
                queue.append(t.to)
    last = max(depth.values(), default=0) + 1
    return {st.id: depth.get(st.id, last) for st in c.states}  # unreachable ones in a last column


def _graph(c: Contract) -> str:
    """States in columns by their distance from S0; one arrow per transition, labelled with its id."""
    depth = _depths(c)
    rows: dict[int, int] = {}
    pos = {}
    for st in c.states:
        col = depth[st.id]
        pos[st.id] = (20 + col * _COL, 40 + rows.get(col, 0) * _ROW)  # room above for loops
        rows[col] = rows.get(col, 0) + 1
    width = 40 + (max(depth.values(), default=0) + 1) * _COL
    height = 60 + max(rows.values(), default=1) * _ROW
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-size="12">',
           '<defs><marker id="a" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" '
           'orient="auto"><path d="M0 0L10 5L0 10z"/></marker></defs>']
    for i, t in enumerate(c.transitions):
        if t.from_ not in pos or t.to not in pos:
            continue
        (x1, y1), (x2, y2) = pos[t.from_], pos[t.to]
        bend = 14 * (i % 3 - 1)
        if t.from_ == t.to:  # a loop above the box
            x, y = x1 + _BOX_W / 2 + bend, y1
            out.append(f'<path d="M{x - 10} {y} C{x - 20} {y - 22} {x + 20} {y - 22} {x + 10} {y}" fill="none" '
                       f'stroke="#555" marker-end="url(#a)"/><text x="{x - 6}" y="{y - 16}">{escape(t.id)}</text>')
            continue
        ax, ay = x1 + _BOX_W, y1 + _BOX_H / 2 + bend
        bx, by = (x2, y2 + _BOX_H / 2 + bend) if x2 > x1 else (x2 + _BOX_W, y2 + _BOX_H / 2 + bend)
        if x2 <= x1:
            ax = x1
        out.append(f'<line x1="{ax}" y1="{ay}" x2="{bx}" y2="{by}" stroke="#555" marker-end="url(#a)"/>'
                   f'<text x="{(ax + bx) / 2}" y="{(ay + by) / 2 - 4}">{escape(t.id)}</text>')
    for st in c.states:
        x, y = pos[st.id]
        out.append(f'<rect x="{x}" y="{y}" width="{_BOX_W}" height="{_BOX_H}" rx="6" fill="#f6f8fb" stroke="#335"/>'
                   f'<text x="{x + 8}" y="{y + 22}"><title>{escape(st.description)}</title>{escape(st.id)}: '
                   f'{escape(st.description[:14])}</text>')
    out.append("</svg>")
    return "".join(out)


def _transitions(c: Contract) -> str:
    rows = []
    for t in c.transitions:
        steps = "<br>".join(f"<code>{escape(_step(s))}</code>" for s in t.steps)
        checks = "<br>".join(f"{escape(a.id)} ({escape(a.when)}{', ' + escape(a.requirement) if a.requirement else ''}): "
                             f"<code>{escape(_check(a))}</code>" for a in t.assertions)
        rows.append(f"<tr><td>{escape(t.id)}</td><td>{escape(t.from_)} &rarr; {escape(t.to)}</td>"
                    f"<td>{escape(t.intent)}</td><td>{steps}</td><td>{checks}</td>"
                    f"<td>{escape(', '.join(t.requirements))}</td></tr>")
    return ("<table><tr><th>id</th><th>states</th><th>intent</th><th>steps</th><th>assertions</th>"
            f"<th>requirements</th></tr>{''.join(rows)}</table>")


def _verdicts(c: Contract, results: list[dict]) -> str:
    if not results:
        return "<p>No page has been run with this contract.</p>"
    head = "".join(f"<th>{escape(t.id)}</th>" for t in c.transitions)
    reqs = "".join(f"<th>{escape(r.id)}</th>" for r in c.requirements)
    rows = []
    for r in sorted(results, key=lambda r: str(r.get("page", ""))):
        cells = []
        for t in c.transitions:
            o = (r.get("transitions") or {}).get(t.id) or {"status": "blocked", "reason": "no outcome"}
            why = "" if o["status"] == "passed" else (
                f"<div class=\"small\">step {o.get('failed_step')}: {escape(str(o.get('reason', '')))}</div>")
            cells.append(f"<td class=\"{escape(o['status'])}\">{escape(o['status'])}{why}</td>")
        labels = "".join(f"<td class=\"{'passed' if (r.get('labels') or {}).get(q.id) else 'failed'}\">"
                         f"{(r.get('labels') or {}).get(q.id, 0)}</td>" for q in c.requirements)
        rows.append(f"<tr><td>{escape(str(r.get('page', '')))}</td><td>{r.get('transition_validity')}</td>"
                    f"<td>{r.get('req_explicit')}</td><td>{r.get('req_implicit')}</td><td>{r.get('reward')}</td>"
                    f"{''.join(cells)}{labels}</tr>")
    return (f"<table><tr><th>page</th><th>T</th><th>Re</th><th>Ri</th><th>r_web</th>{head}{reqs}</tr>"
            f"{''.join(rows)}</table><p class=\"small\">Transition cells: status, and for a failed or blocked "
            "one the failing step and the reason. Requirement cells: the label z.</p>")


def _step(step) -> str:
    return json.dumps(step.model_dump(by_alias=True, exclude_none=True, exclude_defaults=True), sort_keys=True)


def _check(a) -> str:
    return (a.text or "") if a.check is None else _step(a.check)
