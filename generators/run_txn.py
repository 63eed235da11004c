"""The per-transaction write path (part of :class:`generators.engine.Run`), the reference the
batch engine is compared with (and what spark_gen's per-transaction helpers and the
``--ddl-every`` DDL use): a plan's keys
resolved and applied (generators/keys.py), its rows as statements given to the writer, and
the truth/changes hook (the per-file GTID bookkeeping and the ``--ddl-every`` ALTER TABLEs:
generators/run_ddl.py)."""

from __future__ import annotations

import numpy as np

from binlogwriter.write.writer import BinlogWriter
from generators.group_commit import GroupCommits, commit_flags
from generators.keys import Applied, resolve_ops, step
from generators.noop import unchanged_updates
from generators.plan import TxnPlan, ddl_after, plan_transaction
from generators.rows import TableRows
from generators.run_batched import release_rotation
from generators.run_count import planned_transactions
from generators.statement_text import statement_sql
from generators.statements import statement_starts


class TransactionsMixin:
    """:class:`generators.engine.Run`'s per-transaction methods (uses its ``spec``, ``rows``,
    ``infos``, ``cursor``, ``counts``, ``file_info`` and ``changes``).

    Size: the per-transaction reference looks one transaction ahead (``_next_position``) to
    write MariaDB group commits as the batch engine does; it stays whole because property
    tests compare the batch engine with exactly this path. Issue #30 tracks the run's mixins."""

    row_txns: int = 0
    """Transactions with row changes written one by one (Spark's pass 1 numbers the change
    model's ``seq`` of each partition from them)."""

    # -- rows-query text ---------------------------------------------------------------------
    def _statement_sql(self, rt: TableRows, kind: str, rows: list) -> str:
        """The statement as a server logs it in Rows_query / Annotate_rows, with its values
        (generators/statement_text.py); only called when rows_query is on."""
        own = rt.tdef.statement_sql if rt.counted is not None else None
        if own is not None:
            return own(rt.table, kind, rows, self.spec.flavor)
        return statement_sql(rt.table, kind, rows, self.spec.flavor)

    def planned_total(self) -> int | None:
        """Transactions to plan: with ``--transactions N``, as many as make exactly N written
        (generators/run_count.py); None with ``--size``."""
        n = self.spec.transactions
        return None if n is None else planned_transactions(type(self)(self.spec, None), n)

    # -- the reference loop -----------------------------------------------------------------
    def _loop_per_transaction(self, writer: BinlogWriter) -> None:
        """The run's transactions one at a time through ``BinlogWriter.transaction()``: the
        reference the batch engine is compared with (tests/batch/test_generate_paths.py),
        reached only through ``generators.engine.PER_TRANSACTION_REFERENCE`` (a test seam);
        ``--size`` stops at the first transaction that starts at or past it."""
        s = self.spec
        n = len(self.rows)
        total = self._peek_total = self.planned_total()
        closed: list[int] = []
        i = 0
        last_report = 0
        self.owed = False
        while True:
            if total is not None and i >= total:
                break
            if s.size is not None and self._bytes(writer, closed) >= s.size and not self.owed:
                break
            plan = plan_transaction(s, n, i)
            self.transaction(writer, plan, self._apply(plan, writer.now + plan.advance))
            i += 1
            if self.progress is not None and (i - last_report >= 256):
                last_report = i
                self.progress(i, self._bytes(writer, closed))
        self.planned = i
        release_rotation(writer)
        if self.progress is not None:
            self.progress(i, self._bytes(writer, closed))

    def _next_position(self, i: int, state: object) -> int:
        """MariaDB group commits: the position the next transaction with row changes after
        ``i`` takes after ``state`` (0 when none comes before the run's end or a DDL):
        transactions ``i + 1 ..`` applied as a batch without keeping them (generators/batch.py
        ``apply_batch`` leaves the key state; the cursor is put back)."""
        from generators.batch import apply_batch
        from generators.run_batched import batch_end

        if not hasattr(self, "_peek_total"):  # not the reference loop (spark_gen's per-transaction helpers)
            return 0
        total = self._peek_total
        if ddl_after(self.spec, i) is not None:
            return 0
        w, saved = 8, self.cursor
        while True:
            hi = batch_end(self.spec, i + 1, i + 1 + w, total)
            if hi <= i + 1:
                return 0
            try:
                ab = apply_batch(self, i + 1, hi)
            finally:
                self.cursor = saved
            if len(ab.txn):
                m = ab.txn == ab.txn[0]
                return self.wsclock.next_pos(state, ab.table[m], ab.key[m])
            if hi < i + 1 + w:  # the run or a DDL ends first
                return 0
            w *= 2

    # -- one transaction ----------------------------------------------------------------------
    def _apply(self, plan: TxnPlan, now: int | None = None) -> list[Applied]:
        """Resolve the plan's keys (generators/keys.py) and apply them to the key state; an
        UPDATE that changes nothing moves the key's version but is not applied
        (generators/noop.py); ``now``: the transaction's time, kept for stamped columns
        (generators/stamps.py)."""
        applied: list[Applied] = []
        for op in resolve_ops(self.spec, self.infos, self.cursor, plan):
            rt = self.rows[op.table]
            res = step(rt.state(op.key), op.kind, op.epoch, op.inc)
            if res is None:
                continue
            st, vb, va = res
            rt.set_state(op.key, st)
            if op.kind == "update" and unchanged_updates(rt, *(np.array([x], dtype=np.int64)
                                                               for x in (op.key, vb, va, st[2])))[0]:
                continue  # the row did not change: a server logs nothing for it (generators/noop.py)
            ti, tu_b = rt.stamp(op.key)
            tu_a = tu_b
            if now is not None and rt.stamps:
                if op.kind == "insert":
                    ti, tu_a = now, -1
                elif op.kind == "update":
                    tu_a = now
                rt.set_stamps(np.array([op.key]), ti, tu_a)
            applied.append(Applied(op.seq, op.kind, op.table, op.key, vb, va, st[2], ti, tu_b, tu_a))
        return applied

    def statements(self, applied: list[Applied]) -> list[tuple[int, str, list]]:
        """Applied ops (in seq order) -> statements: consecutive ops of one table and kind
        form one statement (generators.batch.statement_starts: ascending keys for an UPDATE / DELETE, each op its own under oltp_write_only);
        rows are pure functions of (key, version, born)."""
        stmts: list[tuple[int, str, list]] = []
        kinds = {"insert": 0, "update": 1, "delete": 2}
        arr = [np.array(x, dtype=np.int64) for x in zip(*((0, a.table, kinds[a.kind], a.key, a.ver_before, a.ver_after)
                                                            for a in applied), strict=True)] \
            if applied else [np.zeros(0, np.int64)] * 6
        starts = statement_starts(self, *arr).tolist()  # generators/batch.py: the batch engine's rule
        for a, new in zip(applied, starts, strict=True):
            row = self.rows[a.table].change(a.kind, a.key, a.ver_before, a.ver_after, a.born, a.ti, a.tu_b, a.tu_a)
            if not new:
                stmts[-1][2].append(row)
            else:
                stmts.append((a.table, a.kind, [row]))
        return stmts

    def transaction(self, writer: BinlogWriter, plan: TxnPlan, applied: list[Applied]) -> None:
        """Write transaction ``plan.index`` (clock, its rows, the DDL that follows it)."""
        if plan.advance:
            writer.advance(plan.advance)
        clock = self.wsclock
        if clock is not None and applied:  # MySQL WRITESET: the group's dependency (generators/writeset.py)
            back, state = clock.plan(1, np.zeros(len(applied), dtype=np.int64),
                                     np.array([a.table for a in applied], dtype=np.int64),
                                     np.array([a.key for a in applied], dtype=np.int64))
            if isinstance(clock, GroupCommits):  # MariaDB --parallel-groups (generators/group_commit.py)
                nxt = self._next_position(plan.index, state)
                gp, hold = commit_flags(np.zeros(1, dtype=np.int64), back, 1, nxt)
                writer.group_pos, writer.hold_rotation = int(gp[0]), bool(hold[0])
                self.owed = nxt == 1  # --size: its group's second member is written too
            else:
                writer.clock_back = int(back[0])
        self._write_stmts(writer, self.statements(applied))
        if clock is not None and applied:
            clock.commit(state)
        d = ddl_after(self.spec, plan.index)
        if d is not None:
            self.do_ddl(writer, d)

    def _write_stmts(self, writer: BinlogWriter, stmts: list[tuple[int, str, list]]) -> None:
        if not stmts:
            return
        writer.open()
        fname, before = writer.current_file, writer.transactions
        with writer.transaction() as tx:
            for tidx, kind, rows in stmts:
                rt = self.rows[tidx]
                sql = self._statement_sql(rt, kind, rows) if self.spec.rows_query else None
                getattr(tx, kind)(rt.table, rows, sql=sql)
                self.counts[f"{rt.table.database}.{rt.table.name}"][kind] += len(rows)
        self._track(writer, fname, before)
        if writer.transactions != before and any(rows for _, _, rows in stmts):
            self.row_txns += 1
        self._record_changes(writer, stmts, tx, before)

    def _record_changes(self, writer: BinlogWriter, stmts: list[tuple[int, str, list]], tx, before: int) -> None:
        """truth/changes hook: once per committed transaction, right after its commit
        (generators/changes_truth.py reads the writer's ``last_group`` and ``tx``)."""
        if self.changes is not None and writer.transactions != before:
            self.changes.record(writer, stmts, tx)
