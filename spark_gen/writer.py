"""The codec's own writer, started mid-run in a partition.

A partition writes transactions ``a .. b-1`` with exactly the writer the single-process
engine uses (same group encoding, GTIDs, table ids, rotation rule), resumed
(:meth:`BinlogWriter.resume`) from the :class:`~binlogwriter.write.state.WriterState` the
single-process writer has before transaction ``a``. The driver computes a compact
:class:`WriterStart` (spark_gen.plan); :meth:`WriterStart.state` expands it. Only where
bytes go differs, through the writer's public :class:`~binlogwriter.sinks.Sink` hook:

* :class:`SinkWriter` plans groups without encoding them (pass 1: the batches' group sizes
  come from ``plan_rows`` on it — the batch planner's arithmetic — and the DDL / prologue
  groups' from its ``write_group``; it records the table uses);
* :class:`ChunkWriter` writes the partition's byte range of each binlog file it touches to a
  *chunk* ``<dir>/<binlog name>`` inside a directory unique to the task attempt; the commit
  step concatenates chunks in partition order (spark_gen/commit.py).

Only BinlogWriter's public API is used here; the byte-equality tests of tests/spark_gen
compare the result with the single-process writer's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from binlogwriter.appendfile import AppendFile, write_at
from binlogwriter.format import BinlogFormat
from binlogwriter.write.events import gtid_source
from binlogwriter.write.ids import IdAllocator
from binlogwriter.write.state import WriterState
from binlogwriter.write.transaction import SessionSettings
from binlogwriter.write.writer import STAGE_BYTES, BinlogWriter

__all__ = ["WriterStart", "SinkWriter", "ChunkWriter", "ChunkSink", "file_name", "header_size", "rotate_size"]

_UNBOUNDED = 1 << 62


def file_name(basename: str, index: int) -> str:
    return f"{basename}.{index:06d}"


@dataclass(frozen=True)
class WriterStart:
    """The single-process writer's state before a partition's first transaction, in the
    few numbers the driver computes (:meth:`state` expands it)."""

    file_index: int  # file being written (1-based)
    offset: int  # position in it (its header already written)
    seq_in_file: int  # MySQL logical clock: groups already in this file
    groups: int  # groups (transactions + DDL) written before
    now: int  # the clock
    tables: tuple[tuple[tuple[str, str], Any, int], ...] = ()  # (db, name) -> (Table, table id)
    next_table_id: int = 100
    fresh: bool = False  # partition 0: open file 1 (write its header) instead of resuming

    def state(self, fmt: BinlogFormat, *, basename: str, server_id: int, settings: SessionSettings
              ) -> WriterState:
        """The full :class:`WriterState`: its ids are the writer's own allocator's after
        ``groups`` groups (:meth:`IdAllocator.after_groups
        <binlogwriter.write.ids.IdAllocator.after_groups>`: one XID and one GTID each, in
        one server's sequence, ``seq_in_file`` of them in this file); the files before
        ``file_index`` are finished. ``fresh``: no file open, ``file_index`` is opened with
        its header. ``events_in_file`` is not tracked by the driver (0; informational only)."""
        ids = IdAllocator.after_groups(gtid_source(fmt, settings, server_id), self.groups,
                                       0 if self.fresh else self.seq_in_file, tables=self.tables,
                                       next_table_id=self.next_table_id)
        done = tuple(file_name(basename, i) for i in range(1, self.file_index))
        return WriterState(
            now=self.now,
            next_index=self.file_index if self.fresh else self.file_index + 1,
            current_file=None if self.fresh else file_name(basename, self.file_index),
            offset=0 if self.fresh else self.offset,
            files=done, previous_file=done[-1] if done else None,
            transactions=self.groups, **ids.state_fields())


class _CountingSink:
    """A :class:`~binlogwriter.sinks.Sink` that keeps nothing: ``written`` counts the
    bytes written to each file."""

    def __init__(self) -> None:
        self.written: dict[str, int] = {}
        self.name = ""

    def open(self, name: str, offset: int) -> None:
        self.name = name
        self.written.setdefault(name, 0)

    def write(self, data: bytes) -> None:
        self.written[self.name] += len(data)

    def set_final(self, pos: int, data: bytes) -> None:
        pass

    def finish(self) -> Path:
        return Path(self.name)

    def suspend(self) -> None:
        pass

    def abort(self) -> None:
        pass


class SinkWriter(BinlogWriter):
    """Plans every group like the real writer and keeps only sizes (pass 1): the sizes come
    from the batch encoder's arithmetic, the groups are never encoded (``sizes_only``).

    ``sizes``: bytes of each group in order. ``uses``: table definitions in order of use,
    one entry per change of a table's definition (what the driver needs to number table
    ids as BinlogWriter.table_id does)."""

    def __init__(self, fmt: BinlogFormat, **kw: Any) -> None:
        super().__init__(Path("."), fmt, max_binlog_size=_UNBOUNDED, write_index=False, sink=_CountingSink(),
                         sizes_only=True, **kw)
        self.sizes: list[int] = []
        self.uses: list[tuple[tuple[str, str], Any]] = []

    def write_group(self, events) -> int:
        before = self.position
        first = super().write_group(events)
        self.sizes.append(self.position - before)
        return first

    def table_id(self, table) -> int:
        before = self.ids.next_table_id
        tid = super().table_id(table)
        if self.ids.next_table_id != before:  # a new definition: the allocator gave a new id
            self.uses.append(((table.database, table.name), table))
        return tid


class ChunkSink:
    """A :class:`~binlogwriter.sinks.Sink` writing the byte range ``[offset, …)`` of each
    file the writer touches as a chunk ``<directory>/<name>`` (``<name>.part`` until done).
    A chunk's bytes are final: a suspended file's chunk is done too (the next partition
    writes the rest), and the in-use flag of the FDE is cleared in the chunk that holds the
    header. ``pieces``: (file name, chunk path, bytes) in order."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.pieces: list[tuple[str, str, int]] = []
        self._fh = None
        self._name = ""
        self._start = 0
        self._size = 0
        self._final: list[tuple[int, bytes]] = []

    def open(self, name: str, offset: int) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self._fh = AppendFile(self.directory / (name + ".part"))  # O_DIRECT past its first 64 MB
        self._name, self._start, self._size, self._final = name, offset, 0, []

    def write(self, data: bytes) -> None:
        self._fh.write(data)
        self._size += len(data)

    def set_final(self, pos: int, data: bytes) -> None:
        self._final.append((pos, data))

    def finish(self) -> Path:
        self._fh.close()
        self._fh = None
        end = self._start + self._size
        write_at(self.directory / (self._name + ".part"),
                 [(pos - self._start, data) for pos, data in self._final
                  if self._start <= pos and pos + len(data) <= end],  # the finals in this chunk
                 fsync=True)
        path = self.directory / self._name
        os.replace(self.directory / (self._name + ".part"), path)
        self.pieces.append((self._name, str(path), self._size))
        return path

    def suspend(self) -> None:
        self.finish()

    def abort(self) -> None:
        if self._fh is not None:
            try:
                self._fh.close()
            except OSError:  # buffered bytes that cannot be written any more (full disk)
                pass
            self._fh = None
            try:
                os.unlink(self.directory / (self._name + ".part"))
            except FileNotFoundError:
                pass


