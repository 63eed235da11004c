"""BinlogWriter subclasses for a partition: the codec's own writer, started mid-run.

A partition writes transactions ``a .. b-1`` with exactly the writer the single-process
engine uses (same group encoding, GTIDs, table ids, rotation rule), after its state has been
set to what the single-process writer holds before transaction ``a`` (:class:`WriterStart`,
computed on the driver by :mod:`spark_gen.plan`). Only where bytes go differs:

* :class:`SinkWriter` counts bytes and writes nothing (pass 1: group sizes, table uses);
* :class:`ChunkWriter` writes the partition's byte range of each binlog file it touches to a
  *chunk* ``<dir>/<binlog name>`` inside a directory unique to the task attempt; the commit
  step concatenates chunks in partition order (spark_gen/commit.py).

Both rely on BinlogWriter's documented state (``_gno``, ``_xid``, ``_seq_in_file``,
``_tables``, ``_next_table_id``, GTID sets, clock); a change there shows up at once in
the byte-equality tests of tests/spark_gen.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from binlogwriter.events import RotateEvent, encode_event
from binlogwriter.format import BinlogFormat
from binlogwriter.transaction import SessionSettings
from binlogwriter.writer import BinlogWriter

__all__ = ["WriterStart", "SinkWriter", "ChunkWriter", "file_name", "header_size", "rotate_size", "gtid_text"]

_UNBOUNDED = 1 << 62


def file_name(basename: str, index: int) -> str:
    return f"{basename}.{index:06d}"


@dataclass(frozen=True)
class WriterStart:
    """The single-process writer's state before a partition's first transaction."""

    file_index: int  # file being written (1-based)
    offset: int  # position in it (its header already written)
    seq_in_file: int  # MySQL logical clock: groups already in this file
    groups: int  # groups (transactions + DDL) written before
    now: int  # the clock
    tables: tuple[tuple[tuple[str, str], Any, int], ...] = ()  # (db, name) -> (Table, table id)
    next_table_id: int = 100
    fresh: bool = False  # partition 0: open file 1 (write its header) instead of resuming


def gtid_text(w: BinlogWriter, groups: int) -> str | None:
    """``last_gtid`` of writer ``w`` after ``groups`` groups (None when there is none)."""
    if groups == 0:
        return None
    if w.fmt.is_mariadb:
        return f"{w.settings.domain_id}-{w.server_id}-{groups}"
    sid, tag = w._sid, w._tag
    if not sid:
        return None
    return f"{sid}:{tag}:{groups}" if tag else f"{sid}:{groups}"


def _inject(w: BinlogWriter, st: WriterStart) -> None:
    g = st.groups
    w.now = st.now
    w._xid = g
    w.transactions = g
    if w.fmt.is_mariadb:
        w._mariadb_seq = g
        if g:
            w.mariadb_gtids = {w.settings.domain_id: (w.server_id, g)}
    elif w._sid:
        w._gno = g
        if g:
            w.mysql_gtids = {(w._sid, w._tag): [(1, g + 1)]}
    w.last_gtid = gtid_text(w, g)
    w._tables = {key: (table, tid) for key, table, tid in st.tables}
    w._next_table_id = st.next_table_id
    w._next_index = st.file_index + (0 if st.fresh else 1)
    if st.file_index > 1:
        w.files = [Path(file_name(w.basename, st.file_index - 1))]  # "not the first file"
        w._previous = file_name(w.basename, st.file_index - 1)


class _Sink:
    def write(self, data: bytes) -> int:
        return len(data)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


class SinkWriter(BinlogWriter):
    """Encodes every group like the real writer and keeps only sizes (pass 1).

    ``sizes``: bytes of each group in order. ``uses``: table definitions in order of use,
    one entry per change of a table's definition (what the driver needs to number table
    ids as BinlogWriter.table_id does)."""

    def __init__(self, fmt: BinlogFormat, **kw: Any) -> None:
        super().__init__(Path("."), fmt, max_binlog_size=_UNBOUNDED, write_index=False, **kw)
        self.sizes: list[int] = []
        self.uses: list[tuple[tuple[str, str], Any]] = []
        self._last_use: dict[tuple[str, str], Any] = {}

    def _open(self) -> None:
        self._name = "sink"
        self._fh = _Sink()
        self._offset = 0

    def write_group(self, events) -> int:
        before = self._offset
        first = super().write_group(events)
        self.sizes.append(self._offset - before)
        return first

    def table_id(self, table) -> int:
        key = (table.database, table.name)
        last = self._last_use.get(key)
        if last is None or not (last is table or last == table):
            self._last_use[key] = table
            self.uses.append((key, table))
        return super().table_id(table)


class ChunkWriter(BinlogWriter):
    """Writes a partition's byte ranges of the binlog files into ``directory`` (one chunk
    per file, named like the file). ``pieces``: (file name, chunk path, bytes) in order."""

    def __init__(self, directory: Path, fmt: BinlogFormat, start: WriterStart, **kw: Any) -> None:
        super().__init__(directory, fmt, write_index=False, **kw)
        self.pieces: list[tuple[str, str, int]] = []
        self._header_here = False
        self._chunk_start = 0
        _inject(self, start)
        if start.fresh:
            self.open()
        else:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._name = file_name(self.basename, start.file_index)
            self._fh = open(self.directory / (self._name + ".part"), "wb")
            self._offset = start.offset
            self._chunk_start = start.offset
            self._seq_in_file = start.seq_in_file

    def _open(self) -> None:
        super()._open()
        self._header_here = True
        self._chunk_start = 0

    def _close_chunk(self) -> None:
        fh = self._fh
        fh.flush()
        if self._header_here:
            fh.seek(4 + 17)
            fh.write(b"\0\0")  # clear LOG_EVENT_BINLOG_IN_USE_F, as BinlogWriter._finish does
        os.fsync(fh.fileno())
        fh.close()
        self._fh = None
        path = self.directory / self._name
        os.replace(self.directory / (self._name + ".part"), path)
        self.pieces.append((self._name, str(path), self._offset - self._chunk_start))
        self.files.append(path)
        self._previous = self._name
        self._header_here = False

    def _finish(self, last) -> None:
        self._write(last)
        self._close_chunk()

    def suspend(self) -> None:
        """End of a partition that is not the last: close the current chunk (no event)."""
        if self._fh is not None:
            self._close_chunk()
        self.closed = True


def header_size(fmt: BinlogFormat, *, basename: str, server_id: int, settings: SessionSettings,
                file_index: int, groups_before: int) -> int:
    """Bytes of a file's magic + FDE + PREVIOUS_GTIDS / GTID_LIST + checkpoints, measured by
    letting BinlogWriter write that header into a scratch directory."""
    with tempfile.TemporaryDirectory(prefix="binlog-header-") as d:
        st = WriterStart(file_index=file_index, offset=0, seq_in_file=0, groups=groups_before, now=0,
                         fresh=True)
        w = BinlogWriter(Path(d), fmt, basename=basename, server_id=server_id, write_index=False,
                         settings=settings)
        _inject(w, st)
        w.open()
        n = w.position
        w.abort()
        return n


def rotate_size(fmt: BinlogFormat, *, basename: str, server_id: int, next_index: int) -> int:
    """Bytes of the ROTATE event that names file ``next_index``."""
    w = BinlogWriter(Path("."), fmt, basename=basename, server_id=server_id, write_index=False)
    ev = w._own(RotateEvent(server_id=server_id, position=4, next_file=file_name(basename, next_index)))
    return len(encode_event(ev, fmt, log_pos=0, timestamp=0))
