"""Columnar export: the row changes of each table as Arrow tables / a Parquet dataset.

One Arrow table per binlog table, one row per row change, in the change model's names
(docs/output.md "The change model"; ``exportbatch.META_FIELDS``):

* ``seq`` (the change's transaction among those with row changes, 0-based from the first
  file given), ``row`` (the change inside its transaction), ``op`` (``insert`` / ``update`` /
  ``delete``), ``database``, ``table``, ``gtid``, ``xid`` (null: the transaction did not end
  with an XID), ``file``, ``position`` (offset of the rows event; of the TRANSACTION_PAYLOAD
  in a compressed transaction), ``transaction_position`` (offset of the transaction's first
  event), ``timestamp`` (the rows event's header time, UTC);
* ``before_columns`` / ``after_columns``: the columns the image carries (null: no such
  image) — a column outside the list is absent from the image, not NULL;
* the images, ``images="flat"`` (the default, as before the change model): ``before.<column>``
  and ``after.<column>`` for every column of the table, null when the column is NULL, not in
  the image, or the change has no such image; ``images="struct"``: two struct columns
  ``before`` / ``after`` of every column, the struct null when the change has no such image.

Buffers are cut at transaction ends only (``row`` and ``xid`` are known then): a single
transaction larger than the buffer limits is held whole. A transaction touching several
tables has its rows counted as they are buffered (the compiled decoders walk the images),
so ``row`` counts the changes of every table before it.

Arrow types follow the column types (docs/python-types.md): integers by width and sign,
FLOAT float32, DOUBLE float64, DECIMAL decimal128/decimal256 (its text beyond Arrow's 76
digits), DATE date32, DATETIME timestamp[us], TIMESTAMP timestamp[us, UTC], TIME
duration[us], text string, binary and GEOMETRY (SRID + WKB) binary, ENUM string, SET string
(members comma-separated), JSON its text, BIT uint64, YEAR int16. Values Arrow cannot hold (the zero date, a TEXT value whose
bytes are not valid in its charset) are written as null.

Size (about 370 lines): one pass over the files — the frame loop and the per-type steps it
calls, which share its buffers and table maps — and the three ways out of it
(iter_table_batches, changes_tables, export_parquet).

Rows events are buffered per table definition (their rows bytes; at most ``batch_rows``
events or 8 MB) and each buffer becomes Arrow record batches of at most ``batch_rows`` rows,
so memory stays flat in file size. A buffer is decoded column by column, many rows at once,
into Arrow buffers (:mod:`binlogwriter.read.arrowcols`); the reference path — the compiled
row decoders' Python values (:mod:`binlogwriter.read.rowdecode`) through ``pa.array`` —
takes over when those decline, and gives the located error for malformed input
(``columnar=False`` selects it; a property test asserts both give the same tables).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any

import pyarrow as pa

from binlogwriter.errors import DecodeError
from binlogwriter.layouts.header import TIMESTAMP_AT, TYPE_AT
from binlogwriter.layouts.mariadb import FL_PREPARED_XA
from binlogwriter.read.arrowcols import arrow_type
from binlogwriter.read.changes import (  # the change loops' event types (changes.LOOP_EVENTS); field places
    ANNOTATE_ROWS_EVENT,
    GTID_TYPES,
    HEADER,
    MARIADB_GTID_EVENT,
    PARTIAL_UPDATE_ROWS_EVENT,
    QUERY_COMPRESSED_EVENT,
    QUERY_EVENT,
    ROWS_QUERY_LOG_EVENT,
    ROWS_TYPES,
    TABLE_MAP_EVENT,
    TRANSACTION_PAYLOAD_EVENT,
    UPDATE_TYPES,
    V2_TYPES,
    XA_PREPARE_LOG_EVENT,
    XID_EVENT,
    Reader,
    SchemaSource,
    TableInfo,
    rows_event_error,
    type_name,
)
from binlogwriter.read.exportbatch import IMAGES, TableBuffer, Txn, arrow_schema
from binlogwriter.read.exportparquet import UnknownTableError, write_parquet
from binlogwriter.read.framing import MAX_EVENT_SIZE, iter_frames
from binlogwriter.read.gtidcheck import transaction_gtid
from binlogwriter.read.places import MARIADB_GTID
from binlogwriter.read.xa import XaHeld, xa_key

__all__ = ["arrow_type", "arrow_schema", "iter_table_batches", "changes_tables", "export_parquet",
           "RetypedColumnError", "UnknownTableError"]

_FLUSH_BYTES = 8 << 20
"""Rows bytes of one table buffered before its batch is made (memory flat in file size)."""


def _flush(buf: TableBuffer, batch_rows: int) -> Iterator[pa.RecordBatch]:
    b = buf.batch()
    for at in range(0, b.num_rows, batch_rows):
        yield b.slice(at, batch_rows)


def iter_table_batches(paths: Iterable[str | os.PathLike], *, schemas: Any = None, verify_checksum: bool = True,
                       batch_rows: int = 16384, tables: Iterable[str] | None = None,
                       columnar: bool = True, images: str = "flat",
                       max_event_size: int = MAX_EVENT_SIZE) -> Iterator[tuple[str, pa.RecordBatch]]:
    """``("db.table", record batch)`` pairs, each batch at most ``batch_rows`` changes of one
    table definition (a definition change starts a new schema). ``tables``: only these
    ``db.table`` names. ``columnar=False`` decodes through the reference path (Python values
    of the compiled row decoders, then ``pa.array``); both give the same batches.
    ``images``: ``"flat"`` (``before.<c>`` columns) or ``"struct"`` (see the module docstring).
    An event_length above ``max_event_size`` is a LimitError naming file:offset, as in
    :func:`binlogwriter.read.changes.iter_changes`."""
    for info, batch in _table_batches(paths, schemas, verify_checksum, batch_rows, tables, columnar, set(), images,
                                      max_event_size):
        yield info.key, batch


def _ready(txn: Txn | None, xid: int | None, batch_rows: int) -> Iterator[tuple[TableInfo, pa.RecordBatch]]:
    """A transaction ends (committed by ``xid``, or None): the batches of the buffers it
    touched that are full (buffers are cut only at transaction ends, so the rows of a
    transaction are numbered in one batch)."""
    if txn is None:
        return
    txn.xid = xid
    for buf in txn.bufs:
        if buf is not None and (len(buf.events) >= batch_rows or buf.nbytes >= _FLUSH_BYTES):
            for b in _flush(buf, batch_rows):
                yield buf.info, b


def _note_skipped(txn: Txn, info: TableInfo | None, data: bytes, end: int, tid_size: int) -> None:
    """A rows event of a table not exported: its rows still count in ``row`` of the
    transaction's later changes (or make it unknown when they cannot be decoded)."""
    if info is None or info.error is not None or data[TYPE_AT] == PARTIAL_UPDATE_ROWS_EVENT:
        txn.unknown = True
        return
    try:
        plan, rows = info.rows_header(data[TYPE_AT], data, end, tid_size)
        txn.add(None, plan, rows)
    except (DecodeError, ValueError, IndexError):
        txn.unknown = True


