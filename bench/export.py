"""Export + gate at scale: `export_corpus` over a synthetic data root of N pages of realistic size.

What it builds (once; cached as WORKDIR/root-ROWS-sSEED and reused while the generator is the
same; the build runs in --jobs worker processes, so its time and memory do not count): a data
root with N evaluated pages (`--rows`, default 100,000; `--quick` 10,000), each a complete HTML
document of 20-60 KB (seeded pseudo-random CSS, prose and JavaScript drawn from a fixed vocabulary,
so it compresses like real pages, not to nothing), spread over the six families, scores uniform in
20..100 with their bands (Low < 40 <= Mid < 80 <= High), status ok; every tenth page is a second
sample (`P#1`) of the prompt before it. About 60 % of the pages also have two checkpoints: round 0
(the original page) and a repaired round 1 (`is_best`, a higher score, its own HTML: the original
with an added style block and section). Rows go through `DataRoot.write`, 1,000 pages per key.

What it measures, in one process, in this order:

* baseline: reading the evaluations' `page` column once with pyarrow
  (`ParquetFile.iter_batches(columns=["page"])` over every file, summing the string lengths): the
  least any export of these pages has to do;
* export: `webmend.export.run.export_corpus(root, fresh_out, ExportConfig())`, all routes and
  formats, the Great Expectations gate included. Its stages are timed by wrapping the module-level
  functions `run.py` calls (monkeypatched in this process only; the library is unchanged):
  `select` (metadata query + routing), `_write_datasets` (of which: `scan_pages`,
  the DuckDB join + ordered HTML fetch, and `file_digest`, hashing the written parts; the rest is
  building rows and writing Parquet), `_write_rejects`, `_gate` (of which `gate.facts`, reading
  the staged parts back; the rest is pandas + GX), `build_manifest`, `_publish`; `other` is the
  wall time none of them covers (DuckDB views, version id, dataset_info).

How to read the numbers:

* `rows_per_s`: training rows written over all datasets (each page appears in several: raw and
  filtered in sharegpt + alpaca, refined in both plus preference pairs) per second of export wall;
  `pages_per_s` is source pages per second.
* `bytes_written`: bytes on disk of the published version (Parquet parts, rejects, manifest, gate
  docs); `uncompressed_bytes` is the Parquet row groups' in-memory size from the footers.
* `peak_rss_mib`: the process's max RSS (ru_maxrss) at the end, interpreter, pyarrow, DuckDB and GX
  included (`rss_before_export_mib` is the high-water mark after the baseline). `peak_by_stage`
  samples the current RSS every 0.5 s; `maxrss_after_stage_mib` is the high-water mark as each
  stage returned, so the stage that raised it is the first with the final figure.
  `peak_rss_over_corpus_html` divides the peak by the HTML the root stores (evaluation pages +
  checkpoint HTML). Compare it across sizes (`--quick` against the full run): a streaming export
  has a peak that stays put as N grows, so the ratio falls roughly as 1/N (at a few thousand pages
  the fixed ~0.5-1 GiB of interpreter, DuckDB and GX dominates); an export that holds a route's
  HTML has a peak that grows with N and a ratio that stays near or above 1.
* `export_over_baseline`: export wall / baseline wall, both in this run, so machine load and the
  page cache affect both (the baseline runs first and warms the cache for the evaluations files).
* `duckdb_spill_peak_mib`: the largest size seen of DuckDB's temp folder, where run.py expects its
  ordered page scans to spill past the export's DuckDB memory limit (`run.DUCKDB_MEMORY`, 1GB).
  `--duckdb-memory 12GB` raises that limit in this process only, to measure the later stages when
  the library's limit is not enough.

If export_corpus raises, the report still comes out, with `status: failed`, the error, the
innermost timed function it came out of (`failed_in`) and the stages so far; the exit status is 1.
No figure is asserted. Timings are wall-clock and depend on whatever else runs on the machine.

    .venv/bin/python bench/export.py [--rows 100000 | --quick] [--workdir /tmp/webmend-bench-export]
                                     [--seed 7] [--jobs 2] [--keep] [--duckdb-memory 12GB]
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import os
import random
import resource
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pyarrow.compute as pc  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from webmend.schemas.hashing import sha256_hex  # noqa: E402
from webmend.schemas.vocab import FAMILIES  # noqa: E402
from webmend.store import DataRoot, make_key  # noqa: E402

log = logging.getLogger("bench.export")

GENERATOR = "2"  # bump when the synthetic rows change: a cached root of another version is rebuilt
BATCH = 1_000  # pages per key (one evaluations file and one checkpoints file per batch)
QUICK_ROWS = 10_000
REPAIRED_SHARE = 0.6
EVAL_RUN, REPAIR_RUN = "evaluate-bench", "repair-bench"
EVAL_CONFIG, REPAIR_CONFIG = "b3nch0000eval000", "b3nch000repair00"

# A fixed vocabulary: common words plus seeded syllable words (the same for every seed).
_COMMON = ("the a of and to in is for on with as by at from this that it be are or an was can your "
           "page user data value item list button panel score game level chart color theme grid card "
           "menu close open start pause reset timer canvas frame layer point line shape track input "
           "output form field label select option toggle switch slide modal dialog header footer nav "
           "section article aside main title text image video audio icon badge tag filter sort search "
           "result error status update render draw move click hover focus scroll resize load save "
           "store fetch parse format number string array object function event state props width "
           "height margin padding border radius shadow opacity transform transition animation").split()
_SYLLABLES = ("ka lo mi ne ru sa ti vo ze qua bri den fal gor hin jus kel mor nix pol ras sen tor "
              "ul var wen xo yal zu ber cin dor fen gil har ist jor kan lum mar nor ost pen rin sol").split()


def _vocabulary() -> list[str]:
    rng = random.Random(20261203)
    made = {"".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(1_800)}
    return list(_COMMON) + sorted(made)


VOCAB = _vocabulary()
CSS_PROPS = ("color", "background", "margin", "padding", "border-radius", "font-size", "line-height",
             "letter-spacing", "box-shadow", "opacity", "gap", "max-width")
HEAD = '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' \
       '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
TAIL = "</body>\n</html>\n"


# ---- the synthetic data root ----------------------------------------------------------------

def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choices(VOCAB, k=n))


def _css(rng: random.Random) -> str:
    sel = f".{rng.choice(VOCAB)}-{rng.randrange(1000)}"
    decls = "; ".join(f"{rng.choice(CSS_PROPS)}: {rng.randrange(64)}px #{rng.randrange(16**6):06x}"
                      for _ in range(rng.randint(2, 5)))
    return f"{sel} {{ {decls}; }}\n"


def _js(rng: random.Random) -> str:
    name, a, b = (rng.choice(VOCAB).replace("-", "") + str(rng.randrange(100)) for _ in range(3))
    return (f"function {name}({a}, {b}) {{\n  const s = \"{_words(rng, rng.randint(3, 8))}\";\n"
            f"  return {a} * {rng.randrange(97)} + {b}.length + s.length;\n}}\n")


def _section(rng: random.Random) -> str:
    paras = "".join(f"<p>{_words(rng, rng.randint(30, 120))}</p>\n" for _ in range(rng.randint(1, 4)))
    return (f'<section class="{rng.choice(VOCAB)}-{rng.randrange(1000)}">\n<h2>{_words(rng, rng.randint(2, 6))}</h2>\n'
            f'{paras}<button id="b{rng.randrange(10**6)}">{_words(rng, 2)}</button>\n</section>\n')


def synthetic_page(rng: random.Random, title: str) -> str:
    """A complete document of 20-60 KB: about a fifth CSS, three fifths markup, a fifth script."""
    target = rng.randint(20_000, 58_000)
    parts, size = [HEAD, f"<title>{title}</title>\n<style>\n"], 0
    while size < target * 0.2:
        parts.append(_css(rng))
        size += len(parts[-1])
    parts.append("</style>\n</head>\n<body>\n")
    while size < target * 0.8:
        parts.append(_section(rng))
        size += len(parts[-1])
    parts.append("<script>\n")
    while size < target:
        parts.append(_js(rng))
        size += len(parts[-1])
    parts.append("</script>\n" + TAIL)
    return "".join(parts)


def repaired_page(rng: random.Random, page: str) -> str:
    """The original with a style block and a section added, as a repair would leave it."""
    style = "<style>\n" + "".join(_css(rng) for _ in range(rng.randint(3, 12))) + "</style>\n"
    page = page.replace("</head>", style + "</head>", 1)
    return page[: -len(TAIL)] + _section(rng) + TAIL


def _band(score: float) -> str:
    return "Low" if score < 40 else "Mid" if score < 80 else "High"


def _dims(total: float) -> dict:
    return {"score_total": total, "score_rendering": round(min(10.0, total / 10), 3),
            "score_visual_design": round(total * 0.1, 3), "score_functionality": round(total * 0.6, 3),
            "score_interaction": round(total * 0.15, 3), "score_code_quality": round(total * 0.05, 3)}


def build_batch(root: str, seed: int, batch: int, start: int, stop: int) -> dict:
    """Write one batch of pages (evaluations + checkpoints); returns its HTML byte counts."""
    evals, checkpoints = [], []
    eval_bytes = ckpt_bytes = repaired = 0
    for i in range(start, stop):
        rng = random.Random(f"{seed}:{i}")
        if i % 10 == 9:  # a second sample of the previous prompt
            prompt_id, page_id = f"p{i - 1:06d}", f"p{i - 1:06d}#1"
        else:
            prompt_id = page_id = f"p{i:06d}"
        prng = random.Random(f"{seed}:prompt:{prompt_id}")
        family = FAMILIES[prng.randrange(len(FAMILIES))]
        prompt = f"Build a {family.replace('_', ' ')} page: {_words(prng, prng.randint(8, 40))}."
        page = synthetic_page(rng, _words(rng, 4))
        page_hash = sha256_hex(page)
        score = round(rng.uniform(20, 100), 3)
        flags = rng.choice([[], [], ["fenced"], ["fenced", "prose_around"]])
        evals.append({
            "id": page_id, "source": f"bench/responses.jsonl:{i}", "input_index": i, "status": "ok", "flags": flags,
            "state": _band(score), "interactive": family in ("apps_tools", "games_simulations"), **_dims(score),
            "family": family, "tests_total": 12, "tests_passed": int(12 * score / 100), "elapsed_s": round(rng.uniform(5, 60), 3),
            "result_schema_version": "1.1", "scoring_version": "2", "blocked_requests": [], "blocked_requests_total": 0,
            "network_isolated": True, "layers": [1, 2, 4],
            "evidence": json.dumps({"console_errors": rng.randrange(3), "dom_nodes": rng.randrange(200, 4000)}),
            "trace_summary": json.dumps({"events": rng.randrange(50, 500)}),
            "prompt_id": prompt_id, "prompt": prompt, "page": page, "page_hash": page_hash,
            "run_id": EVAL_RUN, "input_hash": page_hash, "config_hash": EVAL_CONFIG,
        })
        eval_bytes += len(page)
        if rng.random() < REPAIRED_SHARE:
            html = repaired_page(rng, page)
            after = round(min(100.0, score + rng.uniform(5, 45)), 3)
            common = {"id": page_id, "input_hash": page_hash, "original_score": score, "original_state": _band(score),
                      "rounds": 1, "stop_reason": "target_reached" if after >= 80 else "max_rounds",
                      "run_id": REPAIR_RUN, "config_hash": REPAIR_CONFIG}
            checkpoints.append({**common, "round": 0, "parent_hash": None, "score_total": score, "state": _band(score),
                                "is_best": False, "html": page, "status": "ok", "flags": flags, "page_hash": page_hash})
            checkpoints.append({**common, "round": 1, "parent_hash": page_hash, "score_total": after, "state": _band(after),
                                "is_best": True, "html": html, "status": "ok", "flags": [], "page_hash": sha256_hex(html)})
            ckpt_bytes += len(page) + len(html)
            repaired += 1
    store = DataRoot(root)
    store.write("evaluations", evals, key=make_key("bench-export", "evaluations", seed, batch))
    if checkpoints:
        store.write("checkpoints", checkpoints, key=make_key("bench-export", "checkpoints", seed, batch))
    return {"eval_html_bytes": eval_bytes, "checkpoint_html_bytes": ckpt_bytes, "repaired": repaired,
            "checkpoint_rows": len(checkpoints)}


def root_folder(workdir: Path, rows: int, seed: int) -> Path:
    return workdir / f"root-{rows}-s{seed}"


def ensure_root(workdir: Path, rows: int, seed: int, jobs: int) -> dict:
    """The cached data root WORKDIR/root-ROWS-sSEED, built when absent or of another GENERATOR."""
    root = root_folder(workdir, rows, seed)
    meta_path = root.with_suffix(".json")
    wanted = {"rows": rows, "seed": seed, "generator": GENERATOR, "batch": BATCH}
    if meta_path.exists():
        meta = json.loads(meta_path.read_text())
        if {k: meta.get(k) for k in wanted} == wanted and root.is_dir():
            log.info("reusing the data root %s (%d pages, seed %d)", root, rows, seed)
            return meta
        log.info("the cached root has %s, not %s: rebuilding", {k: meta.get(k) for k in wanted}, wanted)
        meta_path.unlink()
        shutil.rmtree(root, ignore_errors=True)
    elif root.is_dir():  # an interrupted build: DataRoot.write skips the keys already written
        log.info("resuming the build of %s", root)
    workdir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    totals = {"eval_html_bytes": 0, "checkpoint_html_bytes": 0, "repaired": 0, "checkpoint_rows": 0}
    batches = [(b, b * BATCH, min(rows, (b + 1) * BATCH)) for b in range((rows + BATCH - 1) // BATCH)]
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn")) as pool:
        futures = [pool.submit(build_batch, str(root), seed, *b) for b in batches]
        for done, future in enumerate(futures, 1):
            for k, v in future.result().items():
                totals[k] += v
            if done % 10 == 0 or done == len(futures):
                log.info("built %d/%d batches (%.0f s)", done, len(futures), time.perf_counter() - started)
    meta = {**wanted, **totals, "build_s": round(time.perf_counter() - started, 1),
            "root_bytes": _folder_bytes(root)}
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    return meta


# ---- measuring ------------------------------------------------------------------------------

def _folder_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())


def _rss_now() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def _max_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB


class Stages:
    """Seconds per wrapped function, and the RSS / DuckDB spill peaks sampled while each ran."""

    def __init__(self, spill_dir: Path):
        self.seconds: dict[str, float] = {}
        self.rss_peak: dict[str, int] = {}
        self.current = "other"
        self.spill_dir, self.spill_peak = spill_dir, 0
        self.response_chars = 0
        self.maxrss_after: dict[str, int] = {}  # ru_maxrss when each top-level stage returned
        self.failed_in: str | None = None  # the innermost wrapped function an exception left
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds

    def timed(self, name: str, fn, top: bool = False):
        @functools.wraps(fn)
        def wrapper(*a, **k):
            before, started = self.current, time.perf_counter()
            if top:
                self.current = name
            try:
                return fn(*a, **k)
            except BaseException:
                self.failed_in = self.failed_in or name
                raise
            finally:
                self.add(name, time.perf_counter() - started)
                self.current = before
                if top:
                    self.maxrss_after[name] = _max_rss()
        return wrapper

    def timed_iter(self, name: str, fn):
        """A generator function whose time inside next() is counted (the DuckDB query runs there)."""
        @functools.wraps(fn)
        def wrapper(*a, **k):
            it = fn(*a, **k)
            while True:
                started = time.perf_counter()
                try:
                    item = next(it)
                except StopIteration:
                    self.add(name, time.perf_counter() - started)
                    return
                except BaseException:
                    self.add(name, time.perf_counter() - started)
                    self.failed_in = self.failed_in or name
                    raise
                self.add(name, time.perf_counter() - started)
                yield item
        return wrapper

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while not self._stop.wait(0.5):
            rss = _rss_now()
            self.rss_peak[self.current] = max(self.rss_peak.get(self.current, 0), rss)
            try:
                spill = sum(e.stat().st_size for e in os.scandir(self.spill_dir) if e.is_file())
            except OSError:
                spill = 0
            self.spill_peak = max(self.spill_peak, spill)


def instrument(stages: Stages) -> None:
    """Wrap the functions export_corpus calls, in this process only."""
    from webmend.export import files, gate, run

    for name in ("select", "_write_datasets", "_write_rejects", "_gate", "build_manifest", "_publish"):
        setattr(run, name, stages.timed(name.lstrip("_"), getattr(run, name), top=True))
    from webmend.export import stream

    stream.scan_pages = stages.timed_iter("write.scan_pages", stream.scan_pages)
    files.file_digest = stages.timed("write.file_digest", files.file_digest)
    facts = stages.timed("gate.facts", gate.facts)

    def counted_facts(*a, **k):
        out = facts(*a, **k)
        stages.response_chars += sum(f["response_chars"] or 0 for f in out)
        return out

    gate.facts = counted_facts


def baseline(root: DataRoot) -> tuple[float, int]:
    """(seconds, characters): the evaluations' page column read once with pyarrow."""
    started, chars = time.perf_counter(), 0
    for path in root.files("evaluations"):
        for batch in pq.ParquetFile(path).iter_batches(columns=["page"]):
            chars += pc.sum(pc.binary_length(batch.column(0))).as_py() or 0
    return time.perf_counter() - started, chars


