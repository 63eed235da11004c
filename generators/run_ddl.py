"""The ``--ddl-every`` ALTER TABLEs and the per-file transaction bookkeeping (part of
:class:`generators.engine.Run`): DDL ``d`` odd adds column ``ddl_P`` (``P = (d + 1) // 2``) to a
table chosen by hash, the next one drops it again; both engines and Spark's partitions call
these between their transactions."""

from __future__ import annotations

from binlogwriter.write.writer import BinlogWriter
from generators.hashing import hash64, salt
from generators.keys import epoch_at
from generators.manifest import FileInfo
from generators.rows import DDL_TYPES
from generators.run_snapshot import qi


class DdlMixin:
    """:class:`generators.engine.Run`'s DDL methods (uses its ``spec``, ``rows``,
    ``file_info``, ``changes`` and ``wsclock``)."""

    def _track(self, writer: BinlogWriter, fname: str, before: int) -> None:
        if writer.transactions == before:
            return
        fi = self.file_info.setdefault(fname, FileInfo())
        fi.transactions += writer.transactions - before
        if writer.last_gtid is not None:
            if fi.first_gtid is None:
                fi.first_gtid = writer.last_gtid
            fi.last_gtid = writer.last_gtid

    def _ddl(self, writer: BinlogWriter, sql: str, db: str) -> None:
        writer.open()
        fname, before = writer.current_file, writer.transactions
        writer.ddl(sql, db)
        self._track(writer, fname, before)

    def set_ddl_state(self, i: int) -> None:
        """Put the tables in the DDL state in force at transaction ``i`` (a fresh Run only):
        DDL ``d`` odd adds ``ddl_P`` (P = (d+1)//2), the next one drops it again."""
        d = epoch_at(self.spec, i)
        self.ddl_epoch = d
        if d % 2 == 1:
            p = (d + 1) // 2
            rt = self.rows[hash64(salt(self.spec.seed, "ddl"), p) % len(self.rows)]
            rt.add_column(f"ddl_{p}", DDL_TYPES[p % len(DDL_TYPES)], d)

    def do_ddl(self, writer: BinlogWriter, d: int) -> None:
        """DDL number d: odd adds column ddl_P to a table chosen by hash, even drops it."""
        p = (d + 1) // 2
        rt = self.rows[hash64(salt(self.spec.seed, "ddl"), p) % len(self.rows)]
        name = f"ddl_{p}"
        t = rt.table
        if d % 2 == 1:
            typedef = DDL_TYPES[p % len(DDL_TYPES)]
            sql = f"ALTER TABLE {qi(t.name)} ADD COLUMN {qi(name)} {typedef}"
            self.ddl_epoch = d
            rt.add_column(name, typedef, d)
        else:
            sql = f"ALTER TABLE {qi(t.name)} DROP COLUMN {qi(name)}"
            self.ddl_epoch = d
            rt.drop_column(name)
        self._ddl(writer, sql, t.database)
        if self.changes is not None:  # truth/schema_history.jsonl (generators/schema_history.py)
            self.changes.define(rt)
        if self.wsclock is not None:  # an empty writeset: the history cleared (generators/writeset.py)
            self.wsclock.barrier()
