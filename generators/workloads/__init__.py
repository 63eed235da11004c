"""Built-in workloads and custom DDL files -> :class:`WorkloadDef` (tables + how to fill them).

A workload gives, per table: the CREATE TABLE text (what ``truth/snapshot.sql`` and
``--ddl-in-binlog`` use), the parsed :class:`~binlogwriter.schema.Table`, columns derived
from the key alone (primary/unique keys, foreign keys), column generator overrides, the
column groups an UPDATE changes together, and the initial keys. Everything else about a
value comes from :mod:`generators.values`. The classes are in
:mod:`generators.workloads.base`, the defaults of each workload in :mod:`generators.spec`.
"""

from __future__ import annotations

from generators.spec import Spec, workload_defaults
from generators.workloads.base import TableDef, WorkloadDef

__all__ = ["TableDef", "WorkloadDef", "workload_defaults", "load_workload"]


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
