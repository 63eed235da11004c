"""The run's initial state (part of :class:`generators.engine.Run`): ``truth/snapshot.sql``
(CREATE DATABASE/TABLE and the initial rows as INSERTs, docs/output.md) or, with
``--ddl-in-binlog``, the same DDL and initial rows written into the binlog."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from pathlib import Path

import numpy as np

from binlogwriter.schema import Table
from binlogwriter.write.writer import BinlogWriter
from generators.columns import column_sql_literals
from generators.rows import TableRows

INITIAL_ROWS_PER_TXN = 100  # --ddl-in-binlog: initial rows per INSERT transaction
SNAPSHOT_ROWS_PER_INSERT = 100
SNAPSHOT_VALUES = 1 << 18
"""Values of ``snapshot.sql``'s initial rows made at once (:meth:`SnapshotMixin.snapshot_inserts`):
whole INSERTs of :data:`SNAPSHOT_ROWS_PER_INSERT` rows, one at least, so a wide table's block
of literals stays a few tens of MB."""


def qi(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


class SnapshotMixin:
    """:class:`generators.engine.Run`'s snapshot methods (uses its ``spec``, ``work``, ``rows``
    and, for ``--ddl-in-binlog``, :meth:`generators.run_ddl.DdlMixin._ddl` / ``_write_stmts``)."""

    def _databases(self) -> list[str]:
        dbs = [self.spec.database]
        for db in [db for db, _ in self.work.preamble] + [r.table.database for r in self.rows]:
            if db not in dbs:
                dbs.append(db)
        return dbs

    def _initial_keys(self, rt: TableRows):
        td = rt.tdef
        return td.initial_keys() if td.initial_keys is not None else range(td.initial_count)

    def _insert_sql(self, t: Table, lits: list[list[str]]) -> str:
        """One INSERT of the rows whose values' SQL literals are ``lits`` (column by column)."""
        cols = ", ".join(qi(c.name) for c in t.columns)
        vals = ",\n".join("(" + ", ".join(r) + ")" for r in zip(*lits, strict=True))
        return f"INSERT INTO {qi(t.database)}.{qi(t.name)} ({cols}) VALUES\n{vals};\n"

    def snapshot_head(self) -> str:
        """``snapshot.sql`` up to the initial rows (comments, session settings, CREATEs)."""
        s = self.spec
        out = [
            "-- binlogwriter generate: the state before the first event of the first binlog (docs/output.md).\n",
            f"-- workload {self.work.name}, flavor {s.flavor}, seed {s.seed}\n",
        ]
        if s.ddl_in_binlog:
            out.append("-- --ddl-in-binlog: CREATE DATABASE, CREATE TABLE and the initial rows are in the binlog.\n")
            return "".join(out)
        out.append("SET NAMES utf8mb4;\nSET SESSION time_zone = '+00:00';\n"
                   "SET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO';\nSET SESSION foreign_key_checks = 0;\n")
        for db in self._databases():
            out.append(f"CREATE DATABASE IF NOT EXISTS {qi(db)};\n")
        for db, sql in self.work.preamble:
            out.append(f"USE {qi(db)};\n{sql};\n")
        for rt in self.rows:
            create = rt.tdef.create_sql.strip().rstrip(";")
            out.append(f"USE {qi(rt.table.database)};\n{create};\n")
        return "".join(out)

    def snapshot_tail(self) -> str:
        return "" if self.spec.ddl_in_binlog else "SET SESSION foreign_key_checks = 1;\n"

    def snapshot_inserts(self, rt: TableRows, keys) -> Iterator[str]:
        """INSERT statements of ``keys`` (initial rows), SNAPSHOT_ROWS_PER_INSERT per statement.
        The rows are made about :data:`SNAPSHOT_VALUES` values at a time, column by column
        (``compute_columns`` at version 0, epoch 0: the values of ``rt.compute(k, 0, 0)``), and
        so are their SQL literals (``column_sql_literals``: from the arrays where a family
        can)."""
        t, fl = rt.table, self.spec.flavor
        per = SNAPSHOT_ROWS_PER_INSERT
        size = max(1, SNAPSHOT_VALUES // max(1, len(t.columns)) // per) * per
        it = iter(keys)
        while block := list(islice(it, size)):
            ks = np.asarray(block, dtype=np.int64)
            zeros = np.zeros(len(ks), dtype=np.int64)
            lits = [column_sql_literals(c, vs, fl)
                    for c, vs in zip(t.columns, rt.compute_columns(ks, zeros, zeros), strict=True)]
            for s in range(0, len(ks), per):
                yield self._insert_sql(t, [col[s:s + per] for col in lits])

    def write_snapshot(self, path: Path, writer: BinlogWriter | None = None) -> None:
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(self.snapshot_head())
            if not self.spec.ddl_in_binlog:
                for rt in self.rows:
                    for text in self.snapshot_inserts(rt, self._initial_keys(rt)):
                        f.write(text)
            f.write(self.snapshot_tail())

    def _initial_in_binlog(self, writer: BinlogWriter) -> None:
        for db in self._databases():
            self._ddl(writer, f"CREATE DATABASE IF NOT EXISTS {qi(db)}", db)
        for db, sql in self.work.preamble:
            self._ddl(writer, sql, db)
        for rt in self.rows:
            self._ddl(writer, rt.tdef.create_sql.strip().rstrip(";"), rt.table.database)
        for tidx, rt in enumerate(self.rows):
            batch: list[tuple] = []
            for k in self._initial_keys(rt):
                batch.append(rt.compute(k, 0, 0))
                if len(batch) >= INITIAL_ROWS_PER_TXN:
                    self._write_stmts(writer, [(tidx, "insert", batch)])
                    batch = []
            if batch:
                self._write_stmts(writer, [(tidx, "insert", batch)])
