"""Built-in workloads and custom DDL files -> :class:`WorkloadDef` (tables + how to fill them).

A workload gives, per table: the CREATE TABLE text (what ``truth/snapshot.sql`` and
``--ddl-in-binlog`` use), the parsed :class:`~binlogwriter.schema.Table`, columns derived
from the key alone (primary/unique keys, foreign keys), column generator overrides, the
column groups an UPDATE changes together, and the initial keys. Everything else about a
value comes from :mod:`generators.values`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from binlogwriter.schema import Table
from generators.spec import ColumnGen, Spec

__all__ = ["TableDef", "WorkloadDef", "workload_defaults", "load_workload"]

_DEFAULTS = {
    "sysbench": {"mix": "insert=0.25,update=0.5,delete=0.25", "rows_per_txn": 4, "template": "oltp_write_only"},
    "ecommerce": {"mix": "insert=0.5,update=0.4,delete=0.1", "rows_per_txn": "1-5", "template": "ecommerce"},
    "alltypes": {"mix": "insert=0.4,update=0.4,delete=0.2", "rows_per_txn": "1-4", "template": "mix"},
    None: {"mix": "insert=0.4,update=0.4,delete=0.2", "rows_per_txn": "1-4", "template": "mix"},
}


def workload_defaults(name: str | None) -> dict[str, Any]:
    """Default mix / rows per transaction / template of a workload (None = custom DDL)."""
    return dict(_DEFAULTS[name])


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
    edge: bool = False
    immutable: tuple[str, ...] = ()
    # referenced by a FOREIGN KEY of a custom schema: its initial rows are never deleted
    # (generators/foreign_keys.py)
    keep_initial: bool = False

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


def load_workload(spec: Spec) -> WorkloadDef:
    """The tables of ``spec`` (built-in workload or ``schema_sql``); SchemaError/SpecError if bad."""
    if spec.workload == "sysbench":
        from generators.workloads.sysbench import sysbench
        return sysbench(spec)
    if spec.workload == "ecommerce":
        from generators.workloads.ecommerce import ecommerce
        return ecommerce(spec)
    if spec.workload == "alltypes":
        from generators.workloads.alltypes import alltypes
        return alltypes(spec)
    from generators.workloads.custom import custom
    return custom(spec)
