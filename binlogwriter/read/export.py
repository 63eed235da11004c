"""Columnar export: the row changes of each table as Arrow tables / a Parquet dataset.

One Arrow table per binlog table, one row per row change, columns:

* ``op`` (``insert`` / ``update`` / ``delete``), ``gtid``, ``file``, ``pos`` (offset of the
  rows event), ``timestamp`` (its header time, UTC);
* ``before.<column>`` and ``after.<column>`` for every column of the table: the value in that
  image, null when the column is NULL, not in the image, or the change has no such image
  (an insert has no before image, a delete no after image).

Arrow types follow the column types (docs/python-types.md): integers by width and sign,
FLOAT float32, DOUBLE float64, DECIMAL decimal128/decimal256, DATE date32, DATETIME
timestamp[us], TIMESTAMP timestamp[us, UTC], TIME duration[us], text string, binary and
GEOMETRY (SRID + WKB) binary, ENUM string, SET string (members comma-separated), JSON its
text, BIT uint64, YEAR int16. Values Arrow cannot hold (the zero date, a TEXT value whose
bytes are not valid in its charset) are written as null.

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
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from binlogwriter.errors import BinlogError, DecodeError
from binlogwriter.format import type_name
from binlogwriter.layouts.control import NonCanonical
from binlogwriter.layouts.rows import DELETE_TYPES, ROWS_TYPES, UPDATE_TYPES, V2_TYPES
from binlogwriter.read.arrowcols import (
    PAD,
    ColumnBuilder,
    Fallback,
    arrow_type,
    column_layout,
    converter,
    safe_array,
    walk_image,
)
from binlogwriter.read.changes import HEADER, SchemaSource, TableInfo, _Reader, _uuid
from binlogwriter.read.framing import iter_frames
from binlogwriter.values.base import ColumnDesc

__all__ = ["arrow_type", "arrow_schema", "iter_table_batches", "changes_tables", "export_parquet"]

_OPNAMES = ("insert", "update", "delete")


def arrow_schema(cols: tuple[ColumnDesc, ...]) -> pa.Schema:
    """op, gtid, file, pos, timestamp, then before.<c> and after.<c> for every column."""
    fields = [pa.field("op", pa.string()), pa.field("gtid", pa.string()), pa.field("file", pa.string()),
              pa.field("pos", pa.uint64()), pa.field("timestamp", pa.timestamp("s", tz="UTC"))]
    types = [arrow_type(c) for c in cols]
    fields += [pa.field(f"before.{c.name}", typ) for c, typ in zip(cols, types, strict=True)]
    fields += [pa.field(f"after.{c.name}", typ) for c, typ in zip(cols, types, strict=True)]
    return pa.schema(fields)


class _TableBuffer:
    """Rows events of one table definition waiting to become a record batch: their rows
    bytes and where they come from, decoded when the batch is made."""

    __slots__ = ("info", "schema", "columnar", "events", "nbytes", "_builders", "_layouts")

    def __init__(self, info: TableInfo, columnar: bool) -> None:
        self.info = info
        self.schema = arrow_schema(info.cols)
        self.columnar = columnar
        self._builders: list[ColumnBuilder] | None = None
        self._layouts: list | None = None
        self.clear()

    def clear(self) -> None:
        self.events: list[tuple] = []  # (plan, type code, rows bytes, gtid, file, pos, timestamp)
        self.nbytes = 0

    def add(self, plan: Any, t: int, rows: bytes, gtid: str | None, name: str, offset: int, ts: int) -> None:
        self.events.append((plan, t, rows, gtid, name, offset, ts))
        self.nbytes += len(rows)

    def __len__(self) -> int:
        return len(self.events)

    def batch(self) -> pa.RecordBatch:
        """The record batch of the buffered events (columnar decoders, or the reference
        path when they decline or the input is malformed: it raises the located error)."""
        try:
            if not self.columnar:
                raise Fallback
            out = self._columnar()
        except Fallback:
            out = self._reference()
        except Exception:  # noqa: BLE001 - malformed input: the reference path locates it
            out = self._reference()
        self.clear()
        return out

    # -- the reference: the compiled row decoders' Python values, then pa.array ----------------
    def _reference(self) -> pa.RecordBatch:
        info = self.info
        types = [arrow_type(c) for c in info.cols]
        convs = [converter(c, t) for c, t in zip(info.cols, types, strict=True)]
        none = (None,) * len(info.cols)
        befores: list[tuple] = []
        afters: list[tuple] = []
        kinds: list[int] = []
        for plan, t, rows, _gtid, name, offset, _ts in self.events:
            start = len(befores)
            try:
                n, pos, img = len(rows), 0, plan.bfull
                if plan.after is not None:
                    aimg = plan.afull
                    while pos < n:
                        v, _, pos = img(rows, pos)
                        befores.append(v)
                        v, _, pos = aimg(rows, pos)
                        afters.append(v)
                else:
                    mine, other = (befores, afters) if t in DELETE_TYPES else (afters, befores)
                    while pos < n:
                        v, _, pos = img(rows, pos)
                        mine.append(v)
                    other.extend([none] * (len(mine) - len(other)))
            except DecodeError as exc:
                raise exc.located(file=name, offset=offset, event_type=type_name(t),
                                  path=f"{info.database}.{info.table}") from None
            except (ValueError, IndexError) as exc:
                raise DecodeError(f"malformed rows event: {exc}", file=name, offset=offset,
                                  event_type=type_name(t)) from None
            except NonCanonical as exc:  # BinlogReader keeps such an event raw: no changes to export
                raise DecodeError(f"rows event not in the form a server writes: {exc}", file=name,
                                  offset=offset, event_type=type_name(t)) from None
            kinds.append(len(befores) - start)
        counts = np.array(kinds, dtype=np.int64)
        rows_ev = np.repeat(np.arange(len(counts)), counts)
        arrays = self._meta(rows_ev)
        for images in (befores, afters):
            columns = list(zip(*images, strict=True)) if len(rows_ev) else [()] * len(types)
            for vals, typ, conv in zip(columns, types, convs, strict=True):
                if conv is not None:
                    vals = [None if v is None else conv(v) for v in vals]
                arrays.append(safe_array(vals, typ))
        return pa.RecordBatch.from_arrays(arrays, schema=self.schema)

    def _meta(self, rows_ev: np.ndarray) -> list[pa.Array]:
        """op, gtid, file, pos, timestamp of each row (``rows_ev``: its event's index)."""
        ev = self.events
        take = pa.array(rows_ev, type=pa.int64())
        kind = np.array([1 if e[0].after is not None else 2 if e[1] in DELETE_TYPES else 0 for e in ev],
                        dtype=np.int64)
        return [pa.array(_OPNAMES, type=pa.string()).take(pa.array(kind[rows_ev], type=pa.int64())),
                pa.array([e[3] for e in ev], type=pa.string()).take(take),
                pa.array([e[4] for e in ev], type=pa.string()).take(take),
                pa.array(np.array([e[5] for e in ev], dtype=np.uint64)[rows_ev], type=pa.uint64()),
                pa.array(np.array([e[6] for e in ev], dtype=np.int64)[rows_ev], type=pa.int64())
                .cast(pa.timestamp("s", tz="UTC"))]

    # -- the columnar decoders (binlogwriter.read.arrowcols) ------------------------------------
    def _columnar(self) -> pa.RecordBatch:
        cols = self.info.cols
        if self._builders is None:
            self._layouts, self._builders = _column_builders(cols)
            if self._builders is None:
                self.columnar = False
                raise Fallback
        ev = self.events
        raw = b"".join(e[2] for e in ev)
        buf = np.frombuffer(raw + bytes(PAD), dtype=np.uint8)
        lens = np.fromiter((len(e[2]) for e in ev), dtype=np.int64, count=len(ev))
        ends = np.cumsum(lens)
        starts = ends - lens
        groups: dict[int, list[int]] = {}
        for i, e in enumerate(ev):
            groups.setdefault(id(e[0]), []).append(i)
        blocks: list[tuple] = []
        for members in groups.values():
            plan, t = ev[members[0]][0], ev[members[0]][1]
            idx = np.array(members, dtype=np.int64)
            self._group(buf, raw, idx, starts[idx], ends[idx], plan, t, blocks)
        ev_all = np.concatenate([b[0] for b in blocks]) if blocks else np.zeros(0, dtype=np.int64)
        m_all = np.concatenate([b[1] for b in blocks]) if blocks else np.zeros(0, dtype=np.int64)
        perm = np.lexsort((m_all, ev_all))
        n = len(perm)
        arrays = self._meta(ev_all[perm])
        # each block's rows land at their sorted places (``dest``); absent: zeros, not valid
        dest = np.empty(n, dtype=np.int64)
        dest[perm] = np.arange(n, dtype=np.int64)
        places, at = [], 0
        for b in blocks:
            places.append(dest[at:at + len(b[0])])
            at += len(b[0])
        for side in (2, 3):
            for i, builder in enumerate(self._builders):
                start = size = valid = None
                for b, where in zip(blocks, places, strict=True):
                    part = b[side].get(i) if b[side] is not None else None
                    if part is None:
                        continue
                    if start is None:
                        start, size = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
                        valid = np.zeros(n, dtype=bool)
                    start[where], size[where], valid[where] = part
                if start is None:
                    arrays.append(pa.nulls(n, type=builder.typ))
                else:
                    arrays.append(builder.build(buf, raw, start, size, valid))
        return pa.RecordBatch.from_arrays(arrays, schema=self.schema)

    def _group(self, buf: np.ndarray, raw: bytes, ev: np.ndarray, s: np.ndarray, e: np.ndarray, plan: Any,
               t: int, blocks: list) -> None:
        """Blocks ``(events, row numbers, before spans, after spans)`` of the events of one
        rows plan: image k of every event at once, while many events still have rows."""
        layouts = self._layouts
        update = plan.after is not None
        bidx = [i for i, p in enumerate(plan.present) if p]
        aidx = [i for i, p in enumerate(plan.after) if p] if update else []
        delete = t in DELETE_TYPES
        cur = s.copy()
        m = 0
        while True:
            a = np.flatnonzero(cur < e)
            if not len(a):
                return
            if m >= 4 and len(a) <= 8:  # a few long events: their image starts walked in Python
                self._long(buf, raw, ev[a], cur[a], e[a], m, plan, bidx, aidx, delete, blocks)
                return
            p0, lim = cur[a], e[a]
            p1, first = walk_image(buf, p0, lim, bidx, layouts)
            second = None
            if update:
                if (p1 >= lim).any():
                    raise Fallback
                p1, second = walk_image(buf, p1, lim, aidx, layouts)
            if (p1 <= p0).any():
                raise Fallback
            cur[a] = p1
            rows = np.full(len(a), m, dtype=np.int64)
            if update:
                blocks.append((ev[a], rows, first, second))
            else:
                blocks.append((ev[a], rows, first, None) if delete else (ev[a], rows, None, first))
            m += 1

    def _long(self, buf: np.ndarray, raw: bytes, ev: np.ndarray, cur: np.ndarray, e: np.ndarray, m0: int,
              plan: Any, bidx: list, aidx: list, delete: bool, blocks: list) -> None:
        update = plan.after is not None
        bimg, aimg = plan.bimg, plan.aimg
        bs, as_, ends, evs, ms, lims = [], [], [], [], [], []
        for k in range(len(ev)):
            pos, end, m = int(cur[k]), int(e[k]), m0
            while pos < end:
                bs.append(pos)
                _, _, pos = bimg(raw, pos)
                if update:
                    if pos >= end:
                        raise Fallback
                    as_.append(pos)
                    _, _, pos = aimg(raw, pos)
                ends.append(pos)
                evs.append(int(ev[k]))
                ms.append(m)
                lims.append(end)
                m += 1
            if pos != end:
                raise Fallback
        lim = np.array(lims, dtype=np.int64)
        p1, first = walk_image(buf, np.array(bs, dtype=np.int64), lim, bidx, self._layouts)
        second = None
        if update:
            if not np.array_equal(p1, np.array(as_, dtype=np.int64)):
                raise Fallback
            p1, second = walk_image(buf, p1, lim, aidx, self._layouts)
        if not np.array_equal(p1, np.array(ends, dtype=np.int64)):
            raise Fallback
        evs_a, ms_a = np.array(evs, dtype=np.int64), np.array(ms, dtype=np.int64)
        if update:
            blocks.append((evs_a, ms_a, first, second))
        else:
            blocks.append((evs_a, ms_a, first, None) if delete else (evs_a, ms_a, None, first))


_BUILDERS: dict[tuple, tuple] = {}


def _column_builders(cols: tuple) -> tuple[list, list[ColumnBuilder] | None]:
    """(layouts, builders) of a table definition, built once per process (None: a column
    whose byte layout the walker does not know)."""
    got = _BUILDERS.get(cols)
    if got is None:
        layouts = [column_layout(c) for c in cols]
        builders = None if any(lay is None for lay in layouts) else [ColumnBuilder(c) for c in cols]
        if len(_BUILDERS) >= 1024:
            _BUILDERS.clear()
        got = _BUILDERS[cols] = (layouts, builders)
    return got


_FLUSH_BYTES = 8 << 20
"""Rows bytes of one table buffered before its batch is made (memory flat in file size)."""


def _flush(buf: _TableBuffer, batch_rows: int) -> Iterator[pa.RecordBatch]:
    b = buf.batch()
    for at in range(0, b.num_rows, batch_rows):
        yield b.slice(at, batch_rows)


def iter_table_batches(paths: Iterable[str | os.PathLike], *, schemas: Any = None, verify_checksum: bool = True,
                       batch_rows: int = 16384, tables: Iterable[str] | None = None,
                       columnar: bool = True) -> Iterator[tuple[str, pa.RecordBatch]]:
    """``("db.table", record batch)`` pairs, each batch at most ``batch_rows`` changes of one
    table definition (a definition change starts a new schema). ``tables``: only these
    ``db.table`` names. ``columnar=False`` decodes through the reference path (Python values
    of the compiled row decoders, then ``pa.array``); both give the same batches."""
    src = schemas if isinstance(schemas, SchemaSource) else (SchemaSource(schemas) if schemas is not None else None)
    reader = _Reader(src)
    wanted = set(tables) if tables is not None else None
    buffers: dict[int, _TableBuffer] = {}  # by id(TableInfo)
    rows_types = frozenset(ROWS_TYPES)
    v2, updates = frozenset(V2_TYPES), frozenset(UPDATE_TYPES)
    for path in paths:
        name = os.fspath(path)
        tmap: dict[int, tuple[TableInfo, _TableBuffer | None]] = {}  # table id -> (table, its buffer)
        gtid: str | None = None
        last_fmt = None
        footer, tid_size = 0, 6
        for offset, data, fmt in iter_frames(path, verify_checksum=verify_checksum):
            if fmt is not last_fmt:
                last_fmt, footer, tid_size = fmt, fmt.footer_size, fmt.table_id_size
            t = data[4]
            if t in rows_types:
                ent = tmap.get(int.from_bytes(data[HEADER:HEADER + tid_size], "little"))
                if ent is None or ent[1] is None or t == 39:
                    if _refuse(ent, data, tid_size, name, offset, wanted):
                        continue
                info, buf = ent
                # the post-header and bitmaps as last seen for this table (changes.py
                # TableInfo.rows_header checks and caches them), else parsed in full
                end = len(data) - footer
                try:
                    p = HEADER + tid_size + 2
                    q = p + (data[p] | data[p + 1] << 8 if t in v2 else 0) + info._wlen + \
                        (info._nb << 1 if t in updates else info._nb)
                    plan = info._headers.get((t, data[p:q]))
                except IndexError:
                    plan = None
                if plan is None or q > end:
                    _add_rows(buf, info, t, data, end, tid_size, gtid, name, offset)
                else:
                    rows = data[q:end]
                    buf.events.append((plan, t, rows, gtid, name, offset, int.from_bytes(data[0:4], "little")))
                    buf.nbytes += len(rows)
                if len(buf.events) >= batch_rows or buf.nbytes >= _FLUSH_BYTES:
                    for b in _flush(buf, batch_rows):
                        yield info.key, b
            elif t == 19:
                body = data[HEADER:len(data) - footer]
                info = reader.tm_cache.get(body)
                if info is None:
                    info = reader.tm_cache[body] = _table(reader, name, offset, data, fmt, body)
                if (wanted is not None and info.key not in wanted) or info.error is not None:
                    buf = None
                else:
                    buf = buffers.get(id(info))
                    if buf is None:
                        buf = buffers[id(info)] = _TableBuffer(info, columnar)
                tmap[int.from_bytes(body[:tid_size], "little")] = (info, buf)
            elif t in (33, 34):
                gtid = None if t == 34 else (f"{_uuid(data[HEADER + 1:HEADER + 17])}:"
                                             f"{int.from_bytes(data[HEADER + 17:HEADER + 25], 'little')}")
            elif t == 162:
                seq = int.from_bytes(data[HEADER:HEADER + 8], "little")
                dom = int.from_bytes(data[HEADER + 8:HEADER + 12], "little")
                gtid = f"{dom}-{int.from_bytes(data[5:9], 'little')}-{seq}"
            elif t == 42:
                from binlogwriter.events import decode_event

                gtid = decode_event(data, fmt, file=name, offset=offset, verify_checksum=False).gtid
            elif t == 40:  # a compressed transaction: its inner events, decoded declaratively
                yield from _payload(reader, buffers, wanted, data, fmt, gtid, name, offset, batch_rows, columnar)
    for b in buffers.values():
        if len(b):
            key = f"{b.info.database}.{b.info.table}"
            for rb in _flush(b, batch_rows):
                yield key, rb


_TABLES: dict[tuple[bytes, Any], TableInfo] = {}
"""Table definitions read from Table_map bodies without a schema, kept across calls (like
the compiled row decoders): a Table_map is decoded declaratively once per process."""


def _table(reader: _Reader, name: str, offset: int, data: bytes, fmt: Any, body: bytes) -> TableInfo:
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
    t = data[4]
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


def _payload(reader: _Reader, buffers: dict, wanted: set | None, data: bytes, fmt: Any, gtid: str | None,
             name: str, offset: int, batch_rows: int, columnar: bool) -> Iterator[tuple[str, pa.RecordBatch]]:
    """Rows of the events inside a TRANSACTION_PAYLOAD (format.md §15), at the payload's position."""
    from binlogwriter.events import decode_event
    from binlogwriter.payload import inner_events
    from binlogwriter.read.changes import table_info

    ev = decode_event(data, fmt, file=name, offset=offset, verify_checksum=False)
    inner_tables: dict[int, TableInfo] = {}
    for _pos, chunk, inner in inner_events(ev, fmt):
        t = inner.type_code
        if t == 19:
            inner_tables[inner.table_id] = table_info(inner, reader.schemas, fmt.flavor)
        elif t in _EXPORTED:
            info = inner_tables.get(inner.table_id)
            if info is None:
                raise DecodeError(f"rows event for table id {inner.table_id} without a preceding Table_map",
                                  file=name, offset=offset, event_type="TRANSACTION_PAYLOAD_EVENT")
            if wanted is not None and info.key not in wanted:
                continue
            if info.error is not None:
                raise info.error_class(info.error, file=name, offset=offset, event_type=type_name(t))
            buf = buffers.get(id(info))
            if buf is None:
                buf = buffers[id(info)] = _TableBuffer(info, columnar)
            raw = bytes(chunk)
            # the header time of the payload event: inner events carry the same
            _add_rows(buf, info, t, raw, len(raw), fmt.table_id_size, gtid, name, offset)
            if len(buf) >= batch_rows or buf.nbytes >= _FLUSH_BYTES:
                for b in _flush(buf, batch_rows):
                    yield info.key, b


_EXPORTED = frozenset(ROWS_TYPES) - {39}


def _add_rows(buf: _TableBuffer, info: TableInfo, t: int, data: bytes, end: int, tid_size: int,
              gtid: str | None, name: str, offset: int) -> None:
    """Buffer one rows event (its post-header and bitmaps checked now, its rows later)."""
    try:
        plan, rows = info.rows_header(t, data, end, tid_size)
    except DecodeError as exc:
        raise exc.located(file=name, offset=offset, event_type=type_name(t),
                          path=f"{info.database}.{info.table}") from None
    except (ValueError, IndexError) as exc:
        raise DecodeError(f"malformed rows event: {exc}", file=name, offset=offset,
                          event_type=type_name(t)) from None
    buf.events.append((plan, t, rows, gtid, name, offset, int.from_bytes(data[0:4], "little")))
    buf.nbytes += len(rows)


def changes_tables(paths: Iterable[str | os.PathLike] | str | os.PathLike, *, schemas: Any = None,
                   tables: Iterable[str] | None = None, verify_checksum: bool = True) -> dict[str, pa.Table]:
    """``{"db.table": pyarrow.Table}`` of every table's changes (in memory: for a large file
    prefer :func:`iter_table_batches` or :func:`export_parquet`). A table whose definition
    changed has its batches unified by name (columns added as nulls)."""
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    by: dict[str, list[pa.RecordBatch]] = {}
    for key, batch in iter_table_batches(paths, schemas=schemas, tables=tables, verify_checksum=verify_checksum):
        by.setdefault(key, []).append(batch)
    out = {}
    for key, batches in by.items():
        tabs = [pa.Table.from_batches([b]) for b in batches]
        out[key] = pa.concat_tables(tabs, promote_options="default") if len(tabs) > 1 else tabs[0]
    return out


_DICTIONARY = ["op", "gtid", "file"]
"""Columns written with dictionary pages (few distinct values per row group); the image
columns are written plain (trying a dictionary on each costs more than the file saves)."""


def export_parquet(paths: Iterable[str | os.PathLike], out_dir: str | os.PathLike, *, schemas: Any = None,
                   tables: Iterable[str] | None = None, batch_rows: int = 16384,
                   verify_checksum: bool = True) -> dict[str, int]:
    """Write one Parquet dataset per table: ``out_dir/<db>.<table>/part-NNNNN.parquet`` (a new
    part when the table's definition changes). Returns rows written per table."""
    import pyarrow.parquet as pq

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    writers: dict[str, tuple[pa.Schema, Any]] = {}
    parts: dict[str, int] = {}
    counts: dict[str, int] = {}
    try:
        for key, batch in iter_table_batches(paths, schemas=schemas, tables=tables, batch_rows=batch_rows,
                                             verify_checksum=verify_checksum):
            cur = writers.get(key)
            if cur is None or not cur[0].equals(batch.schema):
                if cur is not None:
                    cur[1].close()
                n = parts.get(key, 0)
                parts[key] = n + 1
                d = out / key
                d.mkdir(parents=True, exist_ok=True)
                cur = writers[key] = (batch.schema, pq.ParquetWriter(d / f"part-{n:05d}.parquet", batch.schema,
                                                                     use_dictionary=_DICTIONARY))
            cur[1].write_batch(batch)
            counts[key] = counts.get(key, 0) + batch.num_rows
    except OSError as exc:
        raise BinlogError(f"cannot write Parquet under {out}: {exc}") from None
    finally:
        for _, w in writers.values():
            w.close()
    return counts