class ChunkWriter(BinlogWriter):
    """Writes a partition's byte ranges of the binlog files into ``directory`` (one chunk
    per file, named like the file), resumed from ``start``. ``pieces``: (file name, chunk
    path, bytes) in order. End it with :meth:`close` (last partition: STOP) or
    :meth:`suspend` (the next partition continues the file)."""

    def __init__(self, directory: Path, fmt: BinlogFormat, start: WriterStart, *, basename: str = "binlog",
                 server_id: int = 1, settings: SessionSettings | None = None, **kw: Any) -> None:
        settings = settings or SessionSettings()
        sink = ChunkSink(Path(directory))
        state = start.state(fmt, basename=basename, server_id=server_id, settings=settings)
        kw.setdefault("stage_bytes", STAGE_BYTES)
        super().__init__(directory, fmt, basename=basename, server_id=server_id, settings=settings,
                         write_index=False, state=state, sink=sink, **kw)
        self.pieces = sink.pieces
        self.open()  # the chunk exists even if the partition writes nothing


def header_size(fmt: BinlogFormat, *, basename: str, server_id: int, settings: SessionSettings,
                file_index: int, groups_before: int) -> int:
    """Bytes of a file's magic + FDE + PREVIOUS_GTIDS / GTID_LIST + checkpoints, measured by
    letting BinlogWriter open that file (into a sink that keeps nothing)."""
    st = WriterStart(file_index=file_index, offset=0, seq_in_file=0, groups=groups_before, now=0, fresh=True)
    w = BinlogWriter.resume(Path("."), fmt, st.state(fmt, basename=basename, server_id=server_id, settings=settings),
                            basename=basename, server_id=server_id, write_index=False, settings=settings,
                            sink=_CountingSink())
    w.open()
    n = w.position
    w.abort()
    return n


def rotate_size(fmt: BinlogFormat, *, basename: str, server_id: int, next_index: int) -> int:
    """Bytes of the ROTATE event that names file ``next_index``, measured by letting
    BinlogWriter rotate out of file ``next_index - 1`` (into a sink that keeps nothing)."""
    sink = _CountingSink()
    current = file_name(basename, next_index - 1)
    st = WriterState(now=0, next_index=next_index, current_file=current, offset=4)
    w = BinlogWriter.resume(Path("."), fmt, st, basename=basename, server_id=server_id, write_index=False,
                            sink=sink)
    w.rotate()
    w.abort()
    return sink.written[current]
