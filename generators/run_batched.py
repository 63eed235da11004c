"""The batch write path (part of :class:`generators.engine.Run`): transactions planned,
made and encoded a batch at a time (generators/batch.py, binlogwriter/batch/columnar.py) and
written segment by segment between rotations; also what spark_gen calls to write its
partitions (:meth:`BatchedMixin.write_segments`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from binlogwriter.batch.pipeline import PipelinedSink
from binlogwriter.write.groups import held_stop
from binlogwriter.write.writer import BinlogWriter
from generators.batch import BATCH_BYTES, BATCH_TXNS, FIRST_TXNS, apply_batch, rows_batch
from generators.batch_size import MIN_TXNS, batch_txns
from generators.group_commit import GroupCommits
from generators.manifest import FileInfo
from generators.plan import ddl_after


def batch_end(spec: Any, i: int, hi: int, total: int | None) -> int:
    """``hi`` within the run (``total``) and the batch of ``i`` (a DDL ends it)."""
    if total is not None:
        hi = min(hi, total)
    if spec.ddl_every:
        e = spec.ddl_every
        hi = min(hi, i + (e - 1 - i % e) + 1)
    return hi


def release_rotation(writer: BinlogWriter) -> None:
    """The run ends: a rotation held back for a group commit continuing past the last
    transaction written (``--size``) happens now, as the server's after that group."""
    if writer.hold_rotation:
        writer.hold_rotation = False
        writer.maybe_rotate()


class BatchedMixin:
    """:class:`generators.engine.Run`'s batch-path methods (uses its ``spec``, ``rows``,
    ``counts``, ``file_info``, ``spans``, ``changes``, ``progress`` and ``_bytes``).

    Size: the batch loop holds a batch's last row transaction over to the next one when it may
    continue a MariaDB group commit (a group never straddles a rotation, issue #29), which the
    loop, the ``--size`` cut and the segment writer share; issue #30 tracks replacing the run's
    mixins with one engine object."""

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
        self.owed = False
        while True:
            if total is not None and i >= total:
                break
            if s.size is not None and self._bytes(writer, closed) >= s.size and not self.owed:
                break
            if i:  # batches of about BATCH_BYTES of binlog, at most BATCH_TXNS transactions
                per = max(1.0, self._bytes(writer, closed) / i)
                hi = i + min(BATCH_TXNS, max(MIN_TXNS, int(BATCH_BYTES / per)))
            else:  # the first one measures the bytes per transaction (fewer of a wide table's)
                hi = batch_txns(self, BATCH_BYTES, FIRST_TXNS)
            if s.size is not None and i:  # near the end: about what is left, not a whole batch
                hi = min(hi, i + int((s.size - self._bytes(writer, closed)) / per * 1.1) + 16)
            if total is not None:
                hi = min(hi, total)
            hi = max(hi, i + 1)
            if s.ddl_every:
                e = s.ddl_every
                hi = min(hi, i + (e - 1 - i % e) + 1)
            done, stopped = self._batch(writer, i, hi, closed, total)
            while not done and not stopped:  # one row transaction waiting for its successor: a longer batch
                hi = batch_end(s, i, i + 2 * (hi - i), total)
                done, stopped = self._batch(writer, i, hi, closed, total)
            _lo, i = i, i + done
            if stopped:
                break
            d = ddl_after(s, i - 1)
            if d is not None:
                self.do_ddl(writer, d)
            if self.progress is not None:
                self.progress(i, self._bytes(writer, closed))
        self.planned = i
        release_rotation(writer)
        if self.progress is not None:
            self.progress(i, self._bytes(writer, closed))

    def _batch(self, writer: BinlogWriter, lo: int, hi: int, closed: list[int],
               total: int | None) -> tuple[int, bool]:
        """Transactions ``lo..hi-1`` as one batch; returns how many were written and whether
        the run stops there (``--size``). With MariaDB group commits a last row transaction
        whose successor is not in the batch waits for the next batch (it decides whether that
        one was a group of one: generators/group_commit.py), unless the run or a DDL follows."""
        s = self.spec
        ab = apply_batch(self, lo, hi, writer.now)
        rb = rows_batch(self, ab, writer.now)
        final = (total is not None and hi >= total) or ddl_after(s, hi - 1) is not None
        keep_clock, commits = self.plan_clock(ab, rb, after=0 if final else None)
        limit = hi - lo if commits is None else commits.n_write
        plan = writer.plan_rows(rb)
        cut_at = None
        if s.size is not None:
            def cut_at(i: int) -> int:  # transactions that still fit under --size, from i on
                before = self._bytes(writer, closed) + np.concatenate(([0], np.cumsum(plan.sizes[i:])))[:-1]
                c = i + int(np.searchsorted(before, s.size, side="left"))
                return c if commits is None else commits.cut(c)
        i, placed = self.write_segments(writer, plan, ab, limit, cut_at)
        keep_clock(i)
        ab.keep(self, i)
        self.record_written(ab, rb, plan, placed, i)
        if commits is not None:
            k = int(np.searchsorted(commits.txns, i))
            self.owed = k < len(commits.txns) and int(commits.pos[k]) == 1
        return i, i < limit

    def plan_clock(self, ab: Any, rb: Any, after: int | None = 0) -> tuple[Callable[[int], None], Any]:
        """MySQL WRITESET (generators/writeset.py): each group's dependency distance into
        ``rb.back`` before the batch is planned (MariaDB ``--parallel-groups``: its position in
        its group commit into ``rb.group_pos`` and the rotations it holds back into ``rb.hold``,
        generators/group_commit.py, ``after`` as :meth:`GroupCommits.plan_commits` takes it);
        returns ``keep(c)``, to call once its first ``c`` transactions are written (the
        tracker then continues after them), and the group commits (:class:`Commits`, else
        None). Without a tracker (commit order, MariaDB): nothing."""
        clock = self.wsclock
        if clock is None:
            return (lambda c: None), None
        if isinstance(clock, GroupCommits):
            commits = clock.plan_commits(len(ab.advance), ab.txn, ab.table, ab.key, after)
            rb.group_pos, rb.hold = commits.group_pos, commits.hold
            return (lambda c: clock.commit(commits.state_after(c))), commits
        values, state_after = clock.plan_batch(len(ab.advance), ab.txn, ab.table, ab.key)
        setattr(rb, clock.batch_field, values)  # MySQL: back
        return (lambda c: clock.commit(state_after(c))), None

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
            stop = held_stop(plan, min(cut, i + int(np.searchsorted(ends, writer.max_binlog_size, side="left")) + 1),
                             cut)
            writer.now = now0 + int(clock[stop - 1])  # a rotation after the segment uses its clock
            writer.open()
            seg: list[Any] = [writer.current_file, i, stop, writer.position, None, writer.ids.next_ids().xid]
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
