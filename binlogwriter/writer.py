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
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from binlogwriter.batch import BatchBuilder, plan_batch
from binlogwriter.errors import BinlogError, OutputError, OutputExistsError
from binlogwriter.events import (
    ANONYMOUS_SID,
    AnonymousGtidEvent,
    BinlogCheckpointEvent,
    Event,
    FormatDescriptionEvent,
    GtidEvent,
    GtidTaggedEvent,
    MariadbGtidEvent,
    MariadbGtidListEvent,
    PreviousGtidsEvent,
    RotateEvent,
    StopEvent,
    encode_event,
)
from binlogwriter.events.table import known_post_header
from binlogwriter.format import BinlogFormat, version_tuple
from binlogwriter.layouts.header import FLAG_IGNORABLE, FLAG_IN_USE, FLAG_SUPPRESS_USE, MAGIC
from binlogwriter.transaction import SessionSettings, Transaction, ddl_events, transaction_events

__all__ = ["BinlogWriter", "WriterState", "Sink", "FileSink", "DEFAULT_START_TIME", "STAGE_BYTES",
           "parse_gtid_setting"]

DEFAULT_START_TIME = 1767225600  # 2026-01-01T00:00:00Z: deterministic unless asked otherwise
_TMP_SUFFIX = ".part"
STAGE_BYTES = 4 << 20
"""A good ``stage_bytes`` for bulk writers (the generators): 4 MiB of groups per buffer."""
_FDE_FLAGS_AT = 4 + 17  # the FDE's header flags: magic (4) + timestamp, type, server_id, length, log_pos


@dataclass(frozen=True)
class WriterState:
    """Everything a :class:`BinlogWriter` needs to continue writing exactly where another
    one was (:meth:`BinlogWriter.state`, :meth:`BinlogWriter.resume`). Frozen and picklable
    (plain values, tuples and the :class:`~binlogwriter.schema.Table` objects, frozen
    dataclasses). The defaults are a fresh writer with default arguments.

    What is *not* here comes from the resuming writer's arguments and must be the same as
    the first writer's: format, basename, server_id, max_binlog_size, settings (GTID source
    ``UUID[:tag]`` or anonymous, MariaDB domain, row metadata, …). ``start_time``,
    ``first_index`` and ``settings.first_table_id`` are superseded by the state.

    Files
        ``next_index``: number of the next file to open (``<basename>.NNNNNN``).
        ``current_file``: the file being written, its header (magic, FDE, PREVIOUS_GTIDS /
        GTID_LIST + checkpoints) already written (:attr:`header_written`); None when no file
        is open yet (the next write opens ``next_index`` and writes its header).
        ``offset``: where the next event goes in ``current_file`` (its ``log_pos`` base,
        format.md §18.1); 0 when none is open.
        ``files``: the finished files, in ``binlog.index`` order (the next header's FDE has
        ``create_timestamp`` only in the very first file, format.md §4).
        ``previous_file``: the last finished file: a MariaDB file header names it in a
        BINLOG_CHECKPOINT before its own (mariadb.md).
        ``events_in_file``: events in ``current_file`` so far (informational).

    Clock and counters
        ``now``: the writer's clock (event timestamps). ``seq_in_file``: MySQL's logical
        clock — groups already in ``current_file``; ``last_committed`` /
        ``sequence_number`` restart in each file (format.md §8). ``xid``: the last XID
        given. ``transactions``: groups written (transactions + DDL). ``last_gtid``: text of
        the last GTID written (None: none, or anonymous).

    GTIDs
        ``gno``: the last MySQL GNO given (the next GTID is ``sid[:tag]:gno+1``);
        ``mariadb_seq``: the last MariaDB seq_no given. ``mysql_gtids``: the executed set as
        ``(sid, tag, ((start, end_exclusive), …))`` entries and ``mariadb_gtids`` as
        ``(domain_id, server_id, seq_no)`` entries: what each new file's header carries,
        PREVIOUS_GTIDS (format.md §7) or GTID_LIST (mariadb.md "GTID_LIST").

    Table ids
        ``tables``: ``((db, name), Table, table_id)`` for the definition each table last
        used; ``next_table_id``: the next id to give. A table keeps its id while its
        definition is unchanged and gets a new one when it changes (mariadb.md "Table ids"),
        so the definitions are part of the state.
    """

    now: int = DEFAULT_START_TIME
    next_index: int = 1
    current_file: str | None = None
    offset: int = 0
    seq_in_file: int = 0
    events_in_file: int = 0
    files: tuple[str, ...] = ()
    previous_file: str | None = None
    xid: int = 0
    gno: int = 0
    mariadb_seq: int = 0
    mysql_gtids: tuple[tuple[str, str, tuple[tuple[int, int], ...]], ...] = ()
    mariadb_gtids: tuple[tuple[int, int, int], ...] = ()
    tables: tuple[tuple[tuple[str, str], Any, int], ...] = ()
    next_table_id: int = 100
    transactions: int = 0
    last_gtid: str | None = None

    def __post_init__(self) -> None:
        if self.current_file is None and self.offset != 0:
            raise BinlogError(f"WriterState: offset {self.offset} without a current file")
        if self.current_file is not None and self.offset < len(MAGIC):
            raise BinlogError(f"WriterState: offset {self.offset} in {self.current_file} is inside the magic")

    @property
    def header_written(self) -> bool:
        """Whether the current file's header is already written (a resumed writer continues
        that file at ``offset``) rather than still to be written (it opens ``next_index``)."""
        return self.current_file is not None


