"""The ``inspect`` listing of whole files, written as fast as the events allow.

:func:`write_listing` prints what :func:`binlogwriter.text.render_event` prints for every
event of the files (the **reference path**: each event decoded by the reader, then rendered),
but takes shortcuts where the text is a function of bytes already seen:

* events are framed in the listing's own loop (the rules and errors of
  :func:`~binlogwriter.read.framing.iter_frames`);
* the ``# at`` / header line is formatted from the 19-byte common header (format.md §3)
  without an event object, its middle part reused while timestamp and server id repeat;
* Query and Table_map events whose body repeats print the text rendered the first time (a
  Query's with the event's own timestamp in its ``SET TIMESTAMP`` line, the one line of it
  that is not a function of the body); a Table_map whose body equals the one the
  reading state already holds for its table id is not decoded again (decoding is a pure
  function of the body, format.md §12);
* XID events print from their 8 body bytes (format.md §10); GTID events in their common
  shapes are read by the reader's own fast GTID readers (read/fastdecode.py) and printed
  from their fields as :func:`~binlogwriter.text.render_tail` prints them;
* rows events are read with the compiled row decoders (:mod:`binlogwriter.read.rowdecode`,
  proven equal to the declarative row codec) into the present columns' values, and printed
  by the table's ``###`` printer (:mod:`binlogwriter.text.rows`) compiled once per image;
  their post-header and bitmaps are parsed once per distinct bytes (a pure function of them);
* output goes out in large chunks, runs of ASCII lines joined apart from the others.

Anything else, anything unusual (a checksum that does not match, a rows event whose table
map is missing or whose columns the compiled decoder does not take, a value the printer
rejects, any filter of :class:`~binlogwriter.read.filters.EventFilter` being active) takes
the reference path, so errors and text stay the reference path's. ``fast=False`` forces the
reference path for every event; a property test holds the two equal.

Size: the listing is one loop over the events with its caches (header text, repeated bodies,
parsed rows headers) kept on :class:`_Listing`; the per-kind shortcuts read and update that
state on the hot path #11 measures, so they stay beside the loop rather than behind a module
boundary that would pass the state through arguments.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from binlogwriter.events import has_footer
from binlogwriter.format import (
    ANNOTATE_ROWS_EVENT,
    ANONYMOUS_GTID_LOG_EVENT,
    FORMAT_DESCRIPTION_EVENT,
    GTID_LOG_EVENT,
    MARIADB_GTID_EVENT,
    PARTIAL_UPDATE_ROWS_EVENT,
    QUERY_EVENT,
    TABLE_MAP_EVENT,
    TRANSACTION_PAYLOAD_EVENT,
    XID_EVENT,
    flavor_family,
)
from binlogwriter.gtids import mariadb_gtid_text, mysql_gtid_text
from binlogwriter.layouts.header import HEADER_SIZE, HEADER_STRUCT, TIMESTAMP_AT, TYPE_AT
from binlogwriter.layouts.primitives import read_packed, uuid_text
from binlogwriter.layouts.rows import (
    COMPRESSED_TYPES,
    DELETE_TYPES,
    ROWS_TYPES,
    STMT_END_F,
    UPDATE_TYPES,
    no_image_columns,
    unsized_column,
)
from binlogwriter.read.fastdecode import mariadb_gtid_fields
from binlogwriter.read.framing import (
    CRC_RESIDUE,
    MAX_EVENT_SIZE,
    iter_frames,
    no_events_error,
)
from binlogwriter.read.places import MYSQL_GTID, rows_places_of
from binlogwriter.read.rowdecode import parse_rows_header, table_decoder
from binlogwriter.read.state import ReadState
from binlogwriter.reader import BinlogReader, RawRecord
from binlogwriter.text.event import (
    ROWS_NAMES,
    RenderOptions,
    format_time,
    gtid_kinds,
    render_event,
    render_tail,
)
from binlogwriter.text.fused import compile_rows_text
from binlogwriter.text.rows import printer, quote_ident

__all__ = ["write_listing"]

_HEAD = HEADER_STRUCT
_ROWS_ALL = frozenset(ROWS_TYPES)
_ROWS_FAST = _ROWS_ALL - {PARTIAL_UPDATE_ROWS_EVENT}
_POST = {t: rows_places_of(t, 6).post for t in ROWS_TYPES}  # the FDE's post-header length
_PLACES: dict[tuple[int, int], tuple] = {}
"""(rows type, table id size) -> (start of the post-header's end, start of the v2 extra info
or None, size of its length field, column bitmaps): read/places.rows_places_of, per event."""
_CHUNK = 2000
"""Events per write to the output."""


class _Table:
    """What the rows events of one table id need, while its Table_map stays the same."""

    __slots__ = ("tm", "cols", "printer", "decoder", "names", "family", "ok", "width", "nb", "heads", "target",
                 "headers")

    def __init__(self, tm: Any, cols: Any, verbose: int) -> None:
        self.tm, self.cols = tm, cols
        self.width = len(cols)
        self.nb = (self.width + 7) >> 3  # bytes of one column bitmap
        self.family = flavor_family(tm.flavor)
        self.names = ROWS_NAMES[self.family]
        # MariaDB old temporals without an fsp: only the declarative path decodes them
        self.ok = not any(unsized_column(c) for c in cols)
        self.printer = printer(cols, tm, verbose, self.family)
        self.decoder = table_decoder(cols)
        self.heads: dict[tuple, str] = {}
        self.target = f"{quote_ident(tm.schema)}.{quote_ident(tm.table)}"
        self.headers: dict[tuple, tuple] = {}

    def shape(self, t: int, present: tuple, after: tuple | None) -> tuple:
        """(``rows(buf, pre, mid) -> list[str]``, pre, mid): the ``###`` text of each row of
        one kind of rows event and its column bitmaps (images_text in text/rows.py), read and
        printed from the bytes by one compiled function (text/fused.py)."""
        target = self.target
        if after is not None:
            pre, mid = f"### UPDATE {target}\n### WHERE", "\n### SET"
        else:
            pre = (f"### DELETE FROM {target}\n### WHERE" if t in DELETE_TYPES
                   else f"### INSERT INTO {target}\n### SET")
            mid = None
        return compile_rows_text(self.decoder, self.printer, present, after), pre, mid

    def summary(self, t: int, tid: int, flags: int) -> str | None:
        """``Write_rows: table id N flags: STMT_END_F`` (text._rows_summary)."""
        key = (t, tid, flags & STMT_END_F)
        s = self.heads.get(key)
        if s is None:
            name = self.names.get(t) or ROWS_NAMES["mariadb"].get(t)
            if name is None:
                return None
            s = self.heads[key] = f"{name}: table id {tid}" + (" flags: STMT_END_F" if flags & STMT_END_F else "")
        return s


class _Listing:
    """The state of one listing and its event loop (see the module's Size note).

    Size: one class because every shortcut reads and updates the same caches inside the loop."""

    def __init__(self, out: TextIO, opts: RenderOptions, filt: Any, fast: bool, start: int | None = None) -> None:
        self.out, self.opts, self.filt = out, opts, filt
        self.start = start
        self.fast = fast and not (filt is not None and filt.active)
        self.verbose = opts.verbose
        self.texts: dict[tuple, str] = {}
        self.buf: list[str] = []
        self.open_rows: list[int] = []
        """Places in ``buf`` of the rows events of a statement whose STMT_END_F event has not
        been listed yet (mysqlbinlog holds them until it: :meth:`drop_open_statement`)."""
        self.annotate: list[str] | None = None
        """Under ``--database`` / ``--table``: the held Annotate_rows lines after its ``# at``."""
        self.annotate_at: int | None = None
        """Place in ``buf`` of an Annotate_rows event not yet followed by its Table_map.

        mariadb-binlog keeps the last Annotate_rows event read and prints it with the next
        Table_map it prints; a later Annotate_rows replaces it, a rows event ending its
        statement (STMT_END_F) and the end of the listing drop it (mysqlbinlog.cc,
        ``keep_annotate_event`` / ``print_annotate_event`` / ``free_annotate_event``). The
        listing prints each event at its own place (docs/output.md), so an Annotate_rows
        event that mariadb-binlog never prints keeps only its ``# at`` line here
        (:meth:`drop_annotate`)."""

    def note_rows(self, t: int, data: bytes, tid_size: int, first: int | None = None) -> None:
        """After a rows event was listed (in full or its ``# at`` only): remember its place
        until its statement's STMT_END_F event (format.md §13, rows_flags). ``first``: where
        its text starts in ``buf`` when the fast path listed it as several items (joined
        into one here, so that :meth:`drop_open_statement` can cut it to its first line)."""
        flags = int.from_bytes(data[HEADER_SIZE + rows_places_of(t, tid_size).flags:][:2], "little")
        if flags & STMT_END_F:
            self.open_rows.clear()
            self.drop_annotate()  # the statement ends: an Annotate_rows kept for it is dropped
            self.annotate = None
        else:
            buf = self.buf
            if first is not None and len(buf) > first + 1:
                buf[first:] = ["\n".join(buf[first:])]
            self.open_rows.append(len(buf) - 1)

    def drop_open_statement(self) -> None:
        """The listing ends (``--stop-position`` / ``--stop-datetime``, end of input) inside a
        statement: its rows events keep only their ``# at`` lines, as mysqlbinlog /
        mariadb-binlog print nothing of the events they hold until the statement's end."""
        for i in self.open_rows:
            self.buf[i] = self.buf[i].split("\n", 1)[0]
        self.open_rows.clear()
        self.drop_annotate()

    def drop_annotate(self) -> None:
        """The Annotate_rows event kept for the next Table_map is not printed after all (see
        :attr:`annotate_at`): only its ``# at`` line stays."""
        if self.annotate_at is not None:
            self.buf[self.annotate_at] = self.buf[self.annotate_at].split("\n", 1)[0]
            self.annotate_at = None

    def flush(self) -> None:
        buf = self.buf
        if not buf:
            return
        buf.append("")  # the last event's newline
        self.buf = []
        write = self.out.write
        if all(map(str.isascii, buf)):
            write("\n".join(buf))
            return
        # runs of ASCII lines and of other lines joined apart: one non-ASCII line would make
        # the whole chunk a wide string, every character of it copied and encoded wide
        n = len(buf)
        i = 0
        while i < n:
            a = buf[i].isascii()
            j = i + 1
            while j < n and buf[j].isascii() == a:
                j += 1
            write("\n".join(buf[i:j]) + "\n" if j < n else "\n".join(buf[i:j]))
            i = j

    # -- the reference path ------------------------------------------------------------
    def slow(self, reader: BinlogReader, rec: RawRecord, crc: int | None) -> None:
        filt = self.filt
        if filt is not None and filt.active and filt.done(int.from_bytes(rec.data[TIMESTAMP_AT:TYPE_AT], "little")):
            raise _Stop
        e = reader.decode(rec)
        if filt is not None and filt.active and not filt.shows(e, reader.state):
            # mysqlbinlog prints the position of every event in range before its filters
            # (GTID set, database, table) decide (process_event)
            self.buf.append(f"# at {rec.offset}")
            return
        lines = render_event(e, self.opts, reader.state, crc=crc)
        if filt is not None and (filt.database is not None or filt.table is not None):
            # mysqlbinlog keeps an Annotate_rows event and prints it with the first Table_map
            # that passes --database / --table (or never): its position is printed now
            if e.type_code == ANNOTATE_ROWS_EVENT and len(lines) > 1:
                self.buf.append(lines[0])
                self.annotate = lines[1:]
                return
            if e.type_code == TABLE_MAP_EVENT and self.annotate is not None:
                lines[1:1] = self.annotate
                self.annotate = None
        self.buf.append("\n".join(lines))
        if e.type_code == ANNOTATE_ROWS_EVENT:
            self.drop_annotate()  # replaced by this one before a Table_map printed it
            self.annotate_at = len(self.buf) - 1
        elif e.type_code == TABLE_MAP_EVENT:
            self.annotate_at = None  # printed with this Table_map
        if e.type_code == TRANSACTION_PAYLOAD_EVENT:
            self._payload(e, rec)

    def _payload(self, ev: Any, rec: RawRecord) -> None:
        """The events inside a TRANSACTION_PAYLOAD, each shown at the payload's position as
        mysqlbinlog does (they have no position of their own: log_pos 0, format.md §15)."""
        from binlogwriter.payload import inner_events
        from binlogwriter.read.state import ReadState

        st = ReadState()
        for _pos, _chunk, inner in inner_events(ev, rec.fmt, state=st):
            self.buf.append("\n".join(render_event(inner, self.opts, st)))

    # -- a file ------------------------------------------------------------------------
    def file(self, reader: BinlogReader, path: Any) -> None:  # noqa: C901 - one branch per shortcut
        """Every selected event of one file (BinlogReader.records: the range applies in
        every file, the format follows every FDE, read or not; a new state per file)."""
        reader.state = ReadState(reader.schemas)
        name = os.fspath(path)
        start, stop = reader.start_position, reader.stop_position
        fast = self.fast and self.start is None
        verify = reader.verify_checksum
        ranged = start is not None or stop is not None
        # --start-datetime: events before it are not read at all; the first event at or after it
        # opens the range for good, later timestamps notwithstanding (the FDE is always read:
        # mysqlbinlog's process_event)
        since = self.start
        # the events as iter_frames frames them (check_crc=False: the decoder checks CRCs)
        frames = iter_frames(path, verify_checksum=verify, check_crc=False, max_event_size=reader.max_event_size)
        try:
            self._events(reader, frames, name, verify, ranged, start, stop, since, fast)
        finally:
            frames.close()

    def _events(self, reader: BinlogReader, frames: Iterator[tuple[int, bytes, Any]], name: str,  # noqa: C901
                verify: bool, ranged: bool, start: int | None, stop: int | None, since: int | None, fast: bool) -> None:
        """List every event of ``frames`` (one file): by the shortcuts of the module docstring
        where they apply, else by the reference path (:meth:`slow`)."""
        state = reader.state
        verbose = self.verbose
        buf = self.buf
        tables: dict[int, _Table] = {}
        tm_bodies: dict[int, bytes] = {}
        unpack = _HEAD.unpack_from
        crc32 = zlib.crc32
        fmt = None
        footer = tid_size = 0
        rows_ok: frozenset = frozenset()
        xid_ok = gtid_ok = False
        last_ts = last_sid = -1
        hmid = ""
        offset = -1
        for offset, data, rfmt in frames:
            ts, t, sid, length, log_pos, _flags = unpack(data, 0)
            if ranged and self._outside(reader, offset, rfmt, start, stop):
                if stop is not None and offset >= stop:
                    break
                continue
            if len(buf) >= _CHUNK and not self.open_rows and self.annotate_at is None:
                self.flush()
                buf = self.buf
            if rfmt is not fmt:  # a new FDE: new body caches
                reader.fmt = fmt = rfmt
                footer, tid_size, rows_ok, xid_ok, gtid_ok = _fast_forms(fmt)
                tables.clear()
                tm_bodies.clear()
                self.texts.clear()
            if since is not None and t != FORMAT_DESCRIPTION_EVENT:  # --start-datetime (see :meth:`file`)
                if ts < since:
                    continue
                self.start = since = None
                fast = self.fast
            if t == FORMAT_DESCRIPTION_EVENT or not fast or (footer and verify and crc32(data) != CRC_RESIDUE):
                # FDEs (their footer is their own), a checksum error, any filter: the reference path
                self._reference(reader, RawRecord(name, offset, data, rfmt), t, tid_size, tables, tm_bodies)
                buf = self.buf
                continue
            end = length - footer
            if ts != last_ts or sid != last_sid:  # the header text between position and log_pos
                last_ts, last_sid = ts, sid
                hmid = f"\n#{format_time(ts)} server id {sid}  end_log_pos "
            if footer == 4:  # the stored CRC32, little-endian: its hex from its bytes reversed
                head = f"# at {offset}{hmid}{log_pos} CRC32 0x{data[:end - 1:-1].hex()} \t"
            elif footer:
                head = f"# at {offset}{hmid}{log_pos} CRC32 0x{int.from_bytes(data[end:], 'little'):08x} \t"
            else:
                head = f"# at {offset}{hmid}{log_pos} \t"
            if t in rows_ok:
                if self._fast_rows(state, tables, t, data, end, tid_size, verbose, head):
                    continue
            elif t == QUERY_EVENT or t == TABLE_MAP_EVENT:
                self._body_text(reader, name, offset, data, rfmt, t, end, ts, head, tid_size, tables, tm_bodies)
                continue
            elif t == MARIADB_GTID_EVENT:
                text = _mariadb_gtid_lines(data, end, fmt, sid)
                if text is not None:
                    buf.append(head + text)
                    continue
            elif t == GTID_LOG_EVENT or t == ANONYMOUS_GTID_LOG_EVENT:
                text = mysql_gtid_lines(t, data, end) if gtid_ok else None
                if text is not None:
                    buf.append(head + text)
                    continue
            elif t == XID_EVENT and end == HEADER_SIZE + 8 and xid_ok:  # XID: one u64
                buf.append(f"{head}Xid = {int.from_bytes(data[HEADER_SIZE:HEADER_SIZE + 8], 'little')}\nCOMMIT/*!*/;")
                continue
            self.slow(reader, RawRecord(name, offset, data, rfmt), int.from_bytes(data[end:], "little") if footer else None)
            buf = self.buf
            if t in _ROWS_ALL:
                self.note_rows(t, data, tid_size)
        if offset < 0:  # the magic alone: a cut file, failed as verify fails it
            raise no_events_error(name)

    def _outside(self, reader: BinlogReader, offset: int, rfmt: Any, start: int | None, stop: int | None) -> bool:
        """``--start-position`` / ``--stop-position``: whether the event at ``offset`` is out of
        the range. Before it, the event is skipped but its format is kept (a skipped FDE: rows
        of tables not seen); at or after the stop, a statement still open is dropped."""
        if start is not None and offset < start:
            reader.fmt = rfmt
            reader.state.flavor = rfmt.flavor
            return True
        if stop is not None and offset >= stop:
            self.drop_open_statement()
            return True
        return False

    def _reference(self, reader: BinlogReader, rec: RawRecord, t: int, tid_size: int, tables: dict[int, _Table],
                   tm_bodies: dict[int, bytes]) -> None:
        """An event the shortcuts do not take at all (an FDE, a checksum error, any filter):
        the reference path, with the shortcuts' caches of a Table_map's id dropped."""
        self.slow(reader, rec, _crc_of(rec))
        data = rec.data
        if t in _ROWS_ALL:
            self.note_rows(t, data, tid_size)
        if t == TABLE_MAP_EVENT and len(data) >= HEADER_SIZE + tid_size:
            tid = int.from_bytes(data[HEADER_SIZE:HEADER_SIZE + tid_size], "little")
            tables.pop(tid, None)
            tm_bodies.pop(tid, None)

    def _fast_rows(self, state: Any, tables: dict[int, _Table], t: int, data: bytes, end: int, tid_size: int,
                   verbose: int, head: str) -> bool:
        """A rows event by its Table_map's compiled decoder and ``###`` printer; False when
        they do not take it (then the reference path lists it)."""
        tid = int.from_bytes(data[HEADER_SIZE:HEADER_SIZE + tid_size], "little")
        tab = tables.get(tid)
        if tab is None or state.tables.get(tid) is not tab.tm or state.columns.get(tid) is not tab.cols:
            tab = self.table(state, tid, tables)
        if tab is None:
            return False
        buf = self.buf
        mark = len(buf)
        if not self.rows(tab, t, data, end, tid_size, tid, state, verbose, buf, head):
            return False
        if state.unknown_rows:
            _after_unknown(buf, mark, state)
        self.note_rows(t, data, tid_size, mark)
        return True

    def _body_text(self, reader: BinlogReader, name: str, offset: int, data: bytes, rfmt: Any, t: int, end: int,
                   ts: int, head: str, tid_size: int, tables: dict[int, _Table], tm_bodies: dict[int, bytes]) -> None:
        """A Query or Table_map event, listed by the text its body had before where it
        repeats. A Query's text is a function of its body but for its SET TIMESTAMP line (the
        header's timestamp, text._body): kept once per body, split there. A Table_map whose
        body differs from the one kept for its table id is decoded by the reader (which
        updates the reading state) first."""
        texts, buf = self.texts, self.buf
        body = data[HEADER_SIZE:end]
        ev = None
        if t == TABLE_MAP_EVENT:
            tid = int.from_bytes(body[:tid_size], "little")
            if tm_bodies.get(tid) != body:  # a new definition for the id: the reader decodes it
                tables.pop(tid, None)
                tm_bodies.pop(tid, None)
                ev = reader.decode(RawRecord(name, offset, data, rfmt))
                tm_bodies[tid] = body
            key: tuple = (TABLE_MAP_EVENT, body)
        else:
            split = texts.get((2, body))
            if split is not None:
                buf.append(f"{head}{split[0]}{ts}{split[1]}")
                return
            key = (2, body, ts)
        tail = texts.get(key)
        if tail is None:
            tail = self._new_tail(reader, ev, RawRecord(name, offset, data, rfmt), key, t, ts)
        buf.append(head + tail)
        if t == TABLE_MAP_EVENT:
            self.annotate_at = None  # printed with this Table_map

    def _new_tail(self, reader: BinlogReader, ev: Any, rec: RawRecord, key: tuple, t: int, ts: int) -> str:
        """A Query or Table_map body not seen yet: its text after the header tab, rendered by
        the reference path and kept under ``key`` (a Query's also split at its timestamp)."""
        if ev is None:
            ev = reader.decode(rec)
        texts = self.texts
        tail = "\n".join(render_tail(ev, self.opts, reader.state))
        if len(texts) > 4096:
            texts.clear()
        texts[key] = tail
        if t == QUERY_EVENT:
            split = _timestamp_split(tail, ts)
            if split is not None:
                texts[(2, key[1])] = split
        return tail

    def table(self, state: Any, tid: int, tables: dict[int, _Table]) -> _Table | None:
        tm = state.tables.get(tid)
        cols = state.columns.get(tid)
        if tm is None or cols is None:
            return None
        try:
            tab = tables[tid] = _Table(tm, cols, self.verbose)
        except Exception:  # noqa: BLE001 - the reference path reports what is wrong
            return None
        return tab

    @staticmethod
    def rows(tab: _Table, t: int, data: bytes, end: int, tid_size: int, tid: int, state: Any,
             verbose: int, buf: list[str], head: str) -> bool:
        """Append the header line, summary and ``###`` text of a rows event to ``buf`` (its
        lines as separate items: the listing joins them with newlines), or return False:
        the reference path prints it."""
        if not tab.ok:
            return False
        try:
            # the header (flags, extra info, width, bitmaps) parsed once per distinct bytes:
            # parse_rows_header is a pure function of them, and the rows follow them; the
            # post-header places come from the rows layout (read/places.py)
            places = _PLACES.get((t, tid_size))
            if places is None:
                pl = rows_places_of(t, tid_size)
                places = _PLACES[(t, tid_size)] = (
                    HEADER_SIZE + pl.post, None if pl.var_header is None else HEADER_SIZE + pl.var_header, pl.var_header_size,
                    2 if t in UPDATE_TYPES else 1)
            p, v, vs, images = places
            if v is not None:  # v2: the extra info counts its own length field
                p = v + (data[v] | data[v + 1] << 8 if vs == 2 else int.from_bytes(data[v:v + vs], "little"))
            if p < end and data[p] < 251:  # the column count, packed (its one-byte form inline)
                p += 1
            else:
                width = read_packed(data, p, end)
                if width is None:
                    return False
                p = width[1]
            q = p + tab.nb * images
            key = (t, data[HEADER_SIZE + tid_size:q])
            hit = tab.headers.get(key) if q <= end else None  # (past the end: CRC bytes, not bitmaps)
            h = None
            if hit is None:
                h = parse_rows_header(t, data[HEADER_SIZE:end], tid_size)
                if h.width != tab.width:
                    return False
                summary = tab.summary(t, tid, h.rows_flags)
                if summary is None:
                    return False
                hit = (*tab.shape(t, h.present, h.after), summary, h.rows_flags & STMT_END_F,
                       f"### INSERT INTO {tab.target} VALUES ()"
                       if t not in DELETE_TYPES and t not in UPDATE_TYPES else None)
                if t not in COMPRESSED_TYPES and q <= end and h.rows == data[q:end] and (
                        any(h.present) or (h.after is not None and any(h.after))):
                    if len(tab.headers) > 256:
                        tab.headers.clear()
                    tab.headers[key] = hit
                parts = hit[0](h.rows, 0, len(h.rows), hit[1], hit[2])
            else:
                parts = hit[0](data, q, end, hit[1], hit[2])
        except Exception:  # noqa: BLE001 - the reference path gives the same text or the located error
            return False
        summary, stmt_end, empty = hit[3], hit[4], hit[5]
        nrows = len(parts)
        if not parts and empty is not None:
            parts.append(empty)
            if h is not None and not h.rows and no_image_columns(h.present, h.after):
                # no column in the image and no row bytes: one row, as mariadb-binlog counts
                # it (layouts.rows.no_image_columns; such headers are never cached)
                nrows = 1
        buf.append(head + summary)
        if verbose and parts:
            buf.extend(parts)
        if stmt_end:
            total, state.pending_rows = state.pending_rows + nrows, 0
            if tab.family == "mariadb":
                buf.append(f"# Number of rows: {total}")
        else:
            state.pending_rows += nrows
        return True


def _timestamp_split(tail: str, ts: int) -> tuple[str, str] | None:
    """A Query's text (what follows the header tab) cut around the timestamp of its one
    ``SET TIMESTAMP=<ts>/*!*/;`` line, or None when that line is not there exactly once
    (the query's own text may hold one): every other line of the text comes from the body
    alone (text._summary and text._body: thread id, exec time, error code, status
    variables, database, query), so the text at another timestamp is the two parts with
    that timestamp between them."""
    needle = f"\nSET TIMESTAMP={ts}/*!*/;\n"
    if tail.count(needle) != 1 or tail.count("\nSET TIMESTAMP=") != 1:
        return None
    before, after = tail.split(needle)
    return before + "\nSET TIMESTAMP=", "/*!*/;\n" + after


def _after_unknown(buf: list[str], first: int, state: Any) -> None:
    """MariaDB, from --start-position inside a statement: the ``### Row event for unknown
    table`` text held so far (text/rows.py render_rows) starts the next ``###`` or ``# Number of
    rows`` line, with no newline between, as mariadb-binlog prints them. ``buf[first:]`` is
    the text of the rows event just listed, a line (or a row's lines) per item, its header
    and summary first."""
    for i in range(first + 1, len(buf)):
        line = buf[i]
        if line.startswith("###") or line.startswith("# Number of rows"):
            buf[i], state.unknown_rows = state.unknown_rows + line, ""
            return


def _fast_forms(fmt: Any) -> tuple[int, int, frozenset, bool, bool]:
    """What the shortcuts may take under one FDE: its footer size, its table id size, the rows
    event types whose post-header has the length the compiled decoders read, whether XID
    bodies are bare (no post-header) and GTID post-headers have their usual 42 bytes."""
    return (fmt.footer_size, fmt.table_id_size,
            frozenset(t for t in _ROWS_FAST if fmt.post_header_len(t) == _POST[t]),
            fmt.post_header_len(XID_EVENT) == 0,
            fmt.post_header_len(GTID_LOG_EVENT) == _G.post and fmt.post_header_len(ANONYMOUS_GTID_LOG_EVENT) == _G.post)


def _mariadb_gtid_lines(data: bytes, end: int, fmt: Any, sid: int) -> str | None:
    """What follows the header tab of a MariaDB GTID event in its common shapes, read as the
    reader's fast decoder reads it (format.md §8) and printed as text._summary / text._body
    print it; None for the others (XA groups): the reference path."""
    g = mariadb_gtid_fields(data, end, fmt)
    if g is None:
        return None
    seq, dom, f2, cid = g[0], g[1], g[2], g[3]
    return (f"GTID {mariadb_gtid_text(dom, sid, seq)}{'' if cid is None else f' cid={cid}'}{gtid_kinds(f2)}\n"
            f"/*M!100001 SET @@session.gtid_seq_no={seq}*//*!*/;"
            + ("" if f2 & 1 else "\nSTART TRANSACTION\n/*!*/;"))


_G = MYSQL_GTID
_TS_END = _G.ts + _G.ts_size
"""Where the immediate commit timestamp ends (an original one, when flagged, ends as far again)."""
_UUIDS: dict[bytes, str] = {}
"""A GTID's 16 source id bytes -> their text (few sources per file)."""


def mysql_gtid_lines(t: int, data: bytes, end: int) -> str | None:
    """What follows the header tab of a GTID / ANONYMOUS_GTID event (text._summary and
    text._body), read from its bytes in the shapes :func:`~binlogwriter.read.fastdecode.mysql_gtid`
    reads (format.md §8; the caller checks the 42-byte post-header), else None: flags, sid,
    gno, last_committed, sequence_number, the commit timestamps and server versions with
    their "original follows" high bit, the packed transaction length in its shortest form,
    then nothing or the commit group ticket (property-tested equal to the event's text)."""
    if end < _TS_END + 1 + _G.sv_size:
        return None
    g, sid, gno, _lt, lc, sn = _G.fixed.unpack_from(data, HEADER_SIZE)
    imm = int.from_bytes(data[_G.ts:_TS_END], "little")
    orig = 0
    p = _TS_END
    if imm >> 55:
        if end < _TS_END + _G.ts_size:
            return None
        imm &= 0x7FFFFFFFFFFFFF
        orig = int.from_bytes(data[_TS_END:_TS_END + _G.ts_size], "little")
        p = _TS_END + _G.ts_size
    if p >= end:
        return None
    b = data[p]
    if b < 251:
        tlen = b
        p += 1
    elif b == 0xFC and p + 3 <= end:
        tlen = data[p + 1] | data[p + 2] << 8
        if tlen < 251:
            return None
        p += 3
    elif b == 0xFD and p + 4 <= end:
        tlen = int.from_bytes(data[p + 1:p + 4], "little")
        if tlen < 1 << 16:
            return None
        p += 4
    elif b == 0xFE and p + 9 <= end:
        tlen = int.from_bytes(data[p + 1:p + 9], "little")
        if tlen < 1 << 24:
            return None
        p += 9
    else:
        return None
    if p + 4 > end:
        return None
    p += 8 if data[p + 3] & 0x80 else 4
    if p > end or (p != end and p + 8 != end):
        return None
    if t == ANONYMOUS_GTID_LOG_EVENT:
        nxt = "SET @@SESSION.GTID_NEXT= 'ANONYMOUS'/*!*/;"
    else:
        uuid = _UUIDS.get(sid)
        if uuid is None:
            if len(_UUIDS) > 1024:
                _UUIDS.clear()
            uuid = _UUIDS[sid] = uuid_text(sid)
        nxt = f"SET @@SESSION.GTID_NEXT= '{mysql_gtid_text(uuid, gno)}'/*!*/;"
    return (f"{'GTID' if t == GTID_LOG_EVENT else 'Anonymous_GTID'}\tlast_committed={lc}\tsequence_number={sn}"
            f"\trbr_only={'no' if g & 1 else 'yes'}\toriginal_committed_timestamp={orig or imm}"
            f"\timmediate_commit_timestamp={imm}\ttransaction_length={tlen}\n{nxt}")


def _crc_of(rec: RawRecord) -> int | None:
    """The stored CRC32 footer of a record, if it has one and it is printed: an FDE always
    carries one, but mysqlbinlog prints it only when the FDE's own checksum_alg byte (the byte
    before the footer) says CRC32, not under binlog_checksum=NONE (docs/format.md §4)."""
    if not has_footer(rec.data, rec.fmt) or (rec.data[TYPE_AT] == FORMAT_DESCRIPTION_EVENT and rec.data[-5] != 1):
        return None
    return int.from_bytes(rec.data[-4:], "little")


class _Stop(Exception):
    """``--stop-datetime`` reached."""


def write_listing(paths: Iterable[str], out: TextIO, opts: RenderOptions | None = None, *,
                  start_position: int | None = None, stop_position: int | None = None, filt: Any = None,
                  verify_checksum: bool = True, schemas: Any = None, max_event_size: int = MAX_EVENT_SIZE,
                  fast: bool = True, start_datetime: int | None = None) -> None:
    """Write the listing of ``paths`` to ``out`` (text as :func:`render_event` gives it,
    events separated by newlines). Errors are those of the reader (located DecodeError);
    everything printed before one has been written when it propagates.

    ``start_position`` applies to the first file and ``stop_position`` to the last one, as
    in mysqlbinlog / mariadb-binlog. ``filt`` (:class:`~binlogwriter.read.filters.EventFilter`)
    decides per event after its
    ``# at`` line; ``start_datetime`` (epoch seconds) skips the events before the first one at
    or after it (FDEs excepted), as mysqlbinlog / mariadb-binlog do."""
    lst = _Listing(out, opts or RenderOptions(), filt, fast, start_datetime)
    paths = list(paths)
    reader = BinlogReader(paths, verify_checksum=verify_checksum, start_position=start_position,
                          stop_position=stop_position, schemas=schemas, max_event_size=max_event_size)
    try:
        try:
            for i, p in enumerate(paths):
                # as mysqlbinlog: --start-position applies to the first file, --stop-position to
                # the last one
                reader.start_position = start_position if i == 0 else None
                reader.stop_position = stop_position if i == len(paths) - 1 else None
                lst.file(reader, p)
        except _Stop:
            pass
        lst.drop_open_statement()
    finally:
        lst.flush()
