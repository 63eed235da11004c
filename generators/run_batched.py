"""The batch write path (part of :class:`generators.engine.Run`): transactions planned,
made and encoded a batch at a time (generators/batch.py, binlogwriter/batch/columnar.py) and
written segment by segment between rotations; also what spark_gen calls to write its
partitions (:meth:`BatchedMixin.write_segments`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from binlogwriter.batch.pipeline import PipelinedSink
from binlogwriter.writer import BinlogWriter
from generators.batch import BATCH_BYTES, BATCH_TXNS, FIRST_TXNS, apply_batch, rows_batch
from generators.manifest import FileInfo
from generators.plan import ddl_after


class BatchedMixin:
    """:class:`generators.engine.Run`'s batch-path methods (uses its ``spec``, ``rows``,
    ``counts``, ``file_info``, ``spans``, ``changes``, ``progress`` and ``_bytes``)."""

    def _loop_batched(self, writer: BinlogWriter) -> None:
        """:meth:`_loop` a batch of transactions at a time (generators/batch.py): plans and
        key states applied per batch, rows made and encoded column by column, the groups
        planned by arithmetic (binlogwriter/batch/columnar.py); the ``--size`` limit cuts
        the batch where the per-transaction loop would stop, and the key state of the
        transactions after the cut is rolled back. Same bytes and truth as the
        per-transaction loop (tests/batch/test_generate_paths.py). The bytes of each batch
        are built and written on a worker thread while the next batch is made
        (binlogwriter/batch/pipeline.py)."""
        sink = writer.sink
        pipe = writer.sink = PipelinedSink(sink)  # batch k written while k + 1 is made
        try:
            self._loop_batches(writer)
            pipe.drain()
        finally:
            writer.sink = sink
            pipe.close()

    def _loop_batches(self, writer: BinlogWriter) -> None:
        s = self.spec
        total = self.planned_total()
        closed: list[int] = []
        i = 0
        while True:
            if total is not None and i >= total:
                break
            if s.size is not None and self._bytes(writer, closed) >= s.size:
                break
            if i:  # batches of about BATCH_BYTES of binlog, at most BATCH_TXNS transactions
                per = max(1.0, self._bytes(writer, closed) / i)
                hi = i + max(FIRST_TXNS, min(BATCH_TXNS, int(BATCH_BYTES / per)))
            else:  # the first one measures the bytes per transaction
                hi = FIRST_TXNS
            if s.size is not None and i:  # near the end: about what is left, not a whole batch
                hi = min(hi, i + int((s.size - self._bytes(writer, closed)) / per * 1.1) + 16)
            if total is not None:
                hi = min(hi, total)
            if s.ddl_every:
                e = s.ddl_every
                hi = min(hi, i + (e - 1 - i % e) + 1)
            done = self._batch(writer, i, hi, closed)
            lo, i = i, i + done
            if done < hi - lo:
                break
            d = ddl_after(s, i - 1)
            if d is not None:
                self.do_ddl(writer, d)
            if self.progress is not None:
                self.progress(i, self._bytes(writer, closed))
        self.planned = i
        if self.progress is not None:
            self.progress(i, self._bytes(writer, closed))

    def _batch(self, writer: BinlogWriter, lo: int, hi: int, closed: list[int]) -> int:
        """Transactions ``lo..hi-1`` as one batch; returns how many were written."""
        s = self.spec
        ab = apply_batch(self, lo, hi, writer.now)
        rb = rows_batch(self, ab, writer.now)
        keep_clock = self.plan_clock(ab, rb)
        plan = writer.plan_rows(rb)
        cut_at = None
        if s.size is not None:
            def cut_at(i: int) -> int:  # transactions that still fit under --size, from i on
                before = self._bytes(writer, closed) + np.concatenate(([0], np.cumsum(plan.sizes[i:])))[:-1]
                return i + int(np.searchsorted(before, s.size, side="left"))
        i, placed = self.write_segments(writer, plan, ab, hi - lo, cut_at)
        keep_clock(i)
        ab.keep(self, i)
        self.record_written(ab, rb, plan, placed, i)
        return i

    def plan_clock(self, ab: Any, rb: Any) -> Callable[[int], None]:
        """MySQL WRITESET (generators/writeset.py): each group's dependency distance into
        ``rb.back`` before the batch is planned (MariaDB ``--parallel-groups``: its position in
        its group commit into ``rb.group_pos``, generators/group_commit.py); returns ``keep(c)``, to call once its first
        ``c`` transactions are written (the tracker then continues after them). Without a
        tracker (commit order, MariaDB): nothing."""
        clock = self.wsclock
        if clock is None:
            return lambda c: None
        values, state_after = clock.plan_batch(len(ab.advance), ab.txn, ab.table, ab.key)
        setattr(rb, clock.batch_field, values)  # MySQL: back; MariaDB group commits: group_pos
        return lambda c: clock.commit(state_after(c))

    def record_written(self, ab: Any, rb: Any, plan: Any, placed: list[list[Any]], n: int) -> None:
        """The first ``n`` transactions of a batch are written (``placed`` by
        :meth:`write_segments`): their truth/changes and change counts."""
        if self.changes is not None and n:
            self.changes.record_batch(ab, rb, plan, placed, n)
        for tidx, kind, cnt in ab.counts(n):
            t = self.rows[tidx].table
            self.counts[f"{t.database}.{t.name}"][kind] += cnt

    def write_segments(self, writer: BinlogWriter, plan: Any, ab: Any, n: int,
                       cut_at: Callable[[int], int] | None = None) -> tuple[int, list[list[Any]]]:
        """Write the first transactions of a batch planned by ``writer.plan_rows`` (at most
        ``n``; ``cut_at(i)``: where a ``--size`` cut falls from transaction ``i`` on) segment by
        segment, each segment ending where the writer rotates (``searchsorted`` over the prefix
        sums of the group sizes: ``BinlogWriter.maybe_rotate``'s rule). Keeps the GTID
        bookkeeping per file and the spans the manifest scan skips. Returns how many were
        written and the segments ``[file, first txn, end txn, offset, first GTID, first XID]``; the
        writer's clock ends at the last written transaction's."""
        sizes = plan.sizes
        now0 = writer.now
        clock = np.cumsum(ab.advance)
        i = 0
        placed: list[list[Any]] = []
        while i < n:
            writer.prepare_planned(plan, i)  # sizes exact for the current file (tagged GTIDs)
            cut = n if cut_at is None else min(n, cut_at(i))
            if cut <= i:
                break
            ends = np.cumsum(sizes[i:cut]) + writer.position
            stop = min(cut, i + int(np.searchsorted(ends, writer.max_binlog_size, side="left")) + 1)
            writer.now = now0 + int(clock[stop - 1])  # a rotation after the segment uses its clock
            writer.open()
            seg: list[Any] = [writer.current_file, i, stop, writer.position, None, writer.ids.xid + 1]
            placed.append(seg)
            for fname, groups, first, last in writer.write_planned(plan, i, stop):
                if fname != seg[0]:
                    raise RuntimeError(f"batch segment {i}..{stop} crossed a rotation ({seg[0]} -> {fname})")
                seg[4] = first
                fi = self.file_info.setdefault(fname, FileInfo())
                fi.transactions += groups
                if first is not None:
                    if fi.first_gtid is None:
                        fi.first_gtid = first
                    fi.last_gtid = last
            a, b = int(plan.txn_first[seg[1]]), int(plan.txn_first[stop])
            if b > a:
                end = seg[3] + int(plan.ev_len[a:b].sum())
                self.spans.setdefault(seg[0], []).append((seg[3], end, b - a, end - int(plan.ev_len[b - 1])))
            i = stop
            if i >= cut:
                break
        writer.now = now0 + (int(clock[i - 1]) if i else 0)
        return i, placed
