"""What a workload is (:class:`TableDef`, :class:`WorkloadDef`): the built-in workloads and
custom DDL files of :mod:`generators.workloads` build these."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from binlogwriter.schema import Table
from generators.edge_values import ValueMode
from generators.spec import ColumnGen

__all__ = ["TableDef", "WorkloadDef"]


@dataclass
class TableDef:
    """One table of a workload and the workload's knowledge about its values."""

    table: Table
    create_sql: str
    key_fns: dict[str, Callable[[int], Any]] = field(default_factory=dict)
    key_caps: dict[str, int] = field(default_factory=dict)
    """Key columns whose values must stay among the first N their counting key generator
    gives (a RANGE partitioning's or a CHECK's upper bound, generators/workloads/custom.py):
    they count up and wrap at N (generators/key_space.py ``counts_up``, ``key_wraps``)."""
    overrides: dict[str, ColumnGen] = field(default_factory=dict)
    update_groups: list[tuple[str, ...]] | None = None
    initial_keys: Callable[[], Iterable[int]] | None = None
    initial_count: int = 0
    # with initial_keys: membership test and one past the highest initial key (pure; the
    # Spark job needs them without enumerating the keys)
    is_initial: Callable[[int], bool] | None = None
    initial_next: int | None = None
    # True: alltypes' own edge values; a ValueMode: --edge-values and the integers' whole
    # range (generators/edge_values.py, load_workload)
    edge: bool | ValueMode = False
    immutable: tuple[str, ...] = ()
    # referenced by a FOREIGN KEY of a custom schema: its initial rows are never deleted
    # (generators/foreign_keys.py)
    keep_initial: bool = False
    # columns whose generator a CHECK constraint sets (generators/checks.py): a spec's own
    # generator for one would be free to break the constraint, so it is refused
    checked: frozenset[str] = frozenset()
    # under the oltp_write_only template: (column the first update statement of a transaction
    # increments, column its second one draws) — sysbench's ``SET k=k+1`` and ``SET c=?``
    # (generators/rows.py, TableRows.compute_counted)
    counted_updates: tuple[str, str] | None = None
    # with counted_updates: the text of a statement as the workload's client sends it
    # (table, kind, rows as generators/statement_text.statement_sql takes them, flavor) -> SQL
    statement_sql: Callable[[Table, str, list, str], str] | None = None
    # spatial columns declared with an SRID (MySQL's ``SRID n``):
    # column -> SRID their values carry (generators/rows.py; a server refuses another one)
    srids: dict[str, int] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.table.name


@dataclass
class WorkloadDef:
    name: str
    database: str
    tables: list[TableDef]
    preamble: list[tuple[str, str]] = field(default_factory=list)
    """(database, statement) to run before the CREATE TABLEs: a script's ``CREATE SEQUENCE``s
    (MariaDB), which a column's ``DEFAULT nextval(s)`` needs to exist."""

    def table(self, name: str) -> TableDef:
        for t in self.tables:
            if t.name == name:
                return t
        raise KeyError(name)