def _table_batches(paths: Iterable[str | os.PathLike], schemas: Any, verify_checksum: bool, batch_rows: int,
                   tables: Iterable[str] | None, columnar: bool,
                   seen: set[str], images: str = "flat",
                   max_event_size: int = MAX_EVENT_SIZE) -> Iterator[tuple[TableInfo, pa.RecordBatch]]:
    """:func:`iter_table_batches` with each batch's :class:`TableInfo` (its database and table
    names apart: ``db.table`` is ambiguous when a name holds a dot); ``seen`` gets the
    ``db.table`` of every Table_map read.

    The change model's ``seq`` numbers the transactions with row changes from 0 over all the
    files (as :func:`binlogwriter.read.changes.iter_changes` does), ``row`` the changes inside
    each, ``xid`` / ``transaction_position`` come from its XID and first event
    (:class:`~binlogwriter.read.exportbatch.Txn`)."""
    if images not in IMAGES:
        raise ValueError(f"images must be one of {', '.join(IMAGES)}, not {images!r}")
    src = schemas if isinstance(schemas, SchemaSource) else (SchemaSource(schemas) if schemas is not None else None)
    reader = Reader(src)
    wanted = set(tables) if tables is not None else None
    buffers: dict[int, TableBuffer] = {}  # by id(TableInfo)
    rows_types = frozenset(ROWS_TYPES)
    v2, updates = frozenset(V2_TYPES), frozenset(UPDATE_TYPES)
    xa = XaHeld()  # rows events of prepared XA transactions until XA COMMIT / ROLLBACK (read/xa.py)
    staged: list | None = None  # rows events of the current group when it is an XA transaction
    next_seq = 0
    txn: Txn | None = None  # the open transaction once it has a rows event
    mapped: dict[bytes, tuple[bytes, tuple[TableInfo, TableBuffer | None]]] = {}  # Table_map body -> its tmap entry
    for path in paths:
        name = os.fspath(path)
        tmap: dict[bytes, tuple[TableInfo, TableBuffer | None]] = {}  # table id (its bytes) -> (table, its buffer)
        gtid: str | None = None
        txpos: int | None = None  # offset of the open transaction's first event (GTID, else BEGIN)
        last_fmt = None
        footer, tid_size, tid_end, xid8 = 0, 6, HEADER + 6, False
        for offset, data, fmt in iter_frames(path, verify_checksum=verify_checksum, max_event_size=max_event_size,
                                             skip=_STATEMENTS):
            if fmt is not last_fmt:  # the format's sizes: table id, footer, an XID body of 8 bytes alone
                last_fmt, footer, tid_size = fmt, fmt.footer_size, fmt.table_id_size
                tid_end, xid8 = HEADER + tid_size, not fmt.post_header_len(XID_EVENT)
                mapped.clear()
            t = data[TYPE_AT]
            if t in rows_types:
                ent = tmap.get(data[HEADER:tid_end])
                if ent is None or ent[1] is None or t == PARTIAL_UPDATE_ROWS_EVENT:
                    if _refuse(ent, data, tid_size, name, offset, wanted):
                        if staged is None:
                            if txn is None:
                                txn, next_seq = Txn(next_seq, txpos), next_seq + 1
                            _note_skipped(txn, ent[0] if ent else None, data, len(data) - footer, tid_size)
                        continue
                info, buf = ent
                if staged is not None:  # an XA transaction's rows count from its XA COMMIT
                    staged.append((buf, info, t, bytes(data), len(data) - footer, tid_size, gtid, name, offset,
                                   txpos))
                    continue
                if txn is None:
                    txn, next_seq = Txn(next_seq, txpos), next_seq + 1
                # the post-header and bitmaps as last seen for this table (changes.py
                # TableInfo.rows_header checks and caches them), else parsed in full
                end = len(data) - footer
                try:
                    p = tid_end + 2
                    q = p + (data[p] | data[p + 1] << 8 if t in v2 else 0) + info._wlen + \
                        (info._nb << 1 if t in updates else info._nb)
                    plan = info._headers.get((t, data[p:q]))
                except IndexError:
                    plan = None
                if plan is None or q > end:
                    _add_rows(buf, info, t, data, end, tid_size, gtid, name, offset, txn)
                else:
                    rows = data[q:end]
                    try:  # counting its rows (a transaction of several tables) reads them: located errors
                        k = txn.add(buf, plan, rows)
                    except (DecodeError, ValueError, IndexError) as exc:
                        raise rows_event_error(exc, info, t, name, offset) from None
                    buf.events.append((plan, t, rows, gtid, name, offset, int.from_bytes(data[TIMESTAMP_AT:TYPE_AT], "little"), txn, k))
                    buf.nbytes += len(rows)
            elif t == TABLE_MAP_EVENT:
                body = data[HEADER:len(data) - footer]
                hit = mapped.get(body)  # a body seen in this format: its table id and entry
                if hit is None:
                    info = reader.tm_cache.get(body)
                    if info is None:
                        info = reader.tm_cache[body] = _table(reader, name, offset, data, fmt, body)
                    seen.add(info.key)
                    if (wanted is not None and info.key not in wanted) or info.error is not None:
                        buf = None
                    else:
                        buf = buffers.get(id(info))
                        if buf is None:
                            buf = buffers[id(info)] = TableBuffer(info, columnar, images)
                    if len(mapped) >= 4096:
                        mapped.clear()
                    hit = mapped[body] = (body[:tid_size], (info, buf))
                tmap[hit[0]] = hit[1]
            elif t in GTID_TYPES:  # the checked reading changes() uses (read/gtidcheck.py)
                gtid = transaction_gtid(t, data, len(data) - footer, fmt, name, offset)
                txpos = offset
                staged = [] if t == MARIADB_GTID_EVENT and data[_FLAGS2] & FL_PREPARED_XA else None
            elif t == XID_EVENT:  # XID: the transaction ends, its GTID with it (as in changes())
                end = len(data) - footer
                xid = (int.from_bytes(data[HEADER:end], "little") if xid8 and end - HEADER == 8
                       else Reader._event(name, offset, data, fmt).xid)
                done, txn = txn, None
                if done is not None:
                    yield from _ready(done, xid, batch_rows)
                gtid = txpos = None
            elif t == QUERY_EVENT or t == XA_PREPARE_LOG_EVENT or t == QUERY_COMPRESSED_EVENT:  # XA START / XA_PREPARE / XA COMMIT / XA ROLLBACK (read/xa.py)
                end = len(data) - footer
                q = b"" if t == XA_PREPARE_LOG_EVENT else Reader.statement(t, data, end, fmt, name, offset)[:16].strip().upper()
                if q.startswith(b"BEGIN"):
                    txpos = offset if txpos is None else txpos
                elif t == XA_PREPARE_LOG_EVENT or q in (b"COMMIT", b"ROLLBACK") or (q and not q.startswith(b"XA ")):
                    # the transaction ends (as in changes(): a DDL ends it too)
                    done, txn = txn, None
                    yield from _ready(done, None, batch_rows)
                    txpos = None
                    if t == XA_PREPARE_LOG_EVENT or q in (b"COMMIT", b"ROLLBACK"):
                        gtid = None
                if t != QUERY_COMPRESSED_EVENT and (t == XA_PREPARE_LOG_EVENT or q.startswith(b"XA ")):
                    staged, ready = _xa_step(xa, staged, t, q, data, end, fmt, name, offset)
                    if ready:  # an XA transaction committed now: a transaction of its own
                        xt, next_seq = Txn(next_seq, ready[0][9]), next_seq + 1
                        for ent in ready:
                            _add_rows(*ent[:9], xt)
                        yield from _ready(xt, None, batch_rows)
            elif t == TRANSACTION_PAYLOAD_EVENT:  # a compressed transaction: its inner events, decoded declaratively
                done, txn = txn, None
                yield from _ready(done, None, batch_rows)
                pt, xid = _payload(reader, buffers, wanted, data, fmt, gtid, name, offset, columnar, seen, images,
                                   next_seq, offset if txpos is None else txpos)
                if pt is not None:
                    next_seq += 1
                yield from _ready(pt, xid, batch_rows)
                gtid = txpos = None  # the whole transaction after its GTID: the next one does not inherit it
    for b in buffers.values():
        if len(b):
            for rb in _flush(b, batch_rows):
                yield b.info, rb


