"""Which pages become rows of which route, read from the trace tables with DuckDB (no HTML held).

Raw: every evaluated page with a score that passes the hygiene rules (status, flags, prompt,
complete document, known family, decontamination). Filtered: those whose original band is High.
Refined: per page, its best verified checkpoint (or the original when it was High and never
repaired) that also reaches the gate's score, then the best page of each prompt. Every page that
does not make a route gets a reject with its reason (docs/export.md).
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace

from webmend.export.config import ExportConfig
from webmend.export.documents import DOCUMENT_HEAD, DOCUMENT_TAIL, HEAD_CHARS, TAIL_CHARS
from webmend.intake.decontam import Decontaminator, load_benchmarks
from webmend.schemas.corpus import EXPORT_REJECT_REASONS
from webmend.schemas.hashing import sha256_hex
from webmend.schemas.vocab import FAMILIES, STATES
from webmend.stage.spec import Read, StageSpec

log = logging.getLogger(__name__)

# Where a page's HTML is stored: originals, checkpoints, candidates rejected for a regression.
EVALUATIONS, CHECKPOINTS, REPAIR_ATTEMPTS = "evaluations", "checkpoints", "repair_attempts"
# export.run opens the data root with exactly these columns: a query naming another one fails.
SPEC = StageSpec("export", "select routes on stored scores, gate, publish Parquet corpora and a manifest",
                 writes=("exports",), reads=(
    Read(EVALUATIONS, ("id", "prompt_id", "prompt", "family", "run_id", "score_total", "state", "status", "flags",
                       "page_hash", "input_hash", "config_hash", "page")),
    Read("contract_results", ("id", "input_hash", "config_hash", "run_id", "reward", "labels")),
    Read("prompts", ("id", "prompt", "family"), optional=True),
    Read(CHECKPOINTS, ("id", "input_hash", "page_hash", "score_total", "state", "status", "flags", "round",
                       "run_id", "config_hash", "contract_reward", "contract_labels", "html", "is_best"), optional=True),
    Read(REPAIR_ATTEMPTS, ("id", "input_hash", "page_hash", "score_after", "run_id", "html", "regression"),
         optional=True),
))


@dataclass(frozen=True)
class Page:
    """One exportable page (metadata only): an evaluated original or a verified checkpoint."""

    id: str
    prompt_id: str
    prompt: str | None
    family: str | None
    source_run: str
    score: float | None
    original_score: float | None
    original_state: str | None
    status: str | None
    flags: tuple[str, ...]
    complete: bool
    has_page: bool
    page_hash: str  # sha256 of the page
    table: str  # EVALUATIONS | CHECKPOINTS
    original_hash: str | None = None  # for a checkpoint: the page it was repaired from
    round: int = 0
    state: str | None = None  # the stored band of this page's verified total
    eval_config: str | None = None  # config hash of the page's evaluation ...
    repair_config: str | None = None  # ... and of the repair run that verified the checkpoint
    # The task contract's reward and labels z (JSON) on this page, when it was evaluated with one
    # (a checkpoint's come from its own verified evaluation).
    contract_reward: float | None = None
    contract_labels: str | None = None


@dataclass(frozen=True)
class Reject:
    route: str
    id: str
    page_hash: str
    reason: str  # EXPORT_REJECT_REASONS
    detail: str = ""

    def __post_init__(self):
        if self.reason not in EXPORT_REJECT_REASONS:  # the closed list docs/export.md explains
            raise ValueError(f"unknown export reject reason {self.reason!r}")


@dataclass(frozen=True)
class Pair:
    """A preference pair: the chosen checkpoint beside the page it improved on."""

    chosen: Page
    rejected: Page
    kind: str = "original"  # or "regression": a candidate the repair loop rejected for a regression


@dataclass
class Selection:
    routes: dict[str, list[Page]] = field(default_factory=dict)
    pairs: list[Pair] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)
    funnel: dict = field(default_factory=dict)
    source_runs: dict[str, int] = field(default_factory=dict)  # run id -> evaluated pages read


def _complete_sql(column: str) -> str:
    return (f"coalesce(regexp_matches(left({column}, {HEAD_CHARS}), '{DOCUMENT_HEAD}') "
            f"AND regexp_matches(right({column}, {TAIL_CHARS}), '{DOCUMENT_TAIL}'), false)")


def _evaluation_sql(runs: list[str] | None) -> str:
    where = "" if not runs else "WHERE e.run_id IN (" + ", ".join("'" + r.replace("'", "''") + "'" for r in runs) + ")"
    return f"""
        WITH p AS (SELECT id, any_value(prompt) AS prompt, any_value(family) AS family FROM prompts GROUP BY id),
             c AS (SELECT id, input_hash, config_hash, run_id, any_value(reward) AS reward,
                          any_value(labels) AS labels FROM contract_results GROUP BY ALL)
        SELECT e.id, c.reward AS contract_reward, c.labels AS contract_labels, coalesce(e.prompt_id, split_part(e.id, '#', 1)) AS prompt_id,
               coalesce(e.prompt, p.prompt) AS prompt, coalesce(e.family, p.family) AS family,
               e.run_id, e.score_total, e.state, e.status, e.flags, e.page_hash, e.input_hash, e.config_hash,
               e.page IS NOT NULL AS has_page, {_complete_sql('e.page')} AS complete
        FROM evaluations e LEFT JOIN p ON p.id = coalesce(e.prompt_id, split_part(e.id, '#', 1))
             LEFT JOIN c ON c.id = e.id AND c.input_hash = e.input_hash AND c.config_hash = e.config_hash
                        AND c.run_id = e.run_id {where}
        ORDER BY e.id, e.score_total DESC NULLS LAST, e.page_hash NULLS LAST, e.run_id, e.config_hash"""


_CHECKPOINT_SQL = f"""
    SELECT id, input_hash AS original_hash, page_hash, score_total, state, status, flags, round, run_id, config_hash,
           contract_reward, contract_labels, html IS NOT NULL AS has_page, {_complete_sql('html')} AS complete
    FROM checkpoints WHERE is_best
    ORDER BY id, input_hash, score_total DESC NULLS LAST, round, page_hash, run_id"""


_REGRESSION_SQL = f"""
    SELECT id, input_hash AS original_hash, page_hash, score_after, run_id, {_complete_sql('html')} AS complete
    FROM repair_attempts WHERE regression AND html IS NOT NULL
    ORDER BY id, input_hash, page_hash, run_id"""


def read_regressions(con) -> dict[tuple[str, str], list[dict]]:
    """Candidates rejected for a regression with their page, by (page id, original page hash)."""
    out: dict[tuple[str, str], list[dict]] = defaultdict(list)
    seen = set()
    for r in _dicts(con.execute(_REGRESSION_SQL)):
        if (r["id"], r["page_hash"]) not in seen:
            seen.add((r["id"], r["page_hash"]))
            out[(r["id"], r["original_hash"])].append(r)
    return out


def read_pages(con, runs: list[str] | None = None) -> tuple[list[Page], dict[tuple[str, str], Page], list[Reject]]:
    """(evaluated originals, one per page id; best checkpoint per (id, original page hash); the
    other pages under an id that is taken, as `superseded` rejects)."""
    originals: dict[str, Page] = {}
    superseded: dict[tuple[str, str], Reject] = {}
    for r in _dicts(con.execute(_evaluation_sql(runs))):
        if r["id"] in originals:  # the first row in the order above wins
            kept, other = originals[r["id"]], r["page_hash"] or r["input_hash"]
            if other != kept.page_hash:  # another page under this id (a second source, a changed page)
                superseded.setdefault((r["id"], other), Reject(
                    "raw", r["id"], other, "superseded", f"{kept.page_hash[:12]} scores {kept.score}"))
            continue
        originals[r["id"]] = Page(
            id=r["id"], prompt_id=r["prompt_id"], prompt=r["prompt"], family=r["family"], source_run=r["run_id"],
            score=r["score_total"], original_score=r["score_total"], original_state=r["state"], status=r["status"],
            flags=tuple(r["flags"] or ()), complete=bool(r["complete"]), has_page=bool(r["has_page"]),
            page_hash=r["page_hash"] or r["input_hash"], table=EVALUATIONS, state=r["state"], eval_config=r["config_hash"],
            contract_reward=r["contract_reward"], contract_labels=r["contract_labels"])
    best: dict[tuple[str, str], dict] = {}
    for r in _dicts(con.execute(_CHECKPOINT_SQL)):
        best.setdefault((r["id"], r["original_hash"]), r)
    checkpoints = {}
    for key, r in best.items():
        original = originals.get(key[0])
        if original is None or original.page_hash != key[1]:
            continue  # repaired from a page whose evaluation is not among the runs read
        round0 = r["round"] == 0
        checkpoints[key] = replace(
            original, source_run=r["run_id"], score=r["score_total"], state=r["state"],
            status=r["status"] if r["status"] is not None or not round0 else original.status,
            flags=tuple(r["flags"] or ()) if r["status"] is not None or not round0 else original.flags,
            complete=bool(r["complete"]), has_page=bool(r["has_page"]), page_hash=r["page_hash"],
            table=CHECKPOINTS, original_hash=original.page_hash, round=r["round"], repair_config=r["config_hash"],
            contract_reward=r["contract_reward"] if r["contract_reward"] is not None or not round0 else original.contract_reward,
            contract_labels=r["contract_labels"] if r["contract_reward"] is not None or not round0 else original.contract_labels)
    return list(originals.values()), checkpoints, list(superseded.values())


def _dicts(cursor) -> list[dict]:
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


class Hygiene:
    """The rules every route applies; contamination is looked up once per prompt text."""

    def __init__(self, cfg: ExportConfig, benchmarks: list[str]):
        self.cfg = cfg
        files = self.files = [*cfg.gate.benchmarks, *benchmarks]
        if not files:
            log.warning("export: no benchmark files given, so no decontamination re-check (docs/export.md)")
        self.decontam = Decontaminator(load_benchmarks(files), cfg.gate.dedup, cfg.gate.decontam) if files else None
        self._seen: dict[str, str | None] = {}

    def problem(self, page: Page) -> tuple[str, str] | None:
        gate = self.cfg.gate
        if page.score is None:
            return "no_score", page.status or ""
        if page.status != gate.status:
            return "status", f"{page.status} (round {page.round})"
        if hit := sorted(set(page.flags) & set(gate.forbidden_flags)):
            return "flag", ",".join(hit)
        if not page.prompt:
            return "no_prompt", page.prompt_id
        if not page.has_page:
            return "no_page", page.table
        if not page.complete:
            return "incomplete_document", page.table
        if page.family not in FAMILIES:
            return "unknown_family", str(page.family)
        if contamination := self.contamination(page.prompt):
            return "contaminated", contamination
        return None

    def contamination(self, prompt: str) -> str | None:
        if self.decontam is None:
            return None
        key = sha256_hex(prompt)
        if key not in self._seen:
            hit = self.decontam.check(prompt)
            self._seen[key] = None if hit is None else f"{hit.kind}:{hit.benchmark_id} ({hit.benchmark_file})"
        return self._seen[key]


def select(con, cfg: ExportConfig, hygiene: Hygiene, runs: list[str] | None = None) -> Selection:
    originals, checkpoints, superseded = read_pages(con, runs)
    read = Counter(p.source_run for p in originals) + Counter(p.source_run for p in checkpoints.values())
    sel = Selection(source_runs=dict(sorted(read.items())))
    wanted = set(cfg.routes)
    # The hygiene rejects of the originals are recorded under the first route that reads them.
    first = next((r for r in ("raw", "filtered") if r in wanted), None)
    sel.rejects += [replace(r, route=first or "refined") for r in superseded]
    valid = _filter(first, originals, hygiene, sel.rejects if first else [])
    if "raw" in wanted:
        sel.routes["raw"] = _one_per_prompt("raw", valid, cfg, sel.rejects)
    if "filtered" in wanted:
        high = [p for p in valid if p.original_state == "High"]
        sel.rejects += [Reject("filtered", p.id, p.page_hash, "not_high", str(p.original_state))
                        for p in valid if p.original_state != "High"]
        sel.routes["filtered"] = _one_per_prompt("filtered", high, cfg, sel.rejects)
    passed = []
    if "refined" in wanted:
        candidates = []
        for p in originals:
            cp = checkpoints.get((p.id, p.page_hash))
            if cp is not None or p.original_state == "High":
                candidates.append(cp or p)
            else:
                reason = ("not_traced", str(p.original_state)) if p.score is not None else ("no_score", p.status or "")
                sel.rejects.append(Reject("refined", p.id, p.page_hash, *reason))
        passed = [p for p in _filter("refined", candidates, hygiene, sel.rejects) if _reaches_gate(p, cfg, sel.rejects)]
        sel.routes["refined"] = _one_per_prompt("refined", passed, cfg, sel.rejects)
    if cfg.equal_size:
        sel.routes = {r: _sample(r, pages, cfg, sel.rejects) for r, pages in sel.routes.items()}
    if "preference" in cfg.formats and "refined" in sel.routes:
        sel.pairs = pairs(sel.routes["refined"], originals, read_regressions(con))
    sel.funnel = funnel(originals, checkpoints, passed, sel.routes, hygiene.cfg)
    return sel


def pairs(refined: list[Page], originals: list[Page], regressions: dict) -> list[Pair]:
    """Per refined row: (chosen = it, rejected = its original) when repair improved on the original,
    and (it, a candidate rejected for a regression) for each such candidate of the same page. The
    second kind is ranked by verification, not by total: the candidate broke a test case or a
    protected dimension, whatever its total (early-rejected ones have none)."""
    by_hash = {(p.id, p.page_hash): p for p in originals}
    out = []
    for page in refined:
        start = page.original_hash or page.page_hash
        original = by_hash.get((page.id, start))
        if page.round > 0 and original and original.has_page and original.score is not None and original.score < page.score:
            out.append(Pair(page, original))
        for r in regressions.get((page.id, start), ()):
            if r["page_hash"] != page.page_hash:
                bad = replace(page, score=r["score_after"], page_hash=r["page_hash"], table=REPAIR_ATTEMPTS,
                              complete=bool(r["complete"]), source_run=r["run_id"], round=0)
                out.append(Pair(page, bad, "regression"))
    return out


def _filter(route: str, pages: list[Page], hygiene: Hygiene, rejects: list[Reject]) -> list[Page]:
    kept = []
    for page in pages:
        problem = hygiene.problem(page)
        if problem is None:
            kept.append(page)
        else:
            rejects.append(Reject(route, page.id, page.page_hash, *problem))
    return kept


def _reaches_gate(page: Page, cfg: ExportConfig, rejects: list[Reject]) -> bool:
    if page.score >= cfg.gate.min_score:
        return True
    rejects.append(Reject("refined", page.id, page.page_hash, "below_gate", f"{page.score} < {cfg.gate.min_score}"))
    return False


def _rank(page: Page) -> tuple:
    return (-page.score, page.id, page.page_hash)


def _one_per_prompt(route: str, pages: list[Page], cfg: ExportConfig, rejects: list[Reject]) -> list[Page]:
    if route not in cfg.gate.one_per_prompt:
        return sorted(pages, key=lambda p: (p.prompt_id, *_rank(p)))
    groups: dict[str, list[Page]] = defaultdict(list)
    for page in pages:
        groups[page.prompt_id].append(page)
    kept = []
    for prompt_id in sorted(groups):
        best, *rest = sorted(groups[prompt_id], key=_rank)
        kept.append(best)
        rejects += [Reject(route, p.id, p.page_hash, "not_best_for_prompt", f"{best.id} scores {best.score}")
                    for p in rest]
    return kept


def _sample(route: str, pages: list[Page], cfg: ExportConfig, rejects: list[Reject]) -> list[Page]:
    """N rows stratified by family (largest remainder), each family's rows in a seeded hash order."""
    n = cfg.equal_size
    if len(pages) < n:
        raise ValueError(f"route {route} has {len(pages)} rows, fewer than equal_size {n}")
    by_family: dict[str, list[Page]] = defaultdict(list)
    for page in pages:
        by_family[page.family].append(page)
    quotas = _quotas({f: len(v) for f, v in by_family.items()}, n)
    kept = []
    for family in sorted(by_family):
        ordered = sorted(by_family[family], key=lambda p: sha256_hex(f"{cfg.seed}\x1f{p.id}\x1f{p.page_hash}"))
        kept += ordered[:quotas[family]]
        rejects += [Reject(route, p.id, p.page_hash, "not_sampled", f"equal_size {n}") for p in ordered[quotas[family]:]]
    return sorted(kept, key=lambda p: (p.prompt_id, *_rank(p)))


