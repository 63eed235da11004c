"""``sysbench``: sbtest tables as sysbench's oltp_common.lua creates them.

Rows as ``sysbench prepare`` fills them (``k`` uniform in 1..table size, ``c`` ten and
``pad`` five groups of 11 digits joined by ``-``); transactions like ``oltp_write_only``:
one index UPDATE (``k``), one non-index UPDATE (``c``), one DELETE and the INSERT of the
same ``id`` (template ``oltp_write_only``; with ``--mix`` the generic mix instead).
"""

from __future__ import annotations

from generators.spec import ColumnGen, Spec
from generators.workloads._ddl import create_table, parse_one
from generators.workloads.base import TableDef, WorkloadDef


def sysbench(spec: Spec) -> WorkloadDef:
    tables = []
    size = max(spec.initial_rows, 1)
    for i in range(1, spec.tables + 1):
        name = f"sbtest{i}"
        sql = create_table(name, [
            ("id", "INTEGER NOT NULL AUTO_INCREMENT"),
            ("k", "INTEGER DEFAULT '0' NOT NULL"),
            ("c", "CHAR(120) DEFAULT '' NOT NULL"),
            ("pad", "CHAR(60) DEFAULT '' NOT NULL"),
        ], ["PRIMARY KEY (`id`)", f"KEY `k_{i}` (`k`)"], spec, "ENGINE=InnoDB")
        overrides = {
            "k": ColumnGen(f"{name}.k", "int", (("max", size), ("min", 1))),
            "c": ColumnGen(f"{name}.c", "digits", (("groups", 10),)),
            "pad": ColumnGen(f"{name}.pad", "digits", (("groups", 5),)),
        }
        tables.append(TableDef(parse_one(sql, spec), sql, overrides=overrides,
                               update_groups=[("k",), ("c",)], initial_count=spec.initial_rows))
    return WorkloadDef("sysbench", spec.database, tables)
