"""Built-in workloads and custom DDL files -> :class:`WorkloadDef` (tables + how to fill them).

A workload gives, per table: the CREATE TABLE text (what ``truth/snapshot.sql`` and
``--ddl-in-binlog`` use), the parsed :class:`~binlogwriter.schema.Table`, columns derived
from the key alone (primary/unique keys, foreign keys), column generator overrides, the
column groups an UPDATE changes together, and the initial keys. Everything else about a
value comes from :mod:`generators.values`. The classes are in
:mod:`generators.workloads.base`, the defaults of each workload in :mod:`generators.spec`.
"""

from __future__ import annotations

from generators.edge_values import value_mode
from generators.spec import Spec, workload_defaults
from generators.workloads.base import TableDef, WorkloadDef

__all__ = ["TableDef", "WorkloadDef", "workload_defaults", "load_workload"]


def load_workload(spec: Spec) -> WorkloadDef:
    """The tables of ``spec`` (built-in workload or ``schema_sql``); SchemaError/SpecError if bad.
    ``--schema`` tables draw integers over their types' whole range; ``--edge-values`` gives
    every table that share of edge values (alltypes' own 0.25 without it)."""
    if spec.workload == "sysbench":
        from generators.workloads.sysbench import sysbench
        wl = sysbench(spec)
    elif spec.workload == "ecommerce":
        from generators.workloads.ecommerce import ecommerce
        wl = ecommerce(spec)
    elif spec.workload == "alltypes":
        from generators.workloads.alltypes import alltypes
        wl = alltypes(spec)
    else:
        from generators.workloads.custom import custom
        wl = custom(spec)
    mode = value_mode(spec)
    if mode is not None:
        for t in wl.tables:
            t.edge = mode
    return wl