class Sink(Protocol):
    """Where a :class:`BinlogWriter`'s bytes go. The writer drives one file at a time:

    * ``open(name, offset)``: ``offset == 0``: a new file, its header comes next;
      ``offset > 0``: continue a file another writer suspended at that offset (a writer
      resumed from a :class:`WriterState`: the bytes before ``offset`` are not written here);
    * ``write(data)``: append;
    * ``set_final(pos, data)``: once the file is complete the bytes at file offset ``pos``
      must read ``data`` — the FDE's ``LOG_EVENT_BINLOG_IN_USE_F``, set while the file is
      written and cleared when it is complete (format.md §3); given for every file the
      writer opens or resumes;
    * ``finish() -> Path``: the file is complete (it ends with ROTATE or STOP);
    * ``suspend()``: the writer stops mid-file (:meth:`BinlogWriter.suspend`); another one
      continues it;
    * ``abort()``: drop what this sink wrote of the file.
    """

    def open(self, name: str, offset: int) -> None: ...

    def write(self, data: bytes) -> None: ...

    def set_final(self, pos: int, data: bytes) -> None: ...

    def finish(self) -> Path: ...

    def suspend(self) -> None: ...

    def abort(self) -> None: ...


class FileSink:
    """The default :class:`Sink`: ``<directory>/<name>``, written as ``<name>.part`` and
    renamed when complete (docs/output.md). :meth:`suspend` leaves the ``.part`` (flag in use)
    for the writer that resumes it; that writer's :meth:`open` truncates it to its offset.

    A new file whose final name exists is refused (:class:`OutputExistsError`) unless
    ``overwrite``. An ``OSError`` (full disk, no permission) removes the ``.part`` and is
    raised as one :class:`OutputError` naming the file.
    """

    def __init__(self, directory: str | os.PathLike, *, overwrite: bool = False) -> None:
        self.directory = Path(directory)
        self.overwrite = overwrite
        self._fh = None
        self._name: str | None = None
        self._final: list[tuple[int, bytes]] = []

    def _part(self) -> Path:
        return self.directory / (self._name + _TMP_SUFFIX)

    def _failed(self, what: str, exc: OSError) -> OutputError:
        """Drop the ``.part`` and describe the failure in one line."""
        path = self._part() if self._name is not None else self.directory
        self.abort()
        return OutputError(f"cannot {what} {path}: {exc.strerror or exc}", file=str(path))

    def open(self, name: str, offset: int) -> None:
        final = self.directory / name
        part = self.directory / (name + _TMP_SUFFIX)
        if offset == 0 and not self.overwrite and os.path.lexists(final):
            raise OutputExistsError(f"{final} exists; pass overwrite=True to replace it", file=str(final))
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(f"cannot create {self.directory}: {exc.strerror or exc}",
                              file=str(self.directory)) from None
        if offset == 0:
            try:
                fh = open(part, "wb")
            except OSError as exc:
                raise OutputError(f"cannot write {part}: {exc.strerror or exc}", file=str(part)) from None
        else:
            try:
                fh = open(part, "r+b")
            except FileNotFoundError:
                raise BinlogError(f"cannot resume {name}: {part} does not exist") from None
            if fh.seek(0, os.SEEK_END) < offset:
                fh.close()
                raise BinlogError(f"cannot resume {name} at offset {offset}: {part} is shorter")
            fh.truncate(offset)
            fh.seek(offset)
        self._fh, self._name, self._final = fh, name, []

    def write(self, data: bytes) -> None:
        try:
            self._fh.write(data)
        except OSError as exc:
            raise self._failed("write", exc) from None

    def set_final(self, pos: int, data: bytes) -> None:
        self._final.append((pos, data))

    def finish(self) -> Path:
        fh = self._fh
        final = self.directory / self._name
        try:
            fh.flush()
            for pos, data in self._final:
                fh.seek(pos)
                fh.write(data)
            fh.close()
            self._fh = None
            if not self.overwrite and os.path.lexists(final):  # appeared while we wrote
                raise FileExistsError(17, "the final name exists; pass overwrite=True to replace it")
            os.replace(self._part(), final)
        except FileExistsError as exc:
            self.abort()
            raise OutputExistsError(f"{final} exists; pass overwrite=True to replace it",
                                    file=str(final)) from exc
        except OSError as exc:
            raise self._failed("write", exc) from None
        return final

    def suspend(self) -> None:
        self._fh.close()
        self._fh = None

    def abort(self) -> None:
        if self._fh is not None:
            try:
                self._fh.close()
            except OSError:  # buffered bytes that cannot be written any more (full disk)
                pass
            self._fh = None
        if self._name is not None:
            try:
                os.unlink(self._part())
            except FileNotFoundError:
                pass


