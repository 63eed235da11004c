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

Rows are decoded straight into per-table buffers by the compiled row decoders
(:mod:`binlogwriter.read.rowdecode`), never through per-change dicts; a buffer is turned
into an Arrow record batch every ``batch_rows`` rows, so memory stays flat in file size.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from binlogwriter.errors import BinlogError, DecodeError
from binlogwriter.format import type_name
from binlogwriter.layouts.rows import DELETE_TYPES, ROWS_TYPES
from binlogwriter.read.changes import HEADER, SchemaSource, TableInfo, _Reader, _uuid
from binlogwriter.read.framing import iter_frames
from binlogwriter.values.base import ColumnDesc
from binlogwriter.values.families import family_of_column
from binlogwriter.values.strings import string_real_type
from binlogwriter.values.types import MysqlDate, MysqlDateTime, MysqlTime

__all__ = ["arrow_type", "arrow_schema", "iter_table_batches", "changes_tables", "export_parquet"]

_OPNAMES = ("insert", "update", "delete")


def arrow_type(col: ColumnDesc) -> pa.DataType:
    """The Arrow type of a column's values (module docstring): its type family's
    ``arrow_type`` (binlogwriter/values/families.py); string for a type no family reads."""
    fam = family_of_column(col)
    return pa.string() if fam is None else fam.arrow_type(col)


_TEMPORAL = frozenset((7, 10, 11, 12, 14, 17, 18, 19))
_LENIENT = (MysqlDate, MysqlDateTime, MysqlTime)


def _converter(col: ColumnDesc, typ: pa.DataType) -> Callable[[Any], Any] | None:
    """Per-value conversion to what ``pa.array`` takes for ``typ`` (None: the value as is)."""
    t = col.type_code
    if t in _TEMPORAL:  # the lenient values (zero dates, …) Arrow cannot hold: null
        return lambda v: None if type(v) in _LENIENT else v
    if t == 245:
        return lambda v: json.dumps(v, ensure_ascii=False, default=str)
    if t == 255:
        return lambda v: v.to_bytes() if hasattr(v, "to_bytes") else v
    if pa.types.is_string(typ) and string_real_type(col) == 248:
        members = col.set_values or ()
        return lambda v: ",".join(m for m in members if m in v) if isinstance(v, frozenset) else str(v)
    return None


def _safe_array(vals: list | tuple, typ: pa.DataType) -> pa.Array:
    """``pa.array(vals, type=typ)`` with each value Arrow cannot hold as ``typ`` made null,
    found by halving (a few bad values among many cost a few conversions each)."""
    try:
        return pa.array(vals, type=typ)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError, ValueError):
        if len(vals) <= 1:
            return pa.nulls(len(vals), type=typ)
        mid = len(vals) // 2
        return pa.concat_arrays([_safe_array(vals[:mid], typ), _safe_array(vals[mid:], typ)])


def arrow_schema(cols: tuple[ColumnDesc, ...]) -> pa.Schema:
    """op, gtid, file, pos, timestamp, then before.<c> and after.<c> for every column."""
    fields = [pa.field("op", pa.string()), pa.field("gtid", pa.string()), pa.field("file", pa.string()),
              pa.field("pos", pa.uint64()), pa.field("timestamp", pa.timestamp("s", tz="UTC"))]
    types = [arrow_type(c) for c in cols]
    fields += [pa.field(f"before.{c.name}", typ) for c, typ in zip(cols, types, strict=True)]
    fields += [pa.field(f"after.{c.name}", typ) for c, typ in zip(cols, types, strict=True)]
    return pa.schema(fields)


class _TableBuffer:
    """Rows of one table definition waiting to become a record batch."""

    __slots__ = ("info", "schema", "types", "convs", "events", "befores", "afters", "none", "n")

    def __init__(self, info: TableInfo) -> None:
        self.info = info
        self.schema = arrow_schema(info.cols)
        self.types = [arrow_type(c) for c in info.cols]
        self.convs = [_converter(c, t) for c, t in zip(info.cols, self.types, strict=True)]
        self.none = (None,) * len(info.cols)
        self.clear()

    def clear(self) -> None:
        self.events: list[tuple] = []  # (op, gtid, file, pos, timestamp, number of rows)
        self.befores: list[tuple] = []
        self.afters: list[tuple] = []
        self.n = 0

    def __len__(self) -> int:
        return self.n

    def batch(self) -> pa.RecordBatch:
        n = self.n
        counts = np.fromiter((e[5] for e in self.events), dtype=np.int64, count=len(self.events))
        arrays = []
        for j, typ in ((0, pa.string()), (1, pa.string()), (2, pa.string()), (3, pa.uint64()), (4, pa.int64())):
            per_event = pa.array([e[j] for e in self.events], type=typ)
            arrays.append(per_event.take(pa.array(np.repeat(np.arange(len(counts)), counts))))
        arrays[4] = arrays[4].cast(pa.timestamp("s", tz="UTC"))
        for images in (self.befores, self.afters):
            columns = list(zip(*images, strict=True)) if n else [()] * len(self.types)
            for vals, typ, conv in zip(columns, self.types, self.convs, strict=True):
                if conv is not None:
                    vals = [None if v is None else conv(v) for v in vals]
                arrays.append(_safe_array(vals, typ))
        self.clear()
        return pa.RecordBatch.from_arrays(arrays, schema=self.schema)


