"""Rows as changes: one :class:`Change` per row of every rows event (format.md §8–§13).

A change carries the operation (``insert`` / ``update`` / ``delete``), the database and table
of its Table_map, ``before`` / ``after`` dicts keyed by column name holding only the columns
present in the image (a column missing from a MINIMAL/NOBLOB image is missing from the dict;
SQL NULL is ``None``), and where it comes from: the GTID of its transaction (MySQL
``uuid:gno``, or ``uuid:tag:gno``; MariaDB ``domain-server-seq``), the XID that committed it
(None for a transaction that ends with a ``COMMIT`` query or not at all), the file, the
offset of its rows event, and that event's timestamp. The rows of a prepared XA transaction
are changes at its ``XA COMMIT`` (xid None), none at its ``XA ROLLBACK`` (read/xa.py).

Column names come from the Table_map's FULL optional metadata, else from ``schemas``
(``Table`` objects, a ``{"db.table": Table}`` dict, or a CREATE TABLE script / file);
without either, :class:`ColumnNamesError` says which table and what to pass.

The hot events are read without construct: rows events through
:mod:`binlogwriter.read.rowdecode`, GTID / XID / Query by their fixed post-headers
(format.md §8, §9, §10); Table_maps are decoded declaratively once per distinct body. Rows
of a transaction are held until its commit (to know its XID): memory is bounded by the
largest transaction, not the file.

Size (about 410 lines): the reader's own pieces — :class:`Change`, the per-table rows plans
with their emitters, :class:`TableInfo` and the event loop — share one plan/emit protocol on
the hot path #11 measures; what is not specific to changes is already elsewhere (rows headers:
read/rowsheader.py, row images: read/rowdecode.py, inline values: read/inline_values.py).
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from binlogwriter.errors import Advice, BinlogError, DecodeError
from binlogwriter.format import (  # the change loops' event types (here and read/export.py): one list
    ANNOTATE_ROWS_EVENT,
    FORMAT_DESCRIPTION_EVENT,
    GTID_TYPES,
    MARIADB_GTID_EVENT,
    PARTIAL_UPDATE_ROWS_EVENT,
    QUERY_COMPRESSED_EVENT,
    QUERY_EVENT,
    ROWS_QUERY_LOG_EVENT,
    TABLE_MAP_EVENT,
    TRANSACTION_PAYLOAD_EVENT,
    XA_PREPARE_LOG_EVENT,
    XID_EVENT,
    BinlogFormat,
    EventType,
    type_name,
)
from binlogwriter.layouts.header import HEADER_SIZE as HEADER  # the name read/export.py imports from here
from binlogwriter.layouts.header import TIMESTAMP_AT, TYPE_AT
from binlogwriter.layouts.primitives import encode_packed_int
from binlogwriter.layouts.rows import (
    COMPRESSED_TYPES,
    DELETE_TYPES,
    ROWS_TYPES,
    UPDATE_TYPES,
    V2_TYPES,
    WRITE_TYPES,
    no_image_columns,
    unsized_column,
)
from binlogwriter.read import places as _places
from binlogwriter.read.framing import MAX_EVENT_SIZE, iter_frames
from binlogwriter.read.gtidcheck import transaction_gtid
from binlogwriter.read.rowdecode import AS_DICT, TableDecoder, parse_rows_header, table_decoder
from binlogwriter.read.xa import XaHeld, xa_key
from binlogwriter.schema.source import SchemaSource

__all__ = ["Change", "ColumnNamesError", "SchemaSource", "iter_changes", "TableInfo", "MODEL_FIELDS"]

LOOP_EVENTS = (ANNOTATE_ROWS_EVENT, FORMAT_DESCRIPTION_EVENT, MARIADB_GTID_EVENT, PARTIAL_UPDATE_ROWS_EVENT,
               QUERY_COMPRESSED_EVENT, QUERY_EVENT, ROWS_QUERY_LOG_EVENT, TABLE_MAP_EVENT, TRANSACTION_PAYLOAD_EVENT,
               XA_PREPARE_LOG_EVENT, XID_EVENT, GTID_TYPES, ROWS_TYPES, UPDATE_TYPES, V2_TYPES)
"""The event types the change loops dispatch on — :func:`iter_changes` here and the export's
frame loop (read/export.py), which imports them from this module: one list of them, in one
place (the constants themselves are format.py's and layouts/rows.py's)."""

_Q_DB_LEN = HEADER + _places.QUERY_POST["_db_len"][0]
_Q_SV_LEN = HEADER + _places.QUERY_POST["_status_vars_len"][0]
_Q_POST = _places.QUERY_POST[""][1]
_UPDATES = frozenset(UPDATE_TYPES)
_COMPRESSED = frozenset(COMPRESSED_TYPES)


class ColumnNamesError(DecodeError):
    """Column names are needed but neither the Table_map nor a schema gives them."""

    advice = Advice("schemas", "pass schemas= (Table objects or a CREATE TABLE file)")


MODEL_FIELDS = ("seq", "row", "op", "database", "table", "before", "after", "before_row", "after_row", "gtid", "xid",
                "file", "position", "transaction_position", "timestamp")
"""The change model's keys (issue #31 §1, docs/output.md "The change model"), in order."""


