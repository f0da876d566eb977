"""What each stage reads from the data root and writes to it, and the check a flow runs on them.

A stage declares the tables it writes (all their columns, as webmend/schemas/tables.py defines
them; the last one written is its completion marker) and the columns it reads (table -> columns;
`optional` for a table it reads when present, such as export reading checkpoints of a root that
was never repaired). The readers take their columns from the declaration (`Reads.columns`), so a
stage cannot read a column it did not declare. A flow lists its configured stages and checks them
before any work (`check_chain`): a read that no earlier stage writes fails at build time, naming
the table and column, as a DAG is checked when it is built.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from webmend.schemas.tables import TABLES


class FlowBuildError(ValueError):
    """A flow's stages do not fit together: a stage reads what no earlier stage writes."""


@dataclass(frozen=True)
class Read:
    table: str
    columns: tuple[str, ...]
    optional: bool = False  # read when an earlier stage (or an earlier run) wrote it; absent is fine

    def __post_init__(self):
        _check_columns(self.table, self.columns)


@dataclass(frozen=True)
class StageSpec:
    name: str
    summary: str  # one line: what the stage does
    writes: tuple[str, ...] = ()  # tables in the order written; the last one marks a batch done
    reads: tuple[Read, ...] = field(default=())

    def __post_init__(self):
        for table in self.writes:
            _check_columns(table, ())

    @property
    def marker(self) -> str | None:
        return self.writes[-1] if self.writes else None

    def columns(self, table: str) -> list[str]:
        """The declared columns of one table this stage reads (a reader selects exactly these)."""
        for read in self.reads:
            if read.table == table:
                return list(read.columns)
        raise KeyError(f"stage {self.name!r} declares no read of table {table!r}")

    def read_columns(self) -> dict[str, list[str]]:
        return {read.table: list(read.columns) for read in self.reads}


def _check_columns(table: str, columns: tuple[str, ...]) -> None:
    if table not in TABLES:
        raise ValueError(f"unknown table {table!r} (tables: {', '.join(TABLES)})")
    unknown = [c for c in columns if c not in TABLES[table].names]
    if unknown:
        raise ValueError(f"table {table!r} has no column(s) {', '.join(unknown)}")


def check_chain(stages: list[StageSpec]) -> None:
    """Raise FlowBuildError unless every required read of each stage is written by a stage before it."""
    written: dict[str, str] = {}  # table -> the stage that writes it
    for position, stage in enumerate(stages):
        for read in stage.reads:
            if read.optional or read.table in written:
                continue
            earlier = ", ".join(s.name for s in stages[:position]) or "none"
            named = ", ".join(f"{read.table}.{c}" for c in read.columns[:3]) + (", ..." if len(read.columns) > 3 else "")
            raise FlowBuildError(f"stage {stage.name!r} reads {named}, but no earlier stage writes table "
                                 f"{read.table!r} (stages before it: {earlier})")
        for table in stage.writes:
            written.setdefault(table, stage.name)


def render_markdown(stages: list[StageSpec]) -> str:
    """The stage table of docs/architecture.md (printed by `webmend stages`; a test keeps the doc current)."""
    lines = ["| stage | what it does | reads (table: columns) | writes (marker last) |", "| --- | --- | --- | --- |"]
    for s in stages:
        reads = "<br>".join(f"{r.table}{' (if present)' if r.optional else ''}: {', '.join(r.columns)}"
                            for r in s.reads) or "inputs only"
        lines.append(f"| {s.name} | {s.summary} | {reads} | {', '.join(s.writes) or '-'} |")
    return "\n".join(lines) + "\n"
