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

    @property
    def name(self) -> str:
        return self.table.name


@dataclass
class WorkloadDef:
    name: str
    database: str
    tables: list[TableDef]
    preamble: list[str] = field(default_factory=list)  # statements before CREATE TABLEs

    def table(self, name: str) -> TableDef:
        for t in self.tables:
            if t.name == name:
                return t
        raise KeyError(name)