_TABLES: dict[tuple[bytes, Any], TableInfo] = {}
"""Table definitions read from Table_map bodies without a schema, kept across calls (like
the compiled row decoders): a Table_map is decoded declaratively once per process."""


def _table(reader: Reader, name: str, offset: int, data: bytes, fmt: Any, body: bytes) -> TableInfo:
    if reader.schemas is not None:
        return reader._table_map(name, offset, data, fmt)
    key = (body, fmt)
    info = _TABLES.get(key)
    if info is None:
        info = reader._table_map(name, offset, data, fmt)
        if len(_TABLES) >= 1024:
            _TABLES.clear()
        _TABLES[key] = info
    return info


def _refuse(ent: tuple | None, data: bytes, tid_size: int, name: str, offset: int, wanted: set | None) -> bool:
    """For a rows event whose table has no buffer: True when it is skipped (a table not
    asked for), else the located error (no Table_map, a table that cannot be read, a
    PARTIAL_UPDATE_ROWS_EVENT)."""
    t = data[TYPE_AT]
    if ent is None:
        table_id = int.from_bytes(data[HEADER:HEADER + tid_size], "little")
        raise DecodeError(f"rows event for table id {table_id} without a preceding Table_map",
                          file=name, offset=offset, event_type=type_name(t))
    info = ent[0]
    if wanted is not None and info.key not in wanted:
        return True
    if info.error is not None:
        raise info.error_class(info.error, file=name, offset=offset, event_type=type_name(t))
    raise DecodeError("PARTIAL_UPDATE_ROWS_EVENT (format.md §14) is not exported",
                      file=name, offset=offset, event_type=type_name(t))