@dataclass(slots=True)
class Change:
    """One row change in the change model's names (docs/output.md "The change model").

    ``before`` / ``after``: column name -> value, image columns only (absent key: not in the
    image; ``None``: SQL NULL). ``seq`` is the 0-based index of the change's transaction among
    the transactions with row changes read (from the first file given: it is the run's
    ``seq`` when reading starts at the run's first file and position), ``row`` the change's
    0-based index inside its transaction, ``transaction_position`` the offset of the
    transaction's first event (its GTID event; BEGIN without one). ``file`` is the path as
    given; :meth:`as_dict` gives the model dict (``file`` as a basename, ``before_row`` /
    ``after_row`` None: a reader knows only the images).

    Changed in the change model: ``row`` used to be the index inside the rows event; that
    index is now ``event_row`` (no alias is kept: the name ``row`` belongs to the model)."""

    op: str
    database: str
    table: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    gtid: str | None
    xid: int | None
    file: str
    position: int
    timestamp: int
    event_row: int = 0
    """Index of the row within its rows event (what Debezium calls ``source.row``)."""
    seq: int | None = None
    row: int = 0
    transaction_position: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """The change as the change model's dict (keys :data:`MODEL_FIELDS`, in that order);
        values as decoded (not in canonical form)."""
        return {"seq": self.seq, "row": self.row, "op": self.op, "database": self.database, "table": self.table,
                "before": self.before, "after": self.after, "before_row": None, "after_row": None,
                "gtid": self.gtid, "xid": self.xid, "file": os.path.basename(self.file), "position": self.position,
                "transaction_position": self.transaction_position, "timestamp": self.timestamp}


class RowsPlan:
    """What decoding a rows event of one table with one pair of column bitmaps needs: the
    compiled image decoders — as dicts by name (``bdict`` / ``adict``), present columns only
    (``bimg`` / ``aimg``), full width with None (``bfull`` / ``afull``), each compiled when
    first asked — names, and ``emit``, which appends the event's changes to a transaction's
    list."""

    __slots__ = ("present", "after", "bnames", "anames", "bdict", "adict", "emit", "_dec")

    def __init__(self, info: TableInfo, present: tuple, after: tuple | None, t: int | None = None) -> None:
        dec = info.decoder
        assert dec is not None
        self._dec = dec
        self.present, self.after = present, after
        self.bnames = info.image_names(present)
        self.bdict = dec.image(present, AS_DICT)
        if after is not None:
            self.anames = info.image_names(after)
            self.adict = dec.image(after, AS_DICT)
            if t == EventType.PARTIAL_UPDATE_ROWS_EVENT:  # JSON diffs stay JsonPartial values
                self.adict = _partial_after(info.cols, after, self.anames)
        else:
            self.anames = self.adict = None
        self.emit = None if t is None else _emitter(_OPS[t], info.database, info.table, self.bdict, self.adict,
                                                    no_image_columns(present, after))

    # (TableDecoder.image compiles a decoder once per bitmap and fill, then hands it out)
    @property
    def bimg(self) -> Any:
        return self._dec.image(self.present)

    @property
    def aimg(self) -> Any:
        return None if self.after is None else self._dec.image(self.after)

    @property
    def bfull(self) -> Any:
        return self._dec.image(self.present, None)

    @property
    def afull(self) -> Any:
        return None if self.after is None else self._dec.image(self.after, None)


