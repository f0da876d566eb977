"""DIR/report.html of a repair run, and its markdown digest (the Prefect artifact).

Built from DIR/repairs.jsonl alone (summary.json's numbers are recomputed from the same records
with summary.py, so the two never disagree). The HTML is one self-contained file: inline CSS and
SVG, no JavaScript, no external resources; keyframes are relative <img> links to DIR/keyframes/
so the report stays small. Every string that comes from a record is escaped: ids, reasons and
operator names derive from pages, and pages are hostile. Output is deterministic: the same
records give the same bytes (no timestamps, no absolute paths).
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path, PurePosixPath
from typing import Iterable
from urllib.parse import quote

from webmend.config import Bands
from webmend.repair.summary import BANDS, UNSCORED, summarize_repairs
from webmend.schemas.vocab import DIMENSIONS

THUMBS = 4  # keyframes per side in a case card
TOP_CASES = 10  # cases in the markdown digest


# ---- records ---------------------------------------------------------------------------------

def load_records(out_dir: str | Path) -> list[dict]:
    path = Path(out_dir) / "repairs.jsonl"
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _records(source) -> list[dict]:
    if isinstance(source, (str, Path)):
        return load_records(source)
    return list(source)


def _delta(r: dict) -> float | None:
    a, b = r.get("original_score"), r.get("final_score")
    return None if a is None or b is None else round(b - a, 3)


def _order(records: list[dict]) -> list[dict]:
    """Most improved first; unchanged after; pages without a score pair last; then index, id."""
    def key(r):
        d = _delta(r)
        return (d is None, d is not None and d <= 0, -(d or 0.0), r.get("index", 0), str(r.get("id", "")))
    return sorted(records, key=key)


def _band(state) -> str:
    return state or UNSCORED


def _num(v, digits: int = 1) -> str:
    return "–" if v is None else f"{v:.{digits}f}"


def _signed(v, digits: int = 1) -> str:
    return "–" if v is None else f"{v:+.{digits}f}"


def _cost(v) -> str:
    return "$0" if not v else f"${v:.4f}"


# ---- HTML pieces -----------------------------------------------------------------------------

def _e(v) -> str:
    return escape("" if v is None else str(v), quote=True)


def _badge(state) -> str:
    band = _band(state)
    return f'<span class="band b-{band.lower()}">{_e(band)}</span>'


def _table(header: Iterable[str], rows: Iterable[Iterable[str]], cls: str = "") -> str:
    """Cells are HTML already (the callers escape); header labels are plain text."""
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _stat(label: str, value: str, note: str = "") -> str:
    note = f'<div class="note">{note}</div>' if note else ""
    return f'<div class="stat"><div class="label">{_e(label)}</div><div class="value">{value}</div>{note}</div>'


def _header(s: dict, records: list[dict]) -> str:
    before, after = s["mean_score_before"], s["mean_score_after"]
    gain = None if before is None or after is None else after - before
    stops = ", ".join(f"{_e(k)} {v}" for k, v in s["stop_reasons"].items()) or "–"
    configs = sorted({str(r.get("config_hash", "")) for r in records if r.get("config_hash")})
    stats = [
        _stat("pages", str(s["pages"]), f"{s['pages_improved']} improved"),
        _stat("mean score", f"{_num(before)} → {_num(after)}", f"{_signed(gain)} on scored pages"),
        _stat("up a band", str(s["pages_up_a_band"])),
        _stat("accepted edits", f"{s['accepted']} / {s['attempts']}",
              f"{s['early_rejected']} early-rejected"),
        _stat("LLM calls", str(s["llm_calls"])),
        _stat("unpassable checks", str(sum(s["unpassable_checks"].values())),
              ", ".join(f"{_e(k)} {v}" for k, v in s["unpassable_checks"].items()) or "none flagged"),
        _stat("cost", _cost(s["cost_usd"]), f"evaluated candidates: {s['candidate_evaluations']}"),
    ]
    meta = f"stop reasons: {stops}"
    if configs:
        meta += " · config " + ", ".join(f"<code>{_e(c)}</code>" for c in configs)
    return (f'<header><h1>webmend repair report</h1><div class="stats">{"".join(stats)}</div>'
            f'<p class="meta">{meta}</p></header>')


def _transition_table(transitions: dict) -> str:
    cols = [b for b in BANDS if b != UNSCORED or any(UNSCORED in row for row in transitions.values())]
    head = "".join(f"<th>{_badge(None if c == UNSCORED else c)}</th>" for c in cols)
    rows = []
    for i, row in enumerate(BANDS):
        cells = transitions.get(row)
        if not cells:
            continue
        n = sum(c["count"] for c in cells.values())
        tds = []
        for j, col in enumerate(cols):
            cell = cells.get(col)
            if not cell:
                tds.append('<td class="zero">·</td>')
                continue
            kind = ("diag" if col == row else "up" if UNSCORED not in (row, col) and j > i
                    else "down" if UNSCORED not in (row, col) else "")
            tds.append(f'<td class="{kind}" data-row="{_e(row)}" data-col="{_e(col)}">{cell["count"]} '
                       f'<span class="pct">({cell["row_pct"]:g}%)</span></td>')
        rows.append(f'<tr><th>{_badge(None if row == UNSCORED else row)}</th>{"".join(tds)}'
                    f'<td class="total">{n}</td></tr>')
    if not rows:
        return '<p class="empty">No pages.</p>'
    return ('<table class="funnel"><thead><tr><th class="corner">original ↓ · final →</th>'
            f'{head}<th>pages</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')


def _operator_table(ops: dict) -> str:
    if not ops:
        return '<p class="empty">No operator edits were proposed.</p>'
    rows = []
    for name, c in ops.items():
        p, a = c.get("proposed", 0), c.get("accepted", 0)
        rate = f"{100 * a / p:.0f}%" if p else "–"
        rows.append([f"<code>{_e(name)}</code>", str(p), str(a), rate])
    return _table(("operator", "proposed", "accepted", "rate"), rows, "num")


def _lift_table(lift: dict) -> str:
    if not lift:
        return '<p class="empty">No candidates were evaluated.</p>'
    states = [b for b in BANDS if any(b in cells for cells in lift.values())]
    rows = []
    for strategy, cells in lift.items():
        row = [f"<code>{_e(strategy)}</code>"]
        for st in states:
            c = cells.get(st)
            if not c:
                row.append('<span class="zero">·</span>')
                continue
            gain = f' <span class="gain">{_signed(c["mean_gain"], 2)}</span>' if c["mean_gain"] is not None else ""
            row.append(f'{c["accepted"]}/{c["attempts"]}{gain}')
        rows.append(row)
    return _table(("strategy", *(f"{s}" for s in states)), rows, "num") + \
        '<p class="caption">accepted / attempts, mean accepted gain in points, by the page\'s original band</p>'


def _sparkline(path: list, best: int, bands: Bands) -> str:
    w, h, pad = 220, 56, 6
    pts = [(i, v) for i, v in enumerate(path) if v is not None]
    if not pts:
        return ''
    n = max(len(path) - 1, 1)
    x = lambda i: pad + (w - 2 * pad) * (i / n if len(path) > 1 else 0.5)  # noqa: E731
    y = lambda v: pad + (h - 2 * pad) * (1 - max(0.0, min(100.0, v)) / 100)  # noqa: E731
    guides = "".join(f'<line class="guide" x1="{pad}" x2="{w - pad}" y1="{y(t):.1f}" y2="{y(t):.1f}"/>'
                     for t in (bands.low_below, bands.high_from))
    line = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in pts)
    dots = []
    for i, v in pts:
        cls = "best" if i == best else "pt"
        r = 4.5 if i == best else 2.5
        dots.append(f'<circle class="{cls}" cx="{x(i):.1f}" cy="{y(v):.1f}" r="{r}">'
                    f'<title>round {i}: {v:.2f}{" (retained)" if i == best else ""}</title></circle>')
    label = " → ".join(_num(v) for v in path)
    return (f'<svg class="spark" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" '
            f'aria-label="score path {_e(label)}">{guides}<polyline points="{line}"/>{"".join(dots)}</svg>')


def _dimensions(r: dict) -> str:
    before = (r.get("diagnosis") or {}).get("dimensions") or {}
    after = (r.get("final_diagnosis") or {}).get("dimensions") or before
    cells = []
    for d in DIMENSIONS:
        b, a = before.get(d), after.get(d)
        diff = None if a is None or b is None else a - b
        cls = "up" if diff and diff > 0.005 else "down" if diff and diff < -0.005 else ""
        val = _num(b) if not cls else f"{_num(b)} → {_num(a)}"
        cells.append(f'<div class="dim {cls}"><span>{_e(d.replace("_", " "))}</span><b>{val}</b></div>')
    return f'<div class="dims">{"".join(cells)}</div>'


def _dim_changes(a: dict) -> str:
    out = []
    for d, v in (a.get("dimensions") or {}).items():
        b, f = v.get("before"), v.get("after")
        if b is not None and f is not None and abs(f - b) > 0.005:
            out.append(f'<span class="nowrap {"up" if f > b else "down"}">{_e(d)} {_signed(f - b)}</span>')
    return " ".join(out)


def _tests(a: dict) -> str:
    fixed = ", ".join(_e(t) for t in a.get("tests_fixed") or [])
    broken = ", ".join(_e(t) for t in a.get("tests_broken") or [])
    parts = ([f'<span class="up">+{fixed}</span>'] if fixed else []) + \
            ([f'<span class="down">−{broken}</span>'] if broken else [])
    return " ".join(parts) or '<span class="zero">·</span>'


def _attempts(r: dict) -> str:
    attempts = r.get("attempts") or []
    routes = {rt.get("round"): rt for rt in r.get("routes") or []}
    rounds = sorted({a.get("round") for a in attempts} | set(routes), key=lambda v: (v is None, v or 0))
    if not rounds:
        return '<p class="empty">No repair rounds ran.</p>'
    head = ("round", "#", "strategy", "operator / model", "mode", "verdict", "score", "dimensions", "tests", "eval")
    body = []
    for rnd in rounds:
        rt = routes.get(rnd)
        if rt:
            strategies = ", ".join(_e(s) for s in rt.get("strategies") or []) or "none"
            layer = f' · game layer {_e(rt["game_layer"])}' if rt.get("game_layer") else ""
            body.append(f'<tr class="route"><td colspan="{len(head)}">round {_e(rnd)} · router: '
                        f'{_e(rt.get("rule"))} → {strategies}{layer}</td></tr>')
        mine = [a for a in attempts if a.get("round") == rnd]
        if not mine:
            body.append(f'<tr><td>{_e(rnd)}</td><td colspan="{len(head) - 1}" class="empty">no candidates</td></tr>')
        for a in mine:
            ok = a.get("accepted")
            mark = '<span class="ok">✓</span>' if ok else '<span class="no">✗</span>'
            verdict = f'{mark} <span class="reason">{_e(a.get("reason"))}</span>'
            if a.get("changes"):
                verdict += f'<br><span class="meta">changed: {_e(a["changes"])}</span>'
            if a.get("early_rejected"):
                verdict += ' <span class="tag">early-rejected</span>'
            sb, sa = a.get("score_before"), a.get("score_after")
            diff = None if sb is None or sa is None else sa - sb
            dcls = "up" if diff and diff > 0 else "down" if diff and diff < 0 else ""
            score = f'{_num(sb)} → {_num(sa)} <span class="{dcls}">{_signed(diff)}</span>'
            cost = f' · {_cost(a["cost_usd"])}' if a.get("cost_usd") else ""
            body.append(
                f'<tr class="{"accepted" if ok else "rejected"}"><td>{_e(a.get("round"))}</td>'
                f'<td>{_e(a.get("candidate"))}</td><td>{_e(a.get("strategy"))}</td>'
                f'<td><code>{_e(a.get("name")).replace("+", "+<wbr>")}</code></td>'
                f'<td>{_e(a.get("mode"))}</td><td>{verdict}</td>'
                f'<td class="nowrap">{score}</td><td>{_dim_changes(a)}</td><td>{_tests(a)}</td>'
                f'<td class="nowrap">{a.get("eval_s", 0):.1f}s{cost}</td></tr>')
    heads = "".join(f"<th>{_e(h)}</th>" for h in head)
    return f'<table class="attempts"><thead><tr>{heads}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def _local(out: Path, rel) -> str | None:
    """The URL of a file under OUT named by a record, or None when it is missing or points outside."""
    if not rel or not isinstance(rel, str):
        return None
    p = PurePosixPath(rel)
    if p.is_absolute() or ".." in p.parts or "\\" in rel or ":" in rel:
        return None
    if not (out / p).is_file():
        return None
    return quote(p.as_posix())


def _frames(out: Path, frames: list, label: str) -> str:
    shown = list(frames or [])[:THUMBS]
    if not shown:
        return f'<div class="strip"><div class="side">{label}</div><div class="missing wide">no keyframes</div></div>'
    cells = []
    for rel in shown:
        url = _local(out, rel)
        if url is None:
            cells.append(f'<div class="missing" title="{_e(rel)}">missing<br><small>{_e(rel)}</small></div>')
        else:
            cells.append(f'<a href="{_e(url)}"><img src="{_e(url)}" alt="{_e(rel)}" loading="lazy"></a>')
    more = f'<div class="more">+{len(frames) - len(shown)}</div>' if len(frames) > len(shown) else ""
    return f'<div class="strip"><div class="side">{label}</div>{"".join(cells)}{more}</div>'


def _score(score, state) -> str:
    return _badge(state) if score is None else f"{_num(score)} {_badge(state)}"


def _card(out: Path, r: dict, bands: Bands) -> str:
    rid = str(r.get("id", ""))
    d = _delta(r)
    cls = "improved" if d and d > 0 else "worse" if d and d < 0 else "same"
    best = r.get("best_round", 0)
    page_url = _local(out, r.get("page"))
    page = (f'<a href="{_e(page_url)}">{_e(r.get("page"))}</a>' if page_url
            else f'<span class="empty">{_e(r.get("page"))} (file missing)</span>' if r.get("page")
            else '<span class="empty">not exported</span>')
    accepted = sum(1 for a in r.get("attempts") or [] if a.get("accepted"))
    facts = [f"stop: <b>{_e(r.get('stop_reason'))}</b>", f"rounds: {_e(r.get('rounds'))}",
             f"retained: round {_e(best)}", f"edits kept: {accepted}/{len(r.get('attempts') or [])}"]
    if r.get("llm_calls"):
        facts.append(f"LLM calls: {_e(r['llm_calls'])} ({_cost(r.get('cost_usd'))})")
    before, after = r.get("keyframes_before") or [], r.get("keyframes_after") or []
    if best == 0:
        frames = _frames(out, before, "original = retained")
    else:
        same = ' <span class="tag">frames identical to the original</span>' if before and before == after else ""
        frames = _frames(out, before, "original") + _frames(out, after, f"retained (round {_e(best)}){same}")
    anchor = "case-" + quote(rid, safe="")
    delta = "" if d is None else f' <span class="delta {cls}">{_signed(d)}</span>'
    return (
        f'<section class="card {cls}" id="{_e(anchor)}">'
        f'<div class="card-head"><h3><code>{_e(rid)}</code></h3>'
        f'<div class="scores">{_score(r.get("original_score"), r.get("original_state"))} → '
        f'{_score(r.get("final_score"), r.get("final_state"))}'
        f'{delta}</div></div>'
        f'<div class="card-body"><div class="path">{_sparkline(r.get("score_path") or [], best, bands)}'
        f'<div class="path-label">verified score path: {_e(" → ".join(_num(v) for v in r.get("score_path") or []))}'
        f'</div></div><div class="facts">{" · ".join(facts)}<br>exported: {page}</div></div>'
        f'{_dimensions(r)}{_attempts(r)}<div class="frames">{frames}</div></section>')


CSS = """
:root{--fg:#1d2330;--muted:#667085;--line:#e4e7ec;--bg:#f7f8fa;--card:#fff;--up:#127a3d;--down:#b42318;
--low:#fde7e5;--low-fg:#9b1c13;--mid:#fff1d6;--mid-fg:#8a5300;--high:#dcf5e5;--high-fg:#0f6a34;--un:#eceef2}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,
"Helvetica Neue",Arial,sans-serif}
main{max-width:1240px;margin:0 auto;padding:24px 28px 48px}
h1{font-size:24px;margin:0 0 14px}h2{font-size:18px;margin:32px 0 10px}h3{font-size:15px;margin:0}
code{font:12.5px/1.3 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}
.stats{display:grid;grid-template-columns:repeat(6,1fr);gap:10px}
.stat{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 12px}
.stat .label{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.stat .value{font-size:22px;font-weight:600;white-space:nowrap}.stat .note{color:var(--muted);font-size:12px}
.meta{color:var(--muted);font-size:12.5px;margin:10px 0 0}
.grid{display:grid;grid-template-columns:1fr 1fr;gap:24px;align-items:start}
table{border-collapse:collapse;background:var(--card);border:1px solid var(--line);border-radius:6px}
th,td{padding:6px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
thead th{background:#f2f4f7;font-size:12px;color:var(--muted);font-weight:600}
table.num td:not(:first-child),table.num th:not(:first-child){text-align:right}
.funnel td,.funnel th{text-align:center;min-width:92px}.funnel th.corner{font-weight:400;font-size:11.5px}
.funnel td.diag{background:#f2f4f7}.funnel td.up{background:#e7f6ec;color:var(--up);font-weight:600}
.funnel td.down{background:#fdecea;color:var(--down);font-weight:600}.funnel td.total{color:var(--muted)}
.pct{color:var(--muted);font-weight:400;font-size:12px}.zero{color:#b0b7c3}
.caption{color:var(--muted);font-size:12px;margin:6px 0 0}
.band{display:inline-block;padding:1px 7px;border-radius:10px;font-size:12px;font-weight:600}
.b-low{background:var(--low);color:var(--low-fg)}.b-mid{background:var(--mid);color:var(--mid-fg)}
.b-high{background:var(--high);color:var(--high-fg)}.b-unscored{background:var(--un);color:var(--muted)}
.card{background:var(--card);border:1px solid var(--line);border-left:4px solid #c4cad4;border-radius:8px;
padding:14px 16px;margin:0 0 16px}
.card.improved{border-left-color:var(--up)}.card.worse{border-left-color:var(--down)}
.card-head{display:flex;justify-content:space-between;align-items:baseline;gap:16px;flex-wrap:wrap}
.scores{font-size:15px;white-space:nowrap}.delta{font-weight:700;margin-left:6px}
.delta.improved{color:var(--up)}.delta.worse{color:var(--down)}.delta.same{color:var(--muted)}
.card-body{display:flex;gap:24px;align-items:center;margin:10px 0;flex-wrap:wrap}
.path-label{color:var(--muted);font-size:12px}.facts{color:#344054;font-size:13px}
.spark{background:#fafbfc;border:1px solid var(--line);border-radius:4px;display:block}
.spark polyline{fill:none;stroke:#3b6fd8;stroke-width:2}.spark .pt{fill:#3b6fd8}
.spark .best{fill:#f5a524;stroke:#7a4b00;stroke-width:1}.spark .guide{stroke:#d0d5dd;stroke-dasharray:3 3}
.dims{display:flex;gap:8px;flex-wrap:wrap;margin:0 0 10px}
.dim{border:1px solid var(--line);border-radius:6px;padding:3px 8px;font-size:12px;color:var(--muted)}
.dim b{color:var(--fg);margin-left:6px;font-weight:600}.dim.up{border-color:#a6dcb8;background:#f0faf3}
.dim.down{border-color:#f2b8b5;background:#fef3f2}
table.attempts{width:100%;font-size:12.5px}.attempts tr.route td{background:#f8f9fb;color:var(--muted);font-size:12px}
.attempts tr.accepted td:first-child{box-shadow:inset 3px 0 var(--up)}
.attempts tr.rejected td:first-child{box-shadow:inset 3px 0 #d0d5dd}
.ok{color:var(--up);font-weight:600}.no{color:var(--down);font-weight:700}.reason{color:#344054}
.up{color:var(--up)}.down{color:var(--down)}.nowrap{white-space:nowrap}
.tag{display:inline-block;background:#eef2ff;color:#3538cd;border-radius:4px;padding:0 5px;font-size:11px;
font-weight:600;margin-left:4px}
.frames{margin-top:12px}.strip{display:flex;gap:8px;align-items:center;margin:6px 0}
.side{width:130px;flex:none;color:var(--muted);font-size:12px}
.strip img{width:200px;height:125px;object-fit:cover;object-position:top;border:1px solid var(--line);
border-radius:4px;display:block;background:#fff}
.missing{width:200px;height:125px;border:1px dashed #d0d5dd;border-radius:4px;color:var(--muted);font-size:11px;
display:flex;flex-direction:column;align-items:center;justify-content:center;text-align:center;padding:6px;
word-break:break-all}.missing.wide{width:auto;height:auto;padding:10px 16px}
.more{color:var(--muted);font-size:12px}.empty{color:var(--muted);font-style:italic}
@media (max-width:900px){.stats{grid-template-columns:repeat(3,1fr)}.grid{grid-template-columns:1fr}}
"""


def render_html(out_dir: str | Path, records: list[dict] | None = None, bands: Bands | None = None) -> str:
    out = Path(out_dir)
    records = load_records(out) if records is None else records
    bands = bands or Bands()
    s = summarize_repairs(records, 0.0)
    cards = "".join(_card(out, r, bands) for r in _order(records)) or '<p class="empty">No pages.</p>'
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>webmend repair report: {s["pages"]} pages</title><style>{CSS}</style></head><body><main>'
        f'{_header(s, records)}'
        '<h2>Funnel: band transitions</h2>'
        f'{_transition_table(s["transitions"])}'
        '<p class="caption">rows: band of the original page; columns: band of the retained checkpoint; '
        f'count (row %). Bands: Low &lt; {bands.low_below:g} ≤ Mid &lt; {bands.high_from:g} ≤ High.</p>'
        '<div class="grid"><div><h2>Operators</h2>'
        f'{_operator_table(s["operators"])}</div><div><h2>Lift by strategy × original band</h2>'
        f'{_lift_table(s["lift_by_strategy"])}</div></div>'
        f'<h2>Cases ({len(records)}), most improved first</h2>{cards}'
        '</main></body></html>\n')


def write_report(out_dir: str | Path) -> Path:
    """Render OUT/report.html from OUT/repairs.jsonl; returns its path."""
    out = Path(out_dir)
    path = out / "report.html"
    path.write_text(render_html(out), encoding="utf-8")
    return path


# ---- markdown (the Prefect artifact) ---------------------------------------------------------

def _md(v) -> str:
    return escape("–" if v is None else str(v), quote=False).replace("|", "\\|").replace("\n", " ")[:120]


def _md_table(header, rows) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(_md(v) for v in row) + " |" for row in rows)]


def funnel_markdown(t: dict) -> list[str]:
    """The band transition table (summary.transitions) as markdown lines."""
    cols = [b for b in BANDS if b != UNSCORED or any(UNSCORED in row for row in t.values())]
    rows = []
    for row in BANDS:
        if row in t:
            rows.append([row, *(f"{t[row][c]['count']} ({t[row][c]['row_pct']:g}%)" if c in t[row] else "·"
                                for c in cols)])
    return _md_table(("original \\ final", *cols), rows) if rows else ["No pages."]


def report_markdown(source: str | Path | Iterable[dict]) -> str:
    """A short markdown digest of a repair run: headline numbers, the band funnel, the top cases."""
    records = _records(source)
    s = summarize_repairs(records, 0.0)
    lines = ["# webmend repair", "",
             f"{s['pages']} pages; mean score {_num(s['mean_score_before'])} → {_num(s['mean_score_after'])}; "
             f"{s['pages_improved']} improved, {s['pages_up_a_band']} up a band; "
             f"{s['accepted']}/{s['attempts']} edits accepted ({s['early_rejected']} early-rejected); "
             f"{s['llm_calls']} LLM calls, {_cost(s['cost_usd'])}.", "", "## Band transitions", ""]
    lines += funnel_markdown(s["transitions"])
    top = [r for r in _order(records) if (_delta(r) or 0) > 0][:TOP_CASES]
    lines += ["", "## Top cases", ""]
    if top:
        lines += _md_table(("page", "before", "after", "gain", "bands", "edits kept", "stop"), [
            (r.get("id"), _num(r.get("original_score")), _num(r.get("final_score")), _signed(_delta(r)),
             f"{_band(r.get('original_state'))} → {_band(r.get('final_state'))}",
             sum(1 for a in r.get("attempts") or [] if a.get("accepted")), r.get("stop_reason"))
            for r in top])
    else:
        lines += ["No page improved."]
    return "\n".join(lines) + "\n"


__all__ = ["funnel_markdown", "load_records", "render_html", "report_markdown", "write_report"]