def _payload(reader: Reader, buffers: dict, wanted: set | None, data: bytes, fmt: Any, gtid: str | None,
             name: str, offset: int, columnar: bool, seen: set[str], images: str, seq: int,
             txpos: int) -> tuple[Txn | None, int | None]:
    """Buffer the rows of the events inside a TRANSACTION_PAYLOAD (format.md §15), at the
    payload's position: ``(its transaction numbered seq, or None without rows; its XID)``."""
    from binlogwriter.events import decode_event
    from binlogwriter.payload import inner_events
    from binlogwriter.read.changes import table_info

    ev = decode_event(data, fmt, file=name, offset=offset, verify_checksum=False)
    inner_tables: dict[int, TableInfo] = {}
    txn: Txn | None = None
    xid = None
    for _pos, chunk, inner in inner_events(ev, fmt):
        t = inner.type_code
        if t == TABLE_MAP_EVENT:
            inner_tables[inner.table_id] = table_info(inner, reader.schemas, fmt.flavor)
            seen.add(inner_tables[inner.table_id].key)
        elif t == XID_EVENT:
            xid = inner.xid
        elif t in _ROWS:
            info = inner_tables.get(inner.table_id)
            if info is None:
                raise DecodeError(f"rows event for table id {inner.table_id} without a preceding Table_map",
                                  file=name, offset=offset, event_type="TRANSACTION_PAYLOAD_EVENT")
            raw = bytes(chunk)
            if txn is None:
                txn = Txn(seq, txpos)
            if wanted is not None and info.key not in wanted:
                _note_skipped(txn, info, raw, len(raw), fmt.table_id_size)
                continue
            if info.error is not None or t == PARTIAL_UPDATE_ROWS_EVENT:  # the located error, at the
                _refuse((info, None), raw, fmt.table_id_size, name, offset, None)  # payload, as outside one
            buf = buffers.get(id(info))
            if buf is None:
                buf = buffers[id(info)] = TableBuffer(info, columnar, images)
            # the header time of the payload event: inner events carry the same
            _add_rows(buf, info, t, raw, len(raw), fmt.table_id_size, gtid, name, offset, txn)
    return txn, xid


