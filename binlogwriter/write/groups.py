"""Groups of events written together (part of binlogwriter/write/writer.py): a transaction group
staged and encoded with others (:meth:`write_group`), many groups at once, and the batch
path's planned groups (ids, sizes, positions and rotations by the batch encoder's
arithmetic, binlogwriter/batch/)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from binlogwriter.batch import BatchBuilder, plan_batch
from binlogwriter.errors import BinlogError
from binlogwriter.events import Event

if TYPE_CHECKING:
    from binlogwriter.batch.columnar import RowsBatch
    from binlogwriter.batch.columnar_encode import RowsPlan
    from binlogwriter.batch.encoder import Batch


class GroupsMixin:
    """:class:`~binlogwriter.write.writer.BinlogWriter`'s group methods.

    Size: every way of appending whole groups (one group, staged groups, planned batches) shares
    the staging buffer and the rotation rule, so they stay in one mixin.
    """

    def write_group(self, events: Iterable[Event]) -> int:
        """Append a transaction group, then rotate if the file reached max_binlog_size
        (servers rotate only between transactions). Returns the group's first offset.

        The group is planned at once by the batch encoder (:class:`BatchBuilder`: its size
        by arithmetic, so :attr:`position` and rotation are exact) and staged; staged groups
        are encoded together into one buffer and written when they reach ``stage_bytes``,
        before anything else is written, and by :meth:`flush`. An encoding error raises
        before the group is staged (the file is as it was). A leading GTID / anonymous GTID
        event gets its self-inclusive ``transaction_length`` (format.md §8)."""
        events = list(events)
        if self.closed:
            raise BinlogError("writer is closed")
        self.open()
        for ev in events:
            if ev.server_id is None:
                ev.server_id = self.server_id
            self._own(ev)
        if self._pending is None:
            self._pending = BatchBuilder(self.fmt)
            self._pending_at = self._offset
        size = self._pending.add(events, self.now)
        first = self._offset
        if first + size > 0xFFFFFFFF:
            self._pending.drop_last()
            raise BinlogError(f"a group of {size} bytes at offset {first} passes 4 GiB: log_pos would overflow")
        self.last_group = (self._name, first, events, self._pending.lengths[-len(events):] if events else [])
        self._offset += size
        self.events_in_file += len(events)
        if self._offset - self._pending_at >= self.stage_bytes:
            self.flush()
        self.maybe_rotate()
        return first

    def write_groups(self, groups: Iterable[Iterable[Event]], timestamps: list[int] | None = None) -> list[int]:
        """Append many groups at once, as given (their ids already allocated), rotating
        between groups once a file reaches max_binlog_size: the batch is planned once
        (:func:`binlogwriter.batch.plan_batch`), the rotation points are found by
        ``searchsorted`` over the prefix sums of the group sizes, and each file's share is
        encoded into one buffer. ``timestamps``: each group's clock (default: the writer's).
        Returns each group's first offset in its file.

        Groups are written as given: GTID events made beforehand by :meth:`next_mysql_gtid`
        carry the logical clock of the file that was open then, and a file opened inside the
        batch lists in its PREVIOUS_GTIDS / GTID_LIST every GTID noted so far, including the
        batch's later ones. For writer-made transactions use :meth:`commit` with
        ``stage_bytes`` (each group planned at once, encoded in batches)."""
        if self.closed:
            raise BinlogError("writer is closed")
        groups = [list(g) for g in groups]
        self.open()
        self.flush()
        for g in groups:
            for ev in g:
                if ev.server_id is None:
                    ev.server_id = self.server_id
                self._own(ev)
        batch = plan_batch(groups, self.fmt, self.now if timestamps is None else timestamps)
        firsts: list[int] = []
        sizes = batch.group_sizes
        n = len(groups)
        i = 0
        while i < n:
            ends = np.cumsum(sizes[i:]) + self._offset
            j = int(np.searchsorted(ends, self.max_binlog_size, side="left"))
            hi = min(n, i + j + 1)
            starts = ends[:hi - i] - sizes[i:hi]
            firsts.extend(int(x) for x in starts)
            self._place(batch, i, hi)
            self.maybe_rotate()
            i = hi
        return firsts

    def plan_rows(self, rb: RowsBatch) -> RowsPlan | None:
        """Plan a :class:`~binlogwriter.batch.columnar.RowsBatch` of row-change transactions
        (their group sizes exact, by arithmetic; XIDs / GTIDs given when written). The
        planner is pure (:func:`~binlogwriter.batch.columnar.plan_rows_batch` from
        ``self.ids.peek()``); the table ids it used are taken here through :meth:`table_id`. None
        when this writer's settings need the per-transaction path
        (:func:`~binlogwriter.batch.columnar.columnar_supported`)."""
        from binlogwriter.batch.columnar import columnar_supported, plan_rows_batch

        if not columnar_supported(self):
            return None
        plan = plan_rows_batch(self, rb, self.ids.peek())
        for table, tid in plan.used_tables:  # taken in the planner's order (a subclass may watch table_id)
            got = self.table_id(table)
            if got != tid:
                raise BinlogError(f"table {table.database}.{table.name}: planned with id {tid}, the writer gives {got}")
        return plan

    def prepare_planned(self, plan: RowsPlan, lo: int) -> None:
        """Make the sizes of ``plan`` from transaction ``lo`` on exact for the file being
        written (its ``sequence_number`` so far, the next GNO, the room left before
        ``max_binlog_size``): only a plan whose lengths depend on them changes (tagged
        GTIDs: :class:`~binlogwriter.batch.columnar_bound.BoundRowsPlan`). Call before reading
        ``plan.sizes[lo:]`` to find the rotation point; :meth:`write_planned` does."""
        rebase = getattr(plan, "rebase", None)
        if rebase is not None:
            self.open()
            rebase(lo, self.ids.seq_in_file, self.ids.gno, self.max_binlog_size - self._offset)

    def write_planned(self, plan: RowsPlan, lo: int, hi: int) -> list[tuple[str, int, str | None, str | None]]:
        """Write transactions ``lo..hi-1`` of a plan from :meth:`plan_rows`, rotating
        between groups once a file reaches max_binlog_size (``searchsorted`` over the prefix
        sums of the group sizes), as :meth:`commit` of each would. Each segment's encoder is
        given the allocator's next ids (:meth:`IdAllocator.next_ids
        <binlogwriter.write.ids.IdAllocator.next_ids>`) and the allocator commits what the
        segment consumes (``plan.id_count``) in one call. Returns per file written to: (file
        name, groups, first GTID, last GTID)."""
        if self.closed:
            raise BinlogError("writer is closed")
        self.open()
        self.flush()
        out = []
        sizes = plan.sizes
        i = lo
        while i < hi:
            self.prepare_planned(plan, i)
            ends = np.cumsum(sizes[i:hi]) + self._offset
            j = int(np.searchsorted(ends, self.max_binlog_size, side="left"))
            stop = held_stop(plan, min(hi, i + j + 1), hi)
            if int(ends[stop - i - 1]) > 0xFFFFFFFF:
                raise BinlogError(f"a group at offset {self._offset} passes 4 GiB: log_pos would overflow")
            groups = int(np.count_nonzero(sizes[i:stop]))
            given = self.ids.next_ids()
            first = given.source.text(given.seq if self.fmt.is_mariadb else given.gno) if groups else None
            name = self._name
            later = getattr(self.sink, "write_later", None)
            if self.sizes_only:
                pass
            elif later is None:
                data = plan.encode(i, stop, self._offset, given)
                if data:
                    self.sink.write(data)
            else:  # a pipelined sink (generators/run_batched.py) builds the bytes on its thread
                later(plan.encode_later(i, stop, self._offset, given))
            self.ids.commit(given, plan.id_count(i, stop))  # the encoder took nothing: the allocator does
            self._offset += plan.length(i, stop)
            self.events_in_file += int(plan.txn_first[stop] - plan.txn_first[i])
            self.transactions += groups
            if groups:
                out.append((name, groups, first, self.last_gtid))
            self.hold_rotation = plan.hold is not None and bool(plan.hold[stop - 1])
            self.maybe_rotate()
            i = stop
        return out

    def _place(self, batch: Batch, lo: int, hi: int) -> int:
        """Write groups ``lo..hi`` of a planned batch at the current offset."""
        first = self._offset
        data = batch.encode(lo, hi, first)
        self.sink.write(data)
        self._offset += len(data)
        self.events_in_file += batch.events_in(lo, hi)
        return first


def held_stop(plan: RowsPlan, stop: int, hi: int) -> int:
    """The end of a segment of a planned batch that would rotate after transaction
    ``stop - 1``, moved past the transactions continuing its MariaDB group commit (``plan.hold``:
    a server rotates after a whole group, sql/log.cc ``trx_group_commit_leader``), at most
    ``hi``."""
    hold = plan.hold
    if hold is None:
        return stop
    while stop < hi and hold[stop - 1]:
        stop += 1
    return stop
