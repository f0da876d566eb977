"""Stored pages to rows without holding the corpus: every page table is scanned once, in storage
order, and rows are written as their pages come by.

DuckDB only filters here (a semi-join on a small table of wanted hashes): a join that carries the
HTML, or an ORDER BY over it, builds that HTML into a hash table or a sort that does not spill,
and runs out of memory at 10,000 pages (bench/export.py). Row order in a file is therefore the
order of the stored files; the scan runs on one DuckDB thread so that order is the files' (sorted
by key) and their rows', the same on every run (with several threads it varies).

A preference row needs two pages from two tables: its rejected page (an original or a candidate
rejected for a regression) is set aside in a temporary SQLite file (disk, not memory) when its
table is scanned, then looked up by hash when the chosen page comes by.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Callable, Iterator

import pyarrow as pa

from webmend.export.select import CHECKPOINTS, EVALUATIONS, REPAIR_ATTEMPTS

_COLUMNS = {EVALUATIONS: ("page_hash", "page"), CHECKPOINTS: ("page_hash", "html"),
            REPAIR_ATTEMPTS: ("page_hash", "html")}
FETCH_ROWS = 128


def scan_pages(con, table: str, hashes: set[str]) -> Iterator[tuple[str, str]]:
    """(hash, html) of every stored row of `table` whose page is wanted, each hash once."""
    if not hashes:
        return
    key, column = _COLUMNS[table]
    name = f"_want_{table}"
    con.register(name, pa.table({"h": sorted(hashes)}))
    seen: set[str] = set()
    threads = con.execute("SELECT current_setting('threads')").fetchall()[0][0]
    con.execute("SET threads = 1")
    try:
        query = f"SELECT {key}, {column} FROM {table} WHERE {column} IS NOT NULL AND {key} IN (SELECT h FROM {name})"
        for batch in con.sql(query).to_arrow_reader(FETCH_ROWS):
            for h, html in zip(batch.column(0).to_pylist(), batch.column(1).to_pylist()):
                if h not in seen:
                    seen.add(h)
                    yield h, html
    finally:
        con.execute(f"SET threads = {int(threads)}")
        con.unregister(name)


class PageStash:
    """Pages set aside on local disk by hash (a temporary SQLite file, removed on close)."""

    def __init__(self):
        self._dir = tempfile.TemporaryDirectory(prefix="webmend-export-")
        self._db = sqlite3.connect(Path(self._dir.name) / "pages.sqlite")
        self._db.execute("PRAGMA journal_mode = OFF")
        self._db.execute("PRAGMA synchronous = OFF")
        self._db.execute("CREATE TABLE pages (hash TEXT PRIMARY KEY, html TEXT NOT NULL)")

    def put(self, h: str, html: str) -> None:
        self._db.execute("INSERT OR IGNORE INTO pages VALUES (?, ?)", (h, html))

    def get(self, h: str) -> str | None:
        row = self._db.execute("SELECT html FROM pages WHERE hash = ?", (h,)).fetchone()
        return None if row is None else row[0]

    def close(self) -> None:
        self._db.close()
        self._dir.cleanup()


def stream_rows(con, routes: dict[str, list], pairs: list, emit_page: Callable, emit_pair: Callable) -> None:
    """emit_page(route, page, html) for every routed page, emit_pair(pair, chosen, rejected) for
    every pair; raises when a selected page is not in the tables any more.

    Scan order: regressing candidates (only set aside), originals, checkpoints. A pair's rejected
    page is a regressing candidate or an original, so it is set aside before its chosen page (an
    original or a checkpoint) comes by."""
    wanted: dict[tuple[str, str], list] = defaultdict(list)
    for route, pages in routes.items():
        for page in pages:
            wanted[(page.table, page.page_hash)].append((route, page))
    chosen: dict[tuple[str, str], list] = defaultdict(list)
    for pair in pairs:
        chosen[(pair.chosen.table, pair.chosen.page_hash)].append(pair)
    rejected = {(p.rejected.table, p.rejected.page_hash) for p in pairs}
    found: set[tuple[str, str]] = set()
    stash = PageStash()
    try:
        for table in (REPAIR_ATTEMPTS, EVALUATIONS, CHECKPOINTS):
            hashes = {h for t, h in [*wanted, *chosen, *rejected] if t == table}
            for h, html in scan_pages(con, table, hashes):
                found.add((table, h))
                if (table, h) in rejected:
                    stash.put(h, html)
                for route, page in wanted.get((table, h), ()):
                    emit_page(route, page, html)
                for pair in chosen.get((table, h), ()):
                    if (other := stash.get(pair.rejected.page_hash)) is None:
                        raise RuntimeError(f"pair {pair.chosen.id}: its rejected page is not in the trace tables")
                    emit_pair(pair, html, other)
    finally:
        stash.close()
    missing = [k for k in [*wanted, *chosen, *rejected] if k not in found]
    if missing:
        raise RuntimeError(f"{len(missing)} selected pages are not in the trace tables (e.g. {missing[0]})")