_ROWS = frozenset(ROWS_TYPES)
_STATEMENTS = frozenset((ANNOTATE_ROWS_EVENT, ROWS_QUERY_LOG_EVENT))
"""The statement of the rows events after it (MariaDB ANNOTATE_ROWS, MySQL ROWS_QUERY): not
exported, so framed and checked but never handed to the loop (iter_frames ``skip``)."""
_FLAGS2 = MARIADB_GTID.flags2


def _xa_step(xa: XaHeld, staged: list | None, t: int, q: bytes, data: bytes, end: int, fmt: Any, name: str,
             offset: int) -> tuple[list | None, list]:
    """One XA event: ``(the staging list from now on, rows events committed now)``. MySQL's
    ``XA START`` query opens the staging (MariaDB's GTID flag does), XA_PREPARE holds it by
    XID (one-phase: commits it), ``XA COMMIT`` commits what its XID holds, ``XA ROLLBACK``
    drops it."""
    if t == XA_PREPARE_LOG_EVENT:
        from binlogwriter.events import decode_event

        ev = decode_event(data, fmt, file=name, offset=offset, verify_checksum=False)
        if staged and ev.one_phase:
            return None, staged
        if staged:
            xa.prepare(xa_key(ev.format_id, ev.gtrid, ev.bqual), staged)
        return None, []
    if q.startswith(b"XA START"):
        return [], []
    if q.startswith((b"XA COMMIT", b"XA ROLLBACK")):
        return staged, xa.resolve(Reader._query_text(data, end, fmt, None))
    return staged, []


def _add_rows(buf: TableBuffer, info: TableInfo, t: int, data: bytes, end: int, tid_size: int,
              gtid: str | None, name: str, offset: int, txn: Txn) -> None:
    """Buffer one rows event of transaction ``txn`` (its post-header and bitmaps checked now,
    its rows later)."""
    try:
        plan, rows = info.rows_header(t, data, end, tid_size)  # any valid zlib stream (changes.py)
        k = txn.add(buf, plan, rows)  # counting its rows (a transaction of several tables) reads them
    except (DecodeError, ValueError, IndexError) as exc:
        raise rows_event_error(exc, info, t, name, offset) from None
    buf.events.append((plan, t, rows, gtid, name, offset, int.from_bytes(data[TIMESTAMP_AT:TYPE_AT], "little"), txn, k))
    buf.nbytes += len(rows)