def iter_table_batches(paths: Iterable[str | os.PathLike], *, schemas: Any = None, verify_checksum: bool = True,
                       batch_rows: int = 16384,
                       tables: Iterable[str] | None = None) -> Iterator[tuple[str, pa.RecordBatch]]:
    """``("db.table", record batch)`` pairs, each batch at most ``batch_rows`` changes of one
    table definition (a definition change starts a new schema). ``tables``: only these
    ``db.table`` names."""
    src = schemas if isinstance(schemas, SchemaSource) else (SchemaSource(schemas) if schemas is not None else None)
    reader = _Reader(src)
    wanted = set(tables) if tables is not None else None
    buffers: dict[int, _TableBuffer] = {}  # by id(TableInfo)
    rows_types = frozenset(ROWS_TYPES)
    for path in paths:
        name = os.fspath(path)
        tmap: dict[int, TableInfo] = {}
        gtid: str | None = None
        last_fmt = None
        footer, tid_size = 0, 6
        for offset, data, fmt in iter_frames(path, verify_checksum=verify_checksum):
            if fmt is not last_fmt:
                last_fmt, footer, tid_size = fmt, fmt.footer_size, fmt.table_id_size
            t = data[4]
            if t in rows_types:
                table_id = int.from_bytes(data[HEADER:HEADER + tid_size], "little")
                info = tmap.get(table_id)
                if info is None:
                    raise DecodeError(f"rows event for table id {table_id} without a preceding Table_map",
                                      file=name, offset=offset, event_type=type_name(t))
                key = info.key
                if wanted is not None and key not in wanted:
                    continue
                if info.error is not None:
                    raise info.error_class(info.error, file=name, offset=offset, event_type=type_name(t))
                if t == 39:
                    raise DecodeError("PARTIAL_UPDATE_ROWS_EVENT (format.md §14) is not exported",
                                      file=name, offset=offset, event_type=type_name(t))
                buf = buffers.get(id(info))
                if buf is None:
                    buf = buffers[id(info)] = _TableBuffer(info)
                _append_rows(buf, info, t, data, len(data) - footer, tid_size, gtid, name, offset)
                if len(buf) >= batch_rows:
                    yield key, buf.batch()
            elif t == 19:
                body = data[HEADER:len(data) - footer]
                info = reader.tm_cache.get(body)
                if info is None:
                    info = reader._table_map(name, offset, data, fmt)
                    reader.tm_cache[body] = info
                tmap[int.from_bytes(body[:tid_size], "little")] = info
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
                yield from _payload(reader, buffers, wanted, data, fmt, gtid, name, offset, batch_rows)
    for b in buffers.values():
        if len(b):
            yield f"{b.info.database}.{b.info.table}", b.batch()


def _payload(reader: _Reader, buffers: dict, wanted: set | None, data: bytes, fmt: Any, gtid: str | None,
             name: str, offset: int, batch_rows: int) -> Iterator[tuple[str, pa.RecordBatch]]:
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
                buf = buffers[id(info)] = _TableBuffer(info)
            raw = bytes(chunk)
            _append_rows(buf, info, t, raw, len(raw), fmt.table_id_size, gtid, name, offset)
            if len(buf) >= batch_rows:
                yield info.key, buf.batch()


_EXPORTED = frozenset(ROWS_TYPES) - {39}


def _append_rows(buf: _TableBuffer, info: TableInfo, t: int, data: bytes, end: int, tid_size: int,
                 gtid: str | None, name: str, offset: int) -> None:
    try:
        plan, rows = info.rows_header(t, data, end, tid_size)
        n = len(rows)
        pos = 0
        ts = int.from_bytes(data[0:4], "little")
        img = plan.bfull
        start = len(buf.befores)
        if plan.after is not None:
            aimg = plan.afull
            bapp, aapp = buf.befores.append, buf.afters.append
            while pos < n:
                v, _, pos = img(rows, pos)
                bapp(v)
                v, _, pos = aimg(rows, pos)
                aapp(v)
            op = "update"
        elif t in DELETE_TYPES:
            app = buf.befores.append
            while pos < n:
                v, _, pos = img(rows, pos)
                app(v)
            k = len(buf.befores) - start
            buf.afters.extend([buf.none] * k)
            op = "delete"
        else:
            app = buf.afters.append
            while pos < n:
                v, _, pos = img(rows, pos)
                app(v)
            k = len(buf.afters) - start
            buf.befores.extend([buf.none] * k)
            op = "insert"
        buf.events.append((op, gtid, name, offset, ts, len(buf.befores) - start))
        buf.n += len(buf.befores) - start
    except DecodeError as exc:
        raise exc.located(file=name, offset=offset, event_type=type_name(t),
                          path=f"{info.database}.{info.table}") from None
    except (ValueError, IndexError) as exc:
        raise DecodeError(f"malformed rows event: {exc}", file=name, offset=offset,
                          event_type=type_name(t)) from None


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
                cur = writers[key] = (batch.schema, pq.ParquetWriter(d / f"part-{n:05d}.parquet", batch.schema))
            cur[1].write_batch(batch)
            counts[key] = counts.get(key, 0) + batch.num_rows
    except OSError as exc:
        raise BinlogError(f"cannot write Parquet under {out}: {exc}") from None
    finally:
        for _, w in writers.values():
            w.close()
    return counts
