"""``sysbench``: sbtest tables as sysbench's oltp_common.lua creates them.

Rows as ``sysbench prepare`` fills them (``k`` uniform in 1..table size, ``c`` ten and
``pad`` five groups of 11 digits joined by ``-``); transactions like ``oltp_write_only``:
one index UPDATE (``k``), one non-index UPDATE (``c``), one DELETE and the INSERT of the
same ``id`` (template ``oltp_write_only``; with ``--mix`` the generic mix instead).

Under ``oltp_write_only`` the tables are *counted* (generators/rows.py,
``TableRows.compute_counted``): the index update is ``SET k=k+1``, the non-index one
``SET c=?``, each a statement of one row, and the rows-query texts are the statements
oltp_write_only.lua sends (:func:`statement_sql`).
"""

from __future__ import annotations

from binlogwriter.schema import Table
from generators.spec import ColumnGen, Spec
from generators.statement_text import literal
from generators.statement_text import statement_sql as generic_statement_sql
from generators.workloads._ddl import create_table, parse_one
from generators.workloads.base import TableDef, WorkloadDef


def _quote(v: str) -> str:
    return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"


def statement_sql(table: Table, kind: str, rows: list, flavor: str) -> str:
    """The statement oltp_write_only.lua sends for one row change of ``table`` (``rows`` as
    statement_text.statement_sql takes them), as MariaDB logs it in Annotate_rows: ``UPDATE
    sbtest1 SET k=k+1 WHERE id=25``, ``UPDATE sbtest1 SET c='…' WHERE id=25``, ``DELETE FROM
    sbtest1 WHERE id=26``, ``INSERT INTO sbtest1 (id, k, c, pad) VALUES (26, 26, '…', '…')``.
    The initial rows ``--ddl-in-binlog`` writes go in statements of several rows, as
    ``sysbench prepare``'s bulk INSERT sends them: ``INSERT INTO sbtest1 (id, k, c, pad)
    VALUES (1, …), (2, …)``; an UPDATE or DELETE of several rows (oltp_write_only sends
    none) is the generic statement text (generators/statement_text.py)."""
    if kind != "insert" and len(rows) != 1:
        return generic_statement_sql(table, kind, rows, flavor)
    name = table.name
    if kind == "insert":
        # columns an --ddl-every ALTER added follow sysbench's four, with their values
        names = ", ".join(c.name for c in table.columns)
        values = ", ".join("(" + ", ".join(str(v) if c.name in ("id", "k") else _quote(v) if c.name in ("c", "pad")
                                           else literal(c, v, flavor) for c, v in zip(table.columns, row, strict=True))
                           + ")" for row in rows)
        return f"INSERT INTO {name} ({names}) VALUES {values}"
    if kind == "delete":
        return f"DELETE FROM {name} WHERE id={rows[0][0]}"
    before, assigned = rows[0]
    ((col, v),) = assigned.items()
    ci = col if isinstance(col, int) else table.index_of(col)
    if table.columns[ci].name == "k":
        return f"UPDATE {name} SET k=k+1 WHERE id={before[0]}"
    return f"UPDATE {name} SET c={_quote(v)} WHERE id={before[0]}"


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
                               update_groups=[("k",), ("c",)], initial_count=spec.initial_rows,
                               counted_updates=("k", "c"), statement_sql=statement_sql))
    return WorkloadDef("sysbench", spec.database, tables)