def _emitter(op: str, db: str, tb: str, bimg: Any, aimg: Any, empty: bool = False) -> Any:
    """``emit(rows bytes, changes, gtid, file, offset, timestamp)``: one Change per row image
    (pair of images for an update) appended to ``changes`` (format.md §13). ``empty``: no
    column in any image — the event (no row bytes: parse_rows_header refuses any) is one row
    with empty images, as the server writes and applies it (layouts.rows.no_image_columns)."""
    new = Change

    if empty:
        def emit(buf: bytes, out: list, gtid: str | None, name: str, offset: int, ts: int) -> None:
            out.append(new(op, db, tb, None if op == "insert" else {}, None if op == "delete" else {}, gtid, None,
                           name, offset, ts, 0))
    elif aimg is not None:
        def emit(buf: bytes, out: list, gtid: str | None, name: str, offset: int, ts: int) -> None:
            n, pos, r, app = len(buf), 0, 0, out.append
            while pos < n:
                bv, _, pos = bimg(buf, pos)
                av, _, pos = aimg(buf, pos)
                app(new(op, db, tb, bv, av, gtid, None, name, offset, ts, r))
                r += 1
    elif op == "insert":
        def emit(buf: bytes, out: list, gtid: str | None, name: str, offset: int, ts: int) -> None:
            n, pos, r, app = len(buf), 0, 0, out.append
            while pos < n:
                v, _, pos = bimg(buf, pos)
                app(new(op, db, tb, None, v, gtid, None, name, offset, ts, r))
                r += 1
    else:
        def emit(buf: bytes, out: list, gtid: str | None, name: str, offset: int, ts: int) -> None:
            n, pos, r, app = len(buf), 0, 0, out.append
            while pos < n:
                v, _, pos = bimg(buf, pos)
                app(new(op, db, tb, v, None, gtid, None, name, offset, ts, r))
                r += 1
    return emit


class TableInfo:
    """One Table_map's table, its column descriptions and compiled decoder."""

    __slots__ = ("database", "table", "key", "cols", "decoder", "names", "_names_by_image", "error", "event",
                 "error_class", "_headers", "_wlen", "_nb")

    def __init__(self, database: str, table: str, cols: tuple, event: Any, error: str | None = None,
                 error_class: type[DecodeError] = DecodeError) -> None:
        self.database = database
        self.error_class = error_class
        self.table = table
        self.key = f"{database}.{table}"
        self.cols = cols
        self.event = event
        self.error = error
        self.decoder: TableDecoder | None = table_decoder(cols) if cols and error is None else None
        self.names = tuple(c.name for c in cols)
        self._names_by_image: dict[tuple, tuple] = {}
        self._headers: dict[tuple, tuple] = {}
        n = len(cols)
        self._wlen = len(encode_packed_int(n))
        self._nb = (n + 7) >> 3

    def rows_header(self, t: int, data: bytes, end: int, tid_size: int) -> tuple[RowsPlan, bytes]:
        """(plan, rows bytes) of a rows event of this table (format.md §13).

        The bytes from the flags to the end of the column bitmaps are looked up in a cache
        filled by the full parser (:func:`parse_rows_header`), which checks them once."""
        pl = _places.rows_places_of(t, tid_size)
        vh = pl.var_header
        if vh is None:
            k = q = HEADER + pl.post
        else:
            k = HEADER + vh
            q = k + (data[k] | data[k + 1] << 8)
        q += self._wlen + (self._nb << 1 if t in _UPDATES else self._nb)
        key = (t, data[k:q])
        hit = self._headers.get(key) if q <= end else None  # (past the end: CRC bytes, not bitmaps)
        if hit is None:
            h = parse_rows_header(t, data[HEADER:end], tid_size, exact=False)  # any valid zlib stream
            if h.width != len(self.cols):
                raise DecodeError(f"rows event has {h.width} columns, its Table_map {len(self.cols)}")
            plan = RowsPlan(self, h.present, h.after, t)
            if (len(data) - len(h.rows) - (len(data) - end) != q or t in _COMPRESSED
                    or not any(h.present) and not (h.after is not None and any(h.after))):
                # (a header with no column in its images is not cached: parse_rows_header
                # refuses it as soon as it has rows)
                return plan, h.rows
            if len(self._headers) > 256:
                self._headers.clear()
            hit = self._headers[key] = plan
        return hit, data[q:end]

    def image_names(self, present: tuple) -> tuple:
        names = self._names_by_image.get(present)
        if names is None:
            names = self._names_by_image[present] = tuple(
                n for n, p in zip(self.names, present, strict=True) if p)
        return names


