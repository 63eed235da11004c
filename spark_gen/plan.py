"""Driver-side planning: pure functions over small per-partition summaries.

Nothing here sees a row. The driver splits transaction numbers into ranges, turns
per-partition deltas into start values by prefix scans, and walks group sizes to place
every partition in the binlog files:

* :func:`split` — partition ``p`` plans transactions ``[a_p, b_p)``;
* :func:`prefix_new` / :func:`prefix_hwm` — key cursors at each partition start
  (generators/keys.py: ``new`` is a prefix sum, ``hwm`` a prefix maximum);
* :func:`walk` — group sizes -> (file, offset, per-file logical clock, groups before) at each
  partition start, the rotation rule of BinlogWriter (rotate after the group that reaches
  ``max_binlog_size``; a new file starts with its header), and for ``--size`` the
  transaction before which the run stops (the single-process engine checks the bytes
  written before each transaction);
* :func:`number_tables` — table ids: BinlogWriter gives a table a new id whenever its
  definition differs from the one it last used; the partitions report each table's
  definitions in order of use and the driver numbers them in partition order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from binlogwriter.write.ids import GtidSource, IdAllocator
from generators.keys import KeyCursor, TableInfo

__all__ = ["split", "prefix_new", "prefix_hwm", "prefix_sum", "Summary", "Position", "WalkResult", "walk",
           "number_tables", "partition_of"]


def split(n: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` contiguous ranges covering ``[0, n)`` (sizes differ by at most one)."""
    parts = max(1, parts)
    return [(p * n // parts, (p + 1) * n // parts) for p in range(parts)]


def partition_of(starts: list[int], i: int) -> int:
    """Index of the range holding transaction ``i`` (``starts``: range starts, ascending)."""
    import bisect

    return max(0, bisect.bisect_right(starts, i) - 1)


def prefix_sum(values: list[int]) -> list[int]:
    out, acc = [], 0
    for v in values:
        out.append(acc)
        acc += v
    return out


def prefix_new(deltas: list[list[int]], ntables: int) -> list[list[int]]:
    """``new`` counters at each partition start from per-partition counts."""
    out, acc = [], [0] * ntables
    for d in deltas:
        out.append(list(acc))
        acc = [x + y for x, y in zip(acc, d, strict=True)]
    return out


def prefix_hwm(maxima: list[list[int]], infos: list[TableInfo]) -> list[list[int]]:
    """``hwm`` at each partition start: the initial one, raised by earlier partitions' maxima."""
    out, acc = [], [t.first_fresh for t in infos]
    for m in maxima:
        out.append(list(acc))
        acc = [max(x, y) for x, y in zip(acc, m, strict=True)]
    return out


def cursors(new: list[list[int]], hwm: list[list[int]]) -> list[KeyCursor]:
    return [KeyCursor(list(a), list(b)) for a, b in zip(new, hwm, strict=True)]


@dataclass
class Summary:
    """Pass 1 result of one partition: its groups' sizes in order, the first group of each
    of its transactions (``txn_first[t]``, plus one past the end), the groups written
    before its first transaction (the ``--ddl-in-binlog`` prologue, partition 0 only), and
    its table uses (see :func:`number_tables`)."""

    sizes: np.ndarray
    txn_first: np.ndarray
    prologue: int = 0
    uses: list[tuple[tuple[str, str], Any]] = field(default_factory=list)
    changes: int = 0  # row changes written
    txns: int = 0  # transactions with row changes (truth/changes: the seq where the next partition starts)
    block: str | None = None  # the partition's merged transaction block (spark_gen/partition.py merge_task)
    hist: str | None = None  # the history block of the key bucket with the same index


@dataclass(frozen=True)
class Position:
    file_index: int
    offset: int
    seq_in_file: int
    groups: int
    closed: int  # bytes of the files finished before ``file_index``

    @property
    def total(self) -> int:
        return self.closed + self.offset


@dataclass
class WalkResult:
    starts: list[Position]  # one per partition walked
    stop: int | None  # --size: first transaction not written (None: all planned are written)
    end: Position  # after the last group walked


class _Walker:
    def __init__(self, max_size: int, header_size: Callable[[int, int], int],
                 rotate_size: Callable[[int], int]) -> None:
        self.max_size = max_size
        self.header_size = header_size
        self.rotate_size = rotate_size
        self.file_index = 1
        self.offset = header_size(1, 0)
        self.seq = 0
        self.groups = 0
        self.closed = 0
        self.held = False  # the last group holds its rotation back (MariaDB group commit)

    def position(self) -> Position:
        return Position(self.file_index, self.offset, self.seq, self.groups, self.closed)

    def _rotate(self) -> None:
        self.offset += self.rotate_size(self.file_index + 1)
        self.closed += self.offset
        self.file_index += 1
        self.offset = self.header_size(self.file_index, self.groups)
        self.seq = 0

    def one(self, size: int, hold: bool = False) -> None:
        self.offset += size
        self.seq += 1
        self.groups += 1
        self.held = hold
        if self.offset >= self.max_size and not hold:
            self._rotate()

    def release(self) -> None:
        """The run ends: a rotation held back for a group commit happens now
        (generators/run_batched.py ``release_rotation``)."""
        if self.held:
            self.held = False
            if self.offset >= self.max_size:
                self._rotate()

    def many(self, sizes: np.ndarray, hold: np.ndarray | None = None) -> None:
        """Every group of ``sizes`` in order; numpy search between rotations. ``hold``: per
        group, no rotation after it (a MariaDB group commit continues: the rotation comes
        after the group's last member)."""
        m = len(sizes)
        if m == 0:
            return
        cum = np.concatenate(([0], np.cumsum(sizes, dtype=np.int64)))
        pos = 0
        while pos < m:
            # first k in (pos, m] with offset + cum[k] - cum[pos] >= max_size
            k = int(np.searchsorted(cum, self.max_size - self.offset + int(cum[pos]), side="left"))
            k = max(k, pos + 1)
            if hold is not None and k <= m:
                while k < m and hold[k - 1]:
                    k += 1
                if hold[k - 1]:  # the group goes on past these sizes
                    k = m + 1
            if k > m:
                self.offset += int(cum[m] - cum[pos])
                self.seq += m - pos
                self.groups += m - pos
                self.held = hold is not None and bool(hold[m - 1])
                return
            self.offset += int(cum[k] - cum[pos])
            self.seq += k - pos
            self.groups += k - pos
            self.held = False
            self._rotate()
            pos = k


def walk(summaries: Iterable[Summary], ranges: list[tuple[int, int]], *, max_size: int,
         size_limit: int | None, header_size: Callable[[int, int], int],
         rotate_size: Callable[[int], int], groups: Any = None) -> WalkResult:
    """Place every partition (see module docstring). ``summaries`` in partition order (an
    iterator is consumed lazily: the driver holds one partition's sizes at a time).
    ``groups``: MariaDB group commits (spark_gen/partition.py ``GroupPlan``): the commit ids'
    bytes, the rotations held back until a group's end, and a ``--size`` stop moved past the
    second member of a group whose first is written (generators/group_commit.py)."""
    w = _Walker(max_size, header_size, rotate_size)
    starts: list[Position] = []
    it: Iterator[Summary] = iter(summaries)
    for p, summ in enumerate(it):
        a, b = ranges[p]
        starts.append(w.position())
        sizes, hold, owed = summ.sizes, None, None
        if groups is not None:
            add, hold, owed = groups.partition(a, b, summ.txn_first, len(sizes))
            sizes = sizes + add
        if size_limit is None:
            w.many(sizes, hold)
            continue
        probe = _Walker(max_size, header_size, rotate_size)
        probe.__dict__.update(w.__dict__)
        probe.many(sizes, hold)
        if probe.position().total < size_limit:
            w = probe
            continue
        # the stop is in this partition (or right after it): group by group
        for g in range(summ.prologue):
            w.one(int(sizes[g]), hold is not None and bool(hold[g]))
        tf = summ.txn_first
        for t in range(b - a + 1):
            if w.position().total >= size_limit and (owed is None or not owed[t]):
                w.release()
                return WalkResult(starts, a + t, w.position())
            if t == b - a:
                break
            for g in range(int(tf[t]), int(tf[t + 1])):
                w.one(int(sizes[g]), hold is not None and bool(hold[g]))
        if w.position().total >= size_limit:  # pragma: no cover - a group's second member in the next range
            raise RuntimeError("spark_gen: a --size stop inside a group commit at a partition boundary")
        return WalkResult(starts, b, w.position())
    w.release()
    return WalkResult(starts, None, w.position())


def number_tables(uses: Iterable[list[tuple[tuple[str, str], Any]]], first_id: int
                  ) -> list[tuple[tuple[tuple[tuple[str, str], Any, int], ...], int]]:
    """Table-id state (``(key, Table, id)`` entries, next id) at each partition start: the
    uses replayed through the writer's own allocator (:meth:`IdAllocator.keyed_table_id
    <binlogwriter.write.ids.IdAllocator.keyed_table_id>`: a new id whenever a table is used with a
    definition different from the one it last used)."""
    ids = IdAllocator(GtidSource(mariadb=False, server_id=0), next_table_id=first_id)  # only table ids asked
    out = []
    for lst in uses:
        out.append((ids.table_entries(), ids.next_table_id))
        for key, table in lst:
            ids.keyed_table_id(key, table)
    return out