def changes_tables(paths: Iterable[str | os.PathLike] | str | os.PathLike, *, schemas: Any = None,
                   tables: Iterable[str] | None = None, verify_checksum: bool = True,
                   images: str = "flat", max_event_size: int = MAX_EVENT_SIZE) -> dict[str, pa.Table]:
    """``{"db.table": pyarrow.Table}`` of every table's changes (in memory: for a large file
    prefer :func:`iter_table_batches` or :func:`export_parquet`). A table whose definition
    changed has its batches unified by name (columns added as nulls); a column whose type
    changed raises :class:`RetypedColumnError` at the first change of the new definition."""
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    by: dict[str, list[pa.RecordBatch]] = {}
    names: dict[str, tuple[str, str]] = {}
    for info, batch in _table_batches(paths, schemas, verify_checksum, 16384, tables, True, set(), images,
                                      max_event_size):
        if names.setdefault(info.key, (info.database, info.table)) != (info.database, info.table):
            raise _ambiguous(info.key, names[info.key], (info.database, info.table), batch)
        by.setdefault(info.key, []).append(batch)
    out = {}
    for key, batches in by.items():
        tabs = [pa.Table.from_batches([b]) for b in batches]
        try:
            out[key] = pa.concat_tables(tabs, promote_options="default") if len(tabs) > 1 else tabs[0]
        except (pa.ArrowTypeError, pa.ArrowInvalid):
            raise _retyped(key, batches) from None
    return out


def _ambiguous(key: str, first: tuple[str, str], other: tuple[str, str], batch: pa.RecordBatch) -> DecodeError:
    """Two tables whose ``db.table`` is the same text (a name holding a dot: database ``a.b``
    table ``c``, database ``a`` table ``b.c``): one key cannot hold both, and merging them
    would be silently wrong. Located at the second one's first change."""
    from binlogwriter.read.exportparquet import shown_name

    a, b = (shown_name(f"database {d!r} table {t!r}") for d, t in (first, other))
    return DecodeError(f"{a} and {b} are both {shown_name(key)}: changes_tables cannot hold them apart; "
                       "export_parquet writes each to its own folder",
                       file=batch.column("file")[0].as_py(), offset=batch.column("position")[0].as_py())


class RetypedColumnError(DecodeError):
    """A table's column changed its Arrow type between definitions (ALTER TABLE … MODIFY):
    one Arrow table cannot hold both."""


def _retyped(key: str, batches: list[pa.RecordBatch]) -> RetypedColumnError:
    """The error for the first batch whose column type differs from an earlier batch's,
    located at that batch's first change (its ``file`` and ``pos``)."""
    seen: dict[str, pa.DataType] = {}
    for b in batches:
        for f in b.schema:
            old = seen.setdefault(f.name, f.type)
            if old != f.type:
                return RetypedColumnError(
                    f"table {key}: column {f.name} is {old} in earlier changes and {f.type} from here "
                    "(the table's definition changed); one Arrow table cannot hold both: read it with "
                    "iter_table_batches or export_parquet (a part per definition)",
                    file=b.column("file")[0].as_py(), offset=b.column("position")[0].as_py())
    return RetypedColumnError(f"table {key}: its definitions cannot be unified into one Arrow table")


def export_parquet(paths: Iterable[str | os.PathLike], out_dir: str | os.PathLike, *, schemas: Any = None,
                   tables: Iterable[str] | None = None, batch_rows: int = 16384,
                   verify_checksum: bool = True, overwrite: bool = False, images: str = "flat",
                   max_event_size: int = MAX_EVENT_SIZE) -> dict[str, int]:
    """Write one Parquet dataset per table: ``out_dir/<db>.<table>/part-NNNNN.parquet`` (a new
    part when the table's definition changes), the names percent-encoded
    (:mod:`binlogwriter.read.exportpaths`: a name is never a path). Returns rows written per
    table folder name (``db.table`` for plain names).

    ``out_dir`` is written all at once or not at all (:mod:`binlogwriter.read.exportparquet`):
    one that is not empty raises :class:`~binlogwriter.errors.OutputExistsError` unless
    ``overwrite``; a ``tables`` name no Table_map of the files has raises
    :class:`UnknownTableError` (nothing written); an event_length above ``max_event_size`` a
    LimitError naming file:offset (nothing written)."""
    wanted = list(tables) if tables is not None else None
    seen: set[str] = set()

    def batches() -> Iterator[tuple[str, str, pa.RecordBatch]]:
        for info, batch in _table_batches(paths, schemas, verify_checksum, batch_rows, wanted, True, seen, images,
                                          max_event_size):
            yield info.database, info.table, batch
        for name in wanted or ():
            if name not in seen:
                raise UnknownTableError.of(name, seen)

    return write_parquet(batches(), out_dir, overwrite=overwrite)