def table_info(ev: Any, schemas: SchemaSource | None, flavor: str) -> TableInfo:
    """A :class:`TableInfo` for a decoded TableMapEvent (columns merged with the schema)."""
    schema = schemas.find(ev.schema, ev.table, flavor) if schemas else None
    try:
        cols = tuple(ev.column_descs(schema))
    except BinlogError as exc:
        return TableInfo(ev.schema, ev.table, (), ev, f"table {ev.schema}.{ev.table}: {exc}")
    err = None
    if any(c.name is None for c in cols):
        err = (f"table {ev.schema}.{ev.table}: the Table_map carries no column names "
               "(binlog_row_metadata is not FULL)")
    elif any(unsized_column(c) for c in cols):
        err = (f"table {ev.schema}.{ev.table}: MariaDB old TIME/DATETIME/TIMESTAMP columns need their "
               "fsp from a schema")
    try:
        return TableInfo(ev.schema, ev.table, cols, ev, err, ColumnNamesError)
    except BinlogError as exc:  # metadata no codec accepts: its rows events raise, located
        return TableInfo(ev.schema, ev.table, (), ev, f"table {ev.schema}.{ev.table}: {exc}")


_OPS = {**{t: "insert" for t in WRITE_TYPES}, **{t: "update" for t in UPDATE_TYPES},
        **{t: "delete" for t in DELETE_TYPES}}