def parquet_uncompressed(folder: Path) -> int:
    total = 0
    for path in folder.rglob("*.parquet"):
        md = pq.ParquetFile(path).metadata
        total += sum(md.row_group(i).total_byte_size for i in range(md.num_row_groups))
    return total


def measure(root_path: Path, out: Path, meta: dict, duckdb_memory: str | None) -> dict:
    from webmend.export import run
    from webmend.export.config import ExportConfig

    if duckdb_memory:
        run.DUCKDB_MEMORY = duckdb_memory  # this process only: export_corpus reads it when it connects
    root = DataRoot(root_path)
    base_s, base_chars = baseline(root)
    log.info("baseline: %d page characters read in %.1f s", base_chars, base_s)
    rss_before = _max_rss()
    stages = Stages(Path(tempfile.gettempdir()) / "webmend-duckdb")
    instrument(stages)
    stages.start()
    started, outcome, error = time.perf_counter(), None, None
    try:
        outcome = run.export_corpus(str(root_path), str(out), ExportConfig())
    except Exception as exc:  # noqa: BLE001 - the report says what failed, where and after how long
        log.exception("export_corpus failed in %s", stages.failed_in)
        error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    finally:
        wall = time.perf_counter() - started
        stages.stop()
    peak = _max_rss()
    version = out / outcome.version if outcome else None
    rows = sum(outcome.rows.values()) if outcome else None
    corpus_html = meta["eval_html_bytes"] + meta["checkpoint_html_bytes"]
    got = stages.seconds.get
    s = {"select": got("select", 0.0), "write_datasets": got("write_datasets", 0.0),
         "write.scan_pages": got("write.scan_pages", 0.0),
         "write.file_digest": got("write.file_digest", 0.0)}
    s["write.rows_and_parquet"] = s["write_datasets"] - s["write.scan_pages"] - s["write.file_digest"]
    s.update({"write_rejects": got("write_rejects", 0.0), "gate": got("gate", 0.0), "gate.facts": got("gate.facts", 0.0)})
    s["gate.pandas_and_gx"] = s["gate"] - s["gate.facts"]
    s.update({"build_manifest": got("build_manifest", 0.0), "publish": got("publish", 0.0)})
    s["other"] = wall - sum(v for k, v in s.items() if "." not in k)
    s = {k: round(v, 2) for k, v in s.items()}
    return {
        "status": outcome.status if outcome else "failed", "version": outcome.version if outcome else None,
        "error": error, "failed_in": stages.failed_in if error else None,
        "duckdb_memory_limit": run.DUCKDB_MEMORY,
        "pages": meta["rows"], "checkpoint_rows": meta["checkpoint_rows"], "repaired_pages": meta["repaired"],
        "corpus_html_bytes": corpus_html, "eval_html_bytes": meta["eval_html_bytes"],
        "checkpoint_html_bytes": meta["checkpoint_html_bytes"], "data_root_bytes": meta.get("root_bytes"),
        "rows_written": rows, "rows_by_dataset": outcome.rows if outcome else None,
        "wall_s": round(wall, 2), "stages_s": s,
        "rows_per_s": round(rows / wall, 1) if outcome else None,
        "pages_per_s": round(meta["rows"] / wall, 1) if outcome else None,
        "bytes_written": _folder_bytes(version) if outcome else None,
        "uncompressed_bytes": parquet_uncompressed(version) if outcome else None,
        "response_chars_read_by_gate": stages.response_chars,
        "peak_rss_mib": round(peak / 2**20, 1), "rss_before_export_mib": round(rss_before / 2**20, 1),
        "peak_by_stage_mib": {k: round(v / 2**20, 1) for k, v in sorted(stages.rss_peak.items())},
        "maxrss_after_stage_mib": {k: round(v / 2**20, 1) for k, v in stages.maxrss_after.items()},
        "peak_rss_over_corpus_html": round(peak / corpus_html, 4),
        "duckdb_spill_peak_mib": round(stages.spill_peak / 2**20, 1),
        "baseline_s": round(base_s, 2), "baseline_chars": base_chars,
        "export_over_baseline": round(wall / base_s, 1) if base_s else None,
        "cpus": os.cpu_count(), "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def table(f: dict) -> str:
    gb = 1e9
    if f["error"]:
        return "\n".join([f"export FAILED in {f['failed_in']} after {f['wall_s']:.1f} s "
                          f"(DuckDB memory_limit {f['duckdb_memory_limit']}): {f['error']}",
                          f"pages {f['pages']:,}; corpus HTML {f['corpus_html_bytes'] / gb:.2f} GB; "
                          f"peak RSS {f['peak_rss_mib']:,.0f} MiB; stages so far: {f['stages_s']}"])
    lines = [
        ("pages (checkpoint rows)", f"{f['pages']:,} ({f['checkpoint_rows']:,})"),
        ("corpus HTML", f"{f['corpus_html_bytes'] / gb:.2f} GB (evaluations {f['eval_html_bytes'] / gb:.2f}, "
                        f"checkpoints {f['checkpoint_html_bytes'] / gb:.2f})"),
        ("rows written", f"{f['rows_written']:,}"),
        ("export wall", f"{f['wall_s']:.1f} s (DuckDB memory_limit {f['duckdb_memory_limit']})"),
        *((("    " if "." in k else "  ") + k, f"{v:.1f} s") for k, v in f["stages_s"].items()),
        ("rows/s (pages/s)", f"{f['rows_per_s']:,.0f} ({f['pages_per_s']:,.0f})"),
        ("bytes written (uncompressed)", f"{f['bytes_written'] / gb:.2f} GB ({f['uncompressed_bytes'] / gb:.2f} GB)"),
        ("peak RSS (before export)", f"{f['peak_rss_mib']:,.0f} MiB ({f['rss_before_export_mib']:,.0f} MiB)"),
        ("peak RSS / corpus HTML", f"{f['peak_rss_over_corpus_html']:.4f}"),
        ("DuckDB spill peak", f"{f['duckdb_spill_peak_mib']:,.0f} MiB"),
        ("baseline (page column once)", f"{f['baseline_s']:.1f} s"),
        ("export / baseline", f"{f['export_over_baseline']}x"),
    ]
    width = max(len(k) for k, _ in lines)
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=100_000, help="synthetic pages (default 100,000)")
    p.add_argument("--quick", action="store_true", help=f"{QUICK_ROWS:,} pages")
    p.add_argument("--workdir", type=Path, default=Path("/tmp/webmend-bench-export"),
                   help="the cached data root and the export output go here")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="processes building the root")
    p.add_argument("--keep", action="store_true", help="keep the export output (else it is removed)")
    p.add_argument("--duckdb-memory", metavar="SIZE", help="override the export's DuckDB memory_limit in this "
                   "process (run.DUCKDB_MEMORY, e.g. 8GB); default: the library's")
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    rows = QUICK_ROWS if args.quick else args.rows
    meta = ensure_root(args.workdir, rows, args.seed, args.jobs)
    out = args.workdir / f"out-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
    try:
        figures = measure(root_folder(args.workdir, rows, args.seed), out, meta, args.duckdb_memory)
    finally:
        if not args.keep:
            shutil.rmtree(out, ignore_errors=True)
    figures["output"] = str(out) if args.keep else None
    print(json.dumps(figures, indent=2))
    print(table(figures))
    return 1 if figures["error"] else 0


if __name__ == "__main__":
    sys.exit(main())