class BinlogWriter:
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
        # GTID state carried into the header of each new file
        self.mysql_gtids: dict[tuple[str, str], list[tuple[int, int]]] = {}  # (sid, tag) -> intervals
        self.mariadb_gtids: dict[int, tuple[int, int]] = {}  # domain -> (server_id, seq_no)
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
        self._tables: dict[tuple[str, str], tuple[object, int]] = {}
        self._next_table_id = st.first_table_id
        self._descs: dict[int, list] = {}
        self._tm_cache: dict[int, tuple[object, Event]] = {}
        self._xid = 0
        self._gno = 0
        self._seq_in_file = 0
        self._mariadb_seq = 0
        self.transactions = 0
        self.last_gtid: str | None = None
        self._sid, self._tag = parse_gtid_setting(st.gtid, fmt)
        self.sizes_only = sizes_only
        self.stage_bytes = stage_bytes
        self._extra: dict[int, int] = {}  # type code -> post-header bytes the format adds (see _own)
        self._pending: BatchBuilder | None = None  # groups planned, not yet encoded (see write_group)
        self._pending_at = 0  # file offset of the first pending group
        self.last_group: tuple[str | None, int, list[Event], list[int]] | None = None
        """(file, offset, events, event lengths) of the last group :meth:`write_group` placed."""
        if state is not None:
            self._restore(state)

    @classmethod
    def resume(cls, directory: str | os.PathLike, fmt: BinlogFormat, state: WriterState,
               **kwargs: Any) -> BinlogWriter:
        """A writer that continues exactly where the one whose :meth:`state` this is was:
        same later bytes as if that writer had gone on. ``kwargs``: the constructor's, the
        same as the first writer's (``start_time`` and ``first_index`` are superseded by
        the state). With the default sink, the current file's ``<name>.part`` left by
        :meth:`suspend` must be in ``directory``."""
        return cls(directory, fmt, state=state, **kwargs)

    # state ---------------------------------------------------------------------------------
    def state(self) -> WriterState:
        """Where this writer is (see :class:`WriterState`); a writer resumed from it writes
        what this one would write next."""
        if self.closed:
            raise BinlogError("writer is closed: nothing continues it")
        self.flush()
        has_file = self._active or self._resume
        return WriterState(
            now=self.now, next_index=self._next_index,
            current_file=self._name if has_file else None, offset=self._offset if has_file else 0,
            seq_in_file=self._seq_in_file if has_file else 0,
            events_in_file=self.events_in_file if has_file else 0,
            files=tuple(p.name for p in self.files), previous_file=self._previous,
            xid=self._xid, gno=self._gno, mariadb_seq=self._mariadb_seq,
            mysql_gtids=tuple(sorted((sid, tag, tuple(ivs)) for (sid, tag), ivs in self.mysql_gtids.items())),
            mariadb_gtids=tuple(sorted((d, s, q) for d, (s, q) in self.mariadb_gtids.items())),
            tables=tuple((key, table, tid) for key, (table, tid) in self._tables.items()),
            next_table_id=self._next_table_id, transactions=self.transactions, last_gtid=self.last_gtid)

    def _restore(self, st: WriterState) -> None:
        self.now = st.now
        self._next_index = st.next_index
        self._name = st.current_file
        self._resume = st.current_file is not None
        self._offset = st.offset
        self._seq_in_file = st.seq_in_file
        self.events_in_file = st.events_in_file
        self.files = [self.directory / n for n in st.files]
        self._previous = st.previous_file
        self._xid, self._gno, self._mariadb_seq = st.xid, st.gno, st.mariadb_seq
        self.mysql_gtids = {(sid, tag): list(ivs) for sid, tag, ivs in st.mysql_gtids}
        self.mariadb_gtids = {d: (s, q) for d, s, q in st.mariadb_gtids}
        self._tables = {key: (table, tid) for key, table, tid in st.tables}
        self._next_table_id = st.next_table_id
        self.transactions = st.transactions
        self.last_gtid = st.last_gtid

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

    # clock ---------------------------------------------------------------------------------
    def advance(self, seconds: int = 1) -> int:
        """Move the writer's clock forward; returns the new time."""
        self.now += seconds
        return self.now

    # GTID bookkeeping ------------------------------------------------------------------------
    def note_mysql_gtid(self, sid: str, gno: int, tag: str = "") -> None:
        """Record that ``sid[:tag]:gno`` was written (for later PREVIOUS_GTIDS events)."""
        ivs = self.mysql_gtids.setdefault((sid, tag), [])
        if ivs and ivs[-1][1] == gno:
            ivs[-1] = (ivs[-1][0], gno + 1)
        else:
            ivs.append((gno, gno + 1))

    def note_mariadb_gtid(self, domain_id: int, server_id: int, seq_no: int) -> None:
        self.mariadb_gtids[domain_id] = (server_id, seq_no)

    # files ---------------------------------------------------------------------------------
    @property
    def current_file(self) -> str | None:
        return self._name

    @property
    def position(self) -> int:
        """Offset where the next event will go."""
        return self._offset

    def _open(self) -> None:
        if not self.files and self.write_index:
            self._check_index()
        self._name = f"{self.basename}.{self._next_index:06d}"
        self._next_index += 1
        self.sink.open(self._name, 0)
        self._active = True
        self.sink.set_final(_FDE_FLAGS_AT, b"\0\0")  # LOG_EVENT_BINLOG_IN_USE_F cleared when complete
        self.sink.write(MAGIC)
        self._offset = 4
        self.events_in_file = 0
        first = not self.files
        fde = FormatDescriptionEvent.for_format(self.fmt, server_id=self.server_id, flags=FLAG_IN_USE,
                                                create_timestamp=self.now if first else 0)
        self._write(fde)
        self._seq_in_file = 0
        if self.fmt.is_mariadb:
            gtids = [{"domain_id": d, "server_id": s, "seq_no": q}
                     for d, (s, q) in sorted(self.mariadb_gtids.items())]
            self._write(MariadbGtidListEvent(server_id=self.server_id, gtids=gtids))
            if self._previous is not None:
                self._write(BinlogCheckpointEvent(server_id=self.server_id, log_file=self._previous))
            self._write(BinlogCheckpointEvent(server_id=self.server_id, log_file=self._name))
        else:
            sids = [(sid, tag, list(ivs)) for (sid, tag), ivs in sorted(self.mysql_gtids.items())]
            tagged = any(tag for _, tag, _ in sids)  # 8.3+: tagged format only when a tag exists
            self._write(PreviousGtidsEvent(server_id=self.server_id, flags=FLAG_IGNORABLE,
                                           gtid_set={"tagged": tagged, "sids": sids}))

    def _attach(self) -> None:
        """Continue the current file of the state this writer was resumed from."""
        self.sink.open(self._name, self._offset)
        self._active = True
        self._resume = False
        self.sink.set_final(_FDE_FLAGS_AT, b"\0\0")

    def _own(self, event: Event) -> Event:
        """Events the writer makes itself get zero bytes for any post-header the format
        declares longer than our declarations know (docs/edge-cases.md 19)."""
        t = event.type_code
        extra = self._extra.get(t)
        if extra is None:
            known = known_post_header(t, self.fmt)
            extra = self.fmt.post_header_len(t) - known if known is not None else 0
            self._extra[t] = extra
        if extra > 0 and len(event.post_header_extra) != extra:
            event.post_header_extra = b"\0" * extra
        return event

    def _write(self, event: Event, own: bool = True) -> int:
        self.flush()
        if own:
            event = self._own(event)
        offset = self._offset
        data = encode_event(event, self.fmt, offset=offset,
                            timestamp=self.now if event.timestamp is None else event.timestamp)
        self.sink.write(data)
        self._offset += len(data)
        self.events_in_file += 1
        return offset

    def _finish(self, last: Event) -> None:
        self._write(last)
        self._complete()
        self._previous = self._name

    def _complete(self) -> None:
        self.flush()
        # the sink clears LOG_EVENT_BINLOG_IN_USE_F in place (format.md §3) and renames
        final = self.sink.finish()
        self._active = False
        self.files.append(final)
        if self.write_index:
            self._write_index()

    def _check_index(self) -> None:
        """A new file set never replaces another one's ``<basename>.index`` unless
        ``overwrite`` (checked before the first file is opened, so nothing is written)."""
        index = self.directory / (self.basename + ".index")
        first = self.directory / f"{self.basename}.{self._next_index:06d}"
        if not self.overwrite and os.path.lexists(index) and not os.path.lexists(first):  # else the sink names it
            raise OutputExistsError(f"{index} exists; pass overwrite=True to replace it", file=str(index))

    def _write_index(self) -> None:
        tmp = self.directory / (self.basename + ".index" + _TMP_SUFFIX)
        try:
            tmp.write_text("".join(f"./{p.name}\n" for p in self.files))
            os.replace(tmp, self.directory / (self.basename + ".index"))
        except OSError as exc:
            try:
                tmp.unlink()
            except OSError:
                pass
            raise OutputError(f"cannot write {tmp}: {exc.strerror or exc}", file=str(tmp)) from None

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

    def flush(self) -> None:
        """Encode the staged groups into one buffer and write it (see :meth:`write_group`)."""
        b = self._pending
        if b is None:
            return
        self._pending = None
        if len(b) and not self.sizes_only:
            self.sink.write(b.finish().encode(0, len(b), self._pending_at))

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

    def plan_rows(self, rb):
        """Plan a :class:`~binlogwriter.batch.columnar.RowsBatch` of row-change transactions
        (their group sizes exact, by arithmetic; ids given when written). None when this
        writer's settings need the per-transaction path
        (:func:`~binlogwriter.batch.columnar.columnar_supported`)."""
        from binlogwriter.batch.columnar import columnar_supported, plan_rows_batch

        if not columnar_supported(self):
            return None
        return plan_rows_batch(self, rb)

    def write_planned(self, plan, lo: int, hi: int) -> list[tuple[str, int, str | None, str | None]]:
        """Write transactions ``lo..hi-1`` of a plan from :meth:`plan_rows`, rotating
        between groups once a file reaches max_binlog_size (``searchsorted`` over the prefix
        sums of the group sizes), as :meth:`commit` of each would. Returns per file written
        to: (file name, groups, first GTID, last GTID)."""
        if self.closed:
            raise BinlogError("writer is closed")
        self.open()
        self.flush()
        out = []
        sizes = plan.sizes
        i = lo
        while i < hi:
            ends = np.cumsum(sizes[i:hi]) + self._offset
            j = int(np.searchsorted(ends, self.max_binlog_size, side="left"))
            stop = min(hi, i + j + 1)
            if int(ends[stop - i - 1]) > 0xFFFFFFFF:
                raise BinlogError(f"a group at offset {self._offset} passes 4 GiB: log_pos would overflow")
            groups = int(np.count_nonzero(sizes[i:stop]))
            first = None
            if groups:
                if self.fmt.is_mariadb:
                    first = f"{self.settings.domain_id}-{self.server_id}-{self._mariadb_seq + 1}"
                elif self._sid:
                    first = f"{self._sid}:{self._gno + 1}"
            name = self._name
            data = plan.encode(i, stop, self._offset)
            if data and not self.sizes_only:
                self.sink.write(data)
            self._offset += len(data)
            self.events_in_file += int(plan.txn_first[stop] - plan.txn_first[i])
            self.transactions += groups
            if groups:
                out.append((name, groups, first, self.last_gtid))
            self.maybe_rotate()
            i = stop
        return out

    def _place(self, batch, lo: int, hi: int) -> int:
        """Write groups ``lo..hi`` of a planned batch at the current offset."""
        first = self._offset
        data = batch.encode(lo, hi, first)
        self.sink.write(data)
        self._offset += len(data)
        self.events_in_file += batch.events_in(lo, hi)
        return first

    def maybe_rotate(self) -> bool:
        if (self._active or self._resume) and self._offset >= self.max_binlog_size:
            self.rotate()
            return True
        return False

    def rotate(self) -> None:
        """Close the current file with a ROTATE naming the next one and open that one."""
        self.open()
        nxt = f"{self.basename}.{self._next_index:06d}"
        self._finish(RotateEvent(server_id=self.server_id, position=4, next_file=nxt))
        self._open()

    def close(self) -> list[Path]:
        """End the last file with STOP (unless ``stop_event=False``) and close it."""
        if self.closed:
            return self.files
        self.open()
        if self.stop_event:
            self._finish(StopEvent(server_id=self.server_id))
        else:
            self._complete()
        self.closed = True
        return self.files

    def abort(self) -> None:
        """Drop the file being written (nothing half-written stays under a final name)."""
        self._pending = None
        if self._active:
            self.sink.abort()
            self._active = False
        self.closed = True

    # transactions ---------------------------------------------------------------------------
    def column_descs(self, table) -> list:
        key = id(table)
        d = self._descs.get(key)
        if d is None or d[0] is not table:
            d = (table, tuple(table.column_descs(self.fmt.flavor)))  # a tuple: row codecs cache by it
            self._descs[key] = d
        return d[1]

    def table_id(self, table) -> int:
        """A table keeps its id while its definition is unchanged; a changed definition
        gets a new one (mariadb.md "Table ids")."""
        key = (table.database, table.name)
        cur = self._tables.get(key)
        if cur is not None and (cur[0] is table or cur[0] == table):
            return cur[1]
        tid = self._next_table_id
        self._next_table_id += 1
        self._tables[key] = (table, tid)
        return tid

    def table_map_event(self, table, table_id: int) -> Event:
        """The Table_map of ``table`` (built once per table id and definition, then reused:
        writing an event never changes it — the writer's clock is passed to the encoder)."""
        from binlogwriter.events.table_map import TableMapEvent

        cached = self._tm_cache.get(table_id)
        if cached is None or cached[0] is not table:
            ev = TableMapEvent.from_table(table, table_id, self.fmt, self.row_metadata, server_id=self.server_id)
            cached = (table, ev)
            self._tm_cache[table_id] = cached
        return cached[1]

    def next_xid(self) -> int:
        self._xid += 1
        return self._xid

    def next_mysql_gtid(self, may_have_sbr: bool = False) -> Event:
        self._seq_in_file += 1
        seq = self._seq_in_file
        common = dict(gtid_flags=1 if may_have_sbr else 0, lt_typecode=2, last_committed=seq - 1,
                      sequence_number=seq, immediate_commit_timestamp=self.now * 1_000_000,
                      transaction_length=0, immediate_server_version=self.fmt.server_version_number,
                      server_id=self.server_id)
        if not self._sid:
            self.last_gtid = None
            return AnonymousGtidEvent(sid=ANONYMOUS_SID, gno=0, **common)
        self._gno += 1
        sid, tag = self._sid, self._tag
        self.note_mysql_gtid(sid, self._gno, tag)
        if tag:
            # 8.3+: a tagged GTID is a GTID_TAGGED_LOG_EVENT (format.md §8)
            self.last_gtid = f"{sid}:{tag}:{self._gno}"
            common.pop("lt_typecode")
            return GtidTaggedEvent(sid=sid, tag=tag, gno=self._gno, **common)
        self.last_gtid = f"{sid}:{self._gno}"
        return GtidEvent(sid=sid, gno=self._gno, **common)

    def next_mariadb_gtid(self, flags2: int = 0x0C) -> Event:
        self._mariadb_seq += 1
        d = self.settings.domain_id
        self.note_mariadb_gtid(d, self.server_id, self._mariadb_seq)
        self.last_gtid = f"{d}-{self.server_id}-{self._mariadb_seq}"
        return MariadbGtidEvent(seq_no=self._mariadb_seq, domain_id=d, flags2=flags2,
                                flags=FLAG_SUPPRESS_USE, server_id=self.server_id)

    def transaction(self) -> _TxContext:
        """``with writer.transaction() as tx: tx.insert(t, rows); tx.update(...)`` — the
        group is encoded and written when the block ends without an exception."""
        return _TxContext(self)

    def commit(self, tx: Transaction) -> int | None:
        events = transaction_events(self, tx)
        if not events:
            return None
        self.transactions += 1
        return self.write_group(events)

    def ddl(self, sql: str, db: str = "") -> int:
        """A DDL statement as its own group: ``GTID · QUERY``."""
        self.transactions += 1
        return self.write_group(ddl_events(self, sql, db))


_TAG_RE = re.compile(r"^[a-z_][a-z0-9_]{0,31}$")
_UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def parse_gtid_setting(value: str, fmt: BinlogFormat) -> tuple[str, str]:
    """``anonymous``, ``UUID`` or (MySQL 8.3+) ``UUID:tag`` -> (sid, tag)."""
    v = value.strip().lower()
    if v == "anonymous":
        return "", ""
    sid, _, tag = v.partition(":")
    if not _UUID_RE.match(sid):
        raise BinlogError(f"gtid must be 'anonymous', a server UUID or UUID:tag, got {value!r}")
    if tag:
        if not _TAG_RE.match(tag):
            raise BinlogError(f"GTID tag {tag!r}: 1-32 letters, digits or '_', not starting with a digit")
        if fmt.is_mariadb or version_tuple(fmt.server_version) < (8, 3, 0):
            raise BinlogError(f"tagged GTIDs exist from MySQL 8.3 on (flavor mysql84), not in {fmt.flavor}")
    return sid, tag


class _TxContext:
    def __init__(self, writer: BinlogWriter) -> None:
        self.writer = writer
        self.tx = Transaction(writer)

    def __enter__(self) -> Transaction:
        return self.tx

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.writer.commit(self.tx)