class Reader:
    """The per-file state of the changes loop.

    Size: the per-event handlers (query, table map, rows, the slow path) of one file's loop,
    sharing that file's state.
    """

    def __init__(self, schemas: SchemaSource | None) -> None:
        self.schemas = schemas
        self.tm_cache: dict[bytes, TableInfo] = {}
        self.xa = XaHeld()
        """Changes of prepared XA transactions until their XA COMMIT / ROLLBACK (read/xa.py),
        across files."""
        self.seq = 0
        """The change model's ``seq`` of the next transaction with row changes (across files)."""

    def commit(self, changes: list[Change], txpos: int | None, xid: int | None = None, set_xid: bool = False
               ) -> list[Change]:
        """Number one committed transaction's changes (``seq``, ``row``, ``transaction_position``;
        ``xid`` too when ``set_xid``); returns them."""
        if changes:
            seq = self.seq
            self.seq = seq + 1
            if set_xid:
                for i, c in enumerate(changes):
                    c.seq, c.row, c.transaction_position, c.xid = seq, i, txpos, xid
            else:
                for i, c in enumerate(changes):
                    c.seq, c.row, c.transaction_position = seq, i, txpos
        return changes

    def changes_of_file(self, path: str | os.PathLike, verify_checksum: bool,
                        start: int | None, stop: int | None,
                        max_event_size: int = MAX_EVENT_SIZE) -> Iterator[Change]:
        name = os.fspath(path)
        tables: dict[int, TableInfo] = {}
        pending: list[Change] = []
        gtid: str | None = None
        txpos: int | None = None  # offset of the open transaction's first event (GTID, else BEGIN)
        commit = self.commit
        tm_cache = self.tm_cache
        rows_types = frozenset(ROWS_TYPES)
        last_fmt = None
        footer = 0
        tid_size = 6
        qph = _Q_POST
        for offset, data, fmt in iter_frames(path, verify_checksum=verify_checksum, max_event_size=max_event_size):
            if stop is not None and offset >= stop:
                break
            if fmt is not last_fmt:
                last_fmt, footer, tid_size, qph = fmt, fmt.footer_size, fmt.table_id_size, fmt.post_header_len(QUERY_EVENT)
            t = data[TYPE_AT]
            end = len(data) - footer if t != FORMAT_DESCRIPTION_EVENT else len(data)
            if t in rows_types:
                if start is not None and offset < start:
                    continue
                self._rows(name, offset, data, end, tid_size, t, tables, gtid, pending)
            elif t == TABLE_MAP_EVENT:
                body = data[HEADER:end]
                info = tm_cache.get(body)
                if info is None:
                    info = self._table_map(name, offset, data, fmt)
                    if len(tm_cache) > 4096:
                        tm_cache.clear()
                    tm_cache[body] = info
                tables[int.from_bytes(body[:tid_size], "little")] = info
            elif t == XID_EVENT:  # XID_EVENT: the 8-byte xid (format.md §10)
                xid = (int.from_bytes(data[HEADER:end], "little") if end - HEADER == 8 and not fmt.post_header_len(XID_EVENT)
                       else self._event(name, offset, data, fmt).xid)
                yield from commit(pending, txpos, xid, True)
                pending = []
                gtid = txpos = None
            elif t in GTID_TYPES:  # GTID events (format.md §8, mariadb.md): checked
                gtid = transaction_gtid(t, data, end, fmt, name, offset)
                txpos = offset
            elif t == QUERY_EVENT or t == QUERY_COMPRESSED_EVENT:  # QUERY_EVENT: COMMIT / ROLLBACK end a transaction without XID
                if t == QUERY_EVENT and end >= HEADER + _Q_POST:
                    # the statement after the post-header, status vars, db and its NUL (§9)
                    q0 = HEADER + qph + (data[_Q_SV_LEN] | data[_Q_SV_LEN + 1] << 8) + data[_Q_DB_LEN] + 1
                    if end == q0 + 5 and data[q0:end] == b"BEGIN":  # most transactions: nothing to do
                        if txpos is None:
                            txpos = offset
                        continue
                pending, gtid, txpos = yield from self._query(t, data, end, fmt, name, offset, pending, gtid, txpos)
            elif t == XA_PREPARE_LOG_EVENT:  # XA_PREPARE: the group's changes wait for XA COMMIT (read/xa.py)
                yield from self._xa_prepare(data, fmt, name, offset, pending, txpos)
                pending = []
                gtid = txpos = None
            elif t == TRANSACTION_PAYLOAD_EVENT:  # a whole compressed transaction (format.md §15): it ends here
                yield from commit(pending, txpos)
                pending = []
                yield from commit(self._payload(name, offset, data, fmt, gtid), offset if txpos is None else txpos)
                gtid = txpos = None
        yield from commit(pending, txpos)

    def _query(self, t: int, data: bytes, end: int, fmt: BinlogFormat, name: str, offset: int,
               pending: list[Change], gtid: str | None, txpos: int | None
               ) -> Generator[Change, None, tuple[list[Change], str | None, int | None]]:
        """A QUERY_EVENT / QUERY_COMPRESSED_EVENT other than a plain BEGIN (format.md §9): COMMIT,
        ROLLBACK and any statement but BEGIN / XA … (DDL commits implicitly) end the open
        transaction without an XID; XA COMMIT / ROLLBACK ends a prepared XA transaction
        (read/xa.py); BEGIN opens one. Yields the changes it ends; returns the loop's new
        ``(pending, gtid, txpos)``."""
        full = self.statement(t, data, end, fmt, name, offset)
        q = full[:16].strip().upper()
        if q in (b"COMMIT", b"ROLLBACK") or (q and not q.startswith(b"BEGIN") and not q.startswith(b"XA ")):
            yield from self.commit(pending, txpos)
            return [], (None if q in (b"COMMIT", b"ROLLBACK") else gtid), None
        if q.startswith((b"XA COMMIT", b"XA ROLLBACK")):  # a prepared XA transaction ends
            held = list(self.xa.resolve(full))
            yield from self.commit(held, held[0].transaction_position if held else None)
        elif q.startswith(b"BEGIN") and txpos is None:
            txpos = offset
        return pending, gtid, txpos

    def _xa_prepare(self, data: bytes, fmt: BinlogFormat, name: str, offset: int, pending: list[Change],
                    txpos: int | None) -> Iterator[Change]:
        """An XA_PREPARE_LOG_EVENT: a one-phase XA commits the open transaction here; otherwise
        its changes wait for XA COMMIT (read/xa.py), numbered where the prepared transaction
        began. The open transaction ends either way."""
        ev = self._event(name, offset, data, fmt)
        if ev.one_phase:
            yield from self.commit(pending, txpos)
        else:
            for c in pending:
                c.transaction_position = txpos
            self.xa.prepare(xa_key(ev.format_id, ev.gtrid, ev.bqual), pending)

    # -- event readers -------------------------------------------------------------------
    @staticmethod
    def _query_text(data: bytes, end: int, fmt: BinlogFormat, size: int | None = 16) -> bytes:
        """The statement of a QUERY_EVENT: after the post-header, status vars, db and NUL (§9);
        its first ``size`` bytes, upper-cased (``size=None``: all of it, as written)."""
        ph = fmt.post_header_len(QUERY_EVENT)
        if end < HEADER + _Q_POST:
            return b""
        db_len = data[_Q_DB_LEN]
        sv_len = data[_Q_SV_LEN] | data[_Q_SV_LEN + 1] << 8
        start = HEADER + ph + sv_len + db_len + 1
        if start > end:
            return b""
        if size is None:
            return bytes(data[start:end])
        return bytes(data[start:min(start + size, end)]).strip().upper()

    @staticmethod
    def _event(name: str, offset: int, data: bytes, fmt: BinlogFormat) -> Any:
        """An event not in the shape the fast readers take, decoded declaratively: a body cut
        short is its located DecodeError, and asking a field of an event kept raw is a located
        KeptRawError (never a value read from past the body's end)."""
        from binlogwriter.events import decode_event

        return decode_event(data, fmt, file=name, offset=offset, verify_checksum=False)

    @staticmethod
    def statement(t: int, data: bytes, end: int, fmt: BinlogFormat, name: str, offset: int) -> bytes:
        """The whole statement of a QUERY_EVENT (2) or of MariaDB's QUERY_COMPRESSED_EVENT (165,
        the same statement compressed: decoded declaratively, rare)."""
        if t == QUERY_EVENT:
            return Reader._query_text(data, end, fmt, None)
        return Reader._event(name, offset, data, fmt).text.encode("utf-8", "surrogateescape")

    def _table_map(self, name: str, offset: int, data: bytes, fmt: BinlogFormat) -> TableInfo:
        return table_info(self._event(name, offset, data, fmt), self.schemas, fmt.flavor)

    def _rows(self, name: str, offset: int, data: bytes, end: int, tid_size: int, t: int,
              tables: dict, gtid: str | None, pending: list) -> None:
        if end - HEADER < _places.rows_places_of(t, tid_size).post:  # no table id to read
            raise DecodeError(f"rows event body of {end - HEADER} bytes has no post-header", file=name,
                              offset=offset, event_type=type_name(t))
        table_id = int.from_bytes(data[HEADER:HEADER + tid_size], "little")
        info = tables.get(table_id)
        if info is None:
            raise DecodeError(f"rows event for table id {table_id} without a preceding Table_map",
                              file=name, offset=offset, event_type=type_name(t))
        if info.error is not None:
            raise info.error_class(info.error, file=name, offset=offset, event_type=type_name(t))
        try:
            plan, buf = info.rows_header(t, data, end, tid_size)
            plan.emit(buf, pending, gtid, name, offset, int.from_bytes(data[TIMESTAMP_AT:TYPE_AT], "little"))
        except (DecodeError, ValueError, IndexError, _NonCanonical) as exc:
            raise rows_event_error(exc, info, t, name, offset) from None

    def _payload(self, name: str, offset: int, data: bytes, fmt: BinlogFormat,
                 gtid: str | None) -> list[Change]:
        """The changes of a TRANSACTION_PAYLOAD event, decoded declaratively (rare): its inner
        events are the whole transaction after its GTID (BEGIN … XID, format.md §15), so the
        GTID read before it is the transaction's own, and no later transaction inherits it
        (the caller forgets it, as it does at an XID)."""
        from binlogwriter.events import decode_event
        from binlogwriter.payload import inner_events

        ev = decode_event(data, fmt, file=name, offset=offset, verify_checksum=False)

        pending: list[Change] = []
        inner_tables: dict[int, TableInfo] = {}
        xid = None
        for _pos, chunk, inner in inner_events(ev, fmt):
            t = inner.type_code
            if t == TABLE_MAP_EVENT:
                inner_tables[inner.table_id] = table_info(inner, self.schemas, fmt.flavor)
            elif t in _OPS:
                raw = bytes(chunk)
                self._rows(name, offset, raw, len(raw), fmt.table_id_size, t, inner_tables, gtid, pending)
            elif t == XID_EVENT:
                xid = inner.xid
        for c in pending:
            c.xid = xid
        return pending