def _quotas(counts: dict[str, int], n: int) -> dict[str, int]:
    total = sum(counts.values())
    exact = {f: n * c / total for f, c in counts.items()}
    quotas = {f: int(x) for f, x in exact.items()}
    for f in sorted(exact, key=lambda f: (-(exact[f] - quotas[f]), f))[:n - sum(quotas.values())]:
        quotas[f] += 1
    return quotas


def funnel(originals, checkpoints, passed, routes, cfg: ExportConfig) -> dict:
    """Table 5's funnel per family and in all: prompts -> valid raw (evaluated with a score) ->
    traced (with a repair trace) -> by original band -> repaired (best checkpoint past round 0)
    -> passed the refined gate -> exported per route. Every step but the last counts pages."""
    rows: dict[str, dict] = {}

    def buckets(page):  # the page's family and `all`: every count goes to both
        return [rows.setdefault(name, _empty(cfg)) for name in (page.family or "unknown", "all")]

    for p in originals:
        for b in buckets(p):
            b["prompts"].add(p.prompt_id)
            if p.score is None:
                continue
            cp = checkpoints.get((p.id, p.page_hash))
            b["valid_raw"] += 1
            if p.original_state in STATES:
                b["original_band"][p.original_state] += 1
            b["traced"] += cp is not None
            b["repaired"] += cp is not None and cp.round > 0
    for p in passed:
        for b in buckets(p):
            b["passed_gate"] += 1
    for route, pages in routes.items():
        for p in pages:
            for b in buckets(p):
                b["exported"][route] += 1
    everything = rows.pop("all", None) or _empty(cfg)
    out = {f: {**b, "prompts": len(b["prompts"])} for f, b in sorted(rows.items())}
    out["all"] = {**everything, "prompts": len(everything["prompts"])}  # distinct prompt ids
    return out


def _empty(cfg: ExportConfig) -> dict:
    return {"prompts": set(), "valid_raw": 0, "traced": 0, "original_band": dict.fromkeys(STATES, 0), "repaired": 0,
            "passed_gate": 0, "exported": dict.fromkeys(cfg.routes, 0)}
