"""BinlogWriter: the only stateful part of the codec (docs/design.md principle 4).

It appends encoded events to ``<basename>.NNNNNN`` files, fills ``log_pos`` (= offset +
event_length, format.md §18.1) and CRC32s, opens every file with the magic, an FDE and the
flavor's second event (PREVIOUS_GTIDS for MySQL, GTID_LIST + BINLOG_CHECKPOINT for MariaDB),
rotates after a transaction group once a file reaches ``max_binlog_size`` (ROTATE naming the
next file), keeps ``binlog.index`` and ends the last file with STOP.

Files are written under a temporary name and renamed when complete, so a reader never sees
a half-written file under its final name (docs/output.md). While a file is open its FDE carries
``LOG_EVENT_BINLOG_IN_USE_F``; closing clears it in place (the FDE's CRC was computed with
it cleared, format.md §3). The clock is explicit: ``start_time`` then :meth:`advance`.

Where the bytes go is a :class:`Sink` (default :class:`FileSink`: the files above). A writer
can stop mid-stream and another continue exactly where it was: :meth:`BinlogWriter.state`
returns a :class:`WriterState` (frozen, picklable), :meth:`BinlogWriter.suspend` stops without
ending the current file, and :meth:`BinlogWriter.resume` (or ``state=``) starts a writer from
a state; the bytes are those of one writer doing everything.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Self

from binlogwriter.batch import BatchBuilder
from binlogwriter.errors import BinlogError
from binlogwriter.events import Event
from binlogwriter.format import BinlogFormat
from binlogwriter.sinks import FileSink, Sink
from binlogwriter.write.events import EventsMixin, gtid_source
from binlogwriter.write.files import FilesMixin
from binlogwriter.write.groups import GroupsMixin
from binlogwriter.write.ids import IdAllocator
from binlogwriter.write.state import DEFAULT_START_TIME, WriterState
from binlogwriter.write.transaction import SessionSettings

__all__ = ["BinlogWriter", "STAGE_BYTES"]

STAGE_BYTES = 4 << 20
"""A good ``stage_bytes`` for bulk writers (the generators): 4 MiB of groups per buffer."""


class BinlogWriter(FilesMixin, GroupsMixin, EventsMixin):
    """Write a sequence of binlog files.

    >>> with BinlogWriter("out", BinlogFormat.mysql80()) as w:   # doctest: +SKIP
    ...     w.write(QueryEvent(query="CREATE DATABASE d", db="d"))

    ``state``: start where another writer was (see :class:`WriterState`, :meth:`resume`);
    ``sink``: where the bytes go (default :class:`FileSink` on ``directory``).
    ``overwrite``: the default sink replaces binlog files that exist already; without it an
    existing file is an :class:`OutputExistsError` naming it (and a full disk is one
    :class:`OutputError`, the ``.part`` removed).
    ``stage_bytes``: groups are staged and encoded together until this many bytes are
    staged (see :meth:`write_group`); 0 = each group is encoded and handed to the sink
    when it is written (a sink then sees every group at once, e.g. for serving).
    ``sizes_only``: transaction groups are planned (ids, sizes, positions, rotation: all
    exact, by the batch encoder's arithmetic) but never encoded; the sink gets only the
    files' own events (header, ROTATE, STOP). For a size pass (spark_gen pass 1).

    Size: the writer's own fields, set up once in the constructor (about 70 lines of
    arguments checked and resolved), and the methods that read or set all of them at once:
    open / write, and :meth:`state` / :meth:`suspend` / :meth:`resume` (a writer's position as a
    :class:`WriterState` is these fields). Files, groups and events are in their modules.
    """

    def __init__(self, directory: str | os.PathLike, fmt: BinlogFormat, *, basename: str = "binlog",
                 server_id: int = 1, max_binlog_size: int = 1 << 30, start_time: int = DEFAULT_START_TIME,
                 first_index: int = 1, write_index: bool = True, stop_event: bool = True,
                 settings: SessionSettings | None = None, state: WriterState | None = None,
                 sink: Sink | None = None, sizes_only: bool = False, stage_bytes: int = 0,
                 overwrite: bool = False) -> None:
        if max_binlog_size < 4096:
            raise BinlogError(f"max_binlog_size must be at least 4096 bytes, got {max_binlog_size}")
        self.directory = Path(directory)
        self.fmt = fmt
        self.basename = basename
        self.server_id = server_id
        self.max_binlog_size = max_binlog_size
        self.now = start_time
        self.write_index = write_index
        self.stop_event = stop_event
        self._next_index = first_index
        self.sink: Sink = FileSink(self.directory, overwrite=overwrite) if sink is None else sink
        self.overwrite = overwrite
        self._active = False  # the sink holds the current file open
        self._resume = False  # the current file was started by another writer: continue it
        self._offset = 0
        self._name: str | None = None
        self._previous: str | None = None
        self.files: list[Path] = []
        self.events_in_file = 0
        self.closed = False
        self.settings = settings or SessionSettings()
        st = self.settings
        self.row_metadata = (st.row_metadata or ("NO_LOG" if fmt.is_mariadb else "MINIMAL")).upper()
        if self.row_metadata not in ("NO_LOG", "MINIMAL", "FULL"):
            raise BinlogError(f"unknown binlog_row_metadata {st.row_metadata!r}; expected NO_LOG, MINIMAL or FULL")
        if self.row_metadata == "NO_LOG" and not fmt.is_mariadb:
            raise BinlogError("binlog_row_metadata=NO_LOG exists only in MariaDB; MySQL has MINIMAL and FULL")
        self.rows_query = fmt.is_mariadb if st.rows_query is None else st.rows_query
        self.ids = IdAllocator(gtid_source(fmt, st, server_id), next_table_id=st.first_table_id)
        """The one owner of XIDs, GNOs, sequence numbers, MariaDB seq_no, table ids and the
        executed GTID sets (binlogwriter/write/ids.py)."""
        self._descs: dict[int, list] = {}
        self._tm_cache: dict[int, tuple[object, Event]] = {}
        self.transactions = 0
        # the next MySQL group's dependency distance (binlogwriter/logical_clock.py): 1 =
        # commit order; next_mysql_gtid uses it once and sets it back to 1
        self.clock_back: int = 1
        # MariaDB (settings.group_commit_ids): the next row group's position in its binlog
        # group commit (commit_id = seq_no - group_pos; -1: a group of one, no commit id);
        # next_mariadb_gtid sets it back to -1
        self.group_pos: int = -1
        # the next transaction continues the group commit of the one just written: no
        # rotation between them (a server rotates after a whole group); maybe_rotate clears it
        self.hold_rotation: bool = False
        self.sizes_only = sizes_only
        self.stage_bytes = stage_bytes
        self._extra: dict[int, int] = {}  # type code -> post-header bytes the format adds (see _own)
        self._pending: BatchBuilder | None = None  # groups planned, not yet encoded (see write_group)
        self._pending_at = 0  # file offset of the first pending group
        self.last_group: tuple[str | None, int, list[Event], list[int]] | None = None
        """(file, offset, events, event lengths) of the last group :meth:`write_group` placed."""
        if state is not None:
            self._restore(state)

    # clock ---------------------------------------------------------------------------------
    def advance(self, seconds: int = 1) -> int:
        """Move the writer's clock forward; returns the new time."""
        self.now += seconds
        return self.now

    # GTIDs (kept by the allocator, with the executed sets: ids.mysql_gtids / ids.mariadb_gtids)
    @property
    def last_gtid(self) -> str | None:
        """Text of the last GTID written (None: none yet, or anonymous)."""
        return self.ids.last_gtid

    # files ---------------------------------------------------------------------------------
    @property
    def current_file(self) -> str | None:
        return self._name

    @property
    def position(self) -> int:
        """Offset where the next event will go."""
        return self._offset

    # public --------------------------------------------------------------------------------
    def open(self) -> BinlogWriter:
        if not self._active and not self.closed:
            if self._resume:
                self._attach()
            else:
                self._open()
        return self

    def __enter__(self) -> BinlogWriter:
        return self.open()

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()

    def write(self, event: Event) -> int:
        """Append one event; returns its offset. ``timestamp`` None = the writer's clock."""
        if self.closed:
            raise BinlogError("writer is closed")
        self.open()
        if event.server_id is None:
            event.server_id = self.server_id
        return self._write(event, own=False)

    # state (binlogwriter/write/state.py) ---------------------------------------------------
    @classmethod
    def resume(cls, directory: str | os.PathLike, fmt: BinlogFormat, state: WriterState,
               **kwargs: Any) -> Self:
        """A writer that continues exactly where the one whose :meth:`state` this is was:
        same later bytes as if that writer had gone on. ``kwargs``: the constructor's, the
        same as the first writer's (``start_time`` and ``first_index`` are superseded by
        the state). With the default sink, the current file's ``<name>.part`` left by
        :meth:`suspend` must be in ``directory``."""
        return cls(directory, fmt, state=state, **kwargs)

    def state(self) -> WriterState:
        """Where this writer is (see :class:`WriterState`); a writer resumed from it writes
        what this one would write next."""
        if self.closed:
            raise BinlogError("writer is closed: nothing continues it")
        self.flush()
        has_file = self._active or self._resume
        ids = self.ids.state_fields()
        if not has_file:
            ids["seq_in_file"] = 0
        return WriterState(
            now=self.now, next_index=self._next_index,
            current_file=self._name if has_file else None, offset=self._offset if has_file else 0,
            events_in_file=self.events_in_file if has_file else 0,
            files=tuple(p.name for p in self.files), previous_file=self._previous,
            transactions=self.transactions, **ids)

    def _restore(self, st: WriterState) -> None:
        self.now = st.now
        self._next_index = st.next_index
        self._name = st.current_file
        self._resume = st.current_file is not None
        self._offset = st.offset
        self.events_in_file = st.events_in_file
        self.files = [self.directory / n for n in st.files]
        self._previous = st.previous_file
        self.ids = IdAllocator.from_state(self.ids.source, st)
        self.transactions = st.transactions

    def suspend(self) -> WriterState:
        """Stop without ending the current file (no ROTATE / STOP, flag still in use, the
        default sink leaves ``<name>.part``) and return the state a writer resumes from.
        This writer is closed afterwards."""
        st = self.state()
        if self._active:
            self.flush()
            self.sink.suspend()
            self._active = False
        self.closed = True
        return st