def _partial_after(cols, present: tuple, names: tuple):
    """The after-image decoder of a PARTIAL_UPDATE_ROWS_EVENT (format.md §14): values of the
    present columns by name, a JSON column holding diffs as a JsonPartial."""
    from binlogwriter.values.json_diff import decode_partial_image

    def aimg(buf, pos):
        vals, pad, pos = decode_partial_image(cols, present, buf, pos)
        return dict(zip(names, (v for v, p in zip(vals, present, strict=True) if p), strict=True)), pad, pos
    return aimg


def iter_changes(paths: Iterable[str | os.PathLike], *, schemas: Any = None, verify_checksum: bool = True,
                 start_position: int | None = None, stop_position: int | None = None,
                 max_event_size: int = MAX_EVENT_SIZE) -> Iterator[Change]:
    """Every row change of ``paths`` in order (see the module docstring). An event_length
    above ``max_event_size`` is a LimitError naming file:offset, as for every reader."""
    src = schemas if isinstance(schemas, SchemaSource) else (SchemaSource(schemas) if schemas is not None else None)
    r = Reader(src)
    for p in paths:
        yield from r.changes_of_file(p, verify_checksum, start_position, stop_position, max_event_size)


from binlogwriter.layouts.control import NonCanonical as _NonCanonical  # noqa: E402


def rows_event_error(exc: Exception, info: TableInfo, t: int, name: str, offset: int) -> DecodeError:
    """The located error of a rows event whose post-header, bitmaps or rows cannot be read:
    the decoder's error at file:offset and db.table; a malformed rows event; or one not in
    the form a server writes (BinlogReader keeps such an event raw: it has no changes)."""
    where = {"file": name, "offset": offset, "event_type": type_name(t)}
    if isinstance(exc, DecodeError):
        return exc.located(**where, path=f"{info.database}.{info.table}")
    if isinstance(exc, _NonCanonical):
        return DecodeError(f"rows event not in the form a server writes: {exc}", **where)
    return DecodeError(f"malformed rows event: {exc}", **where)
