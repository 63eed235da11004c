"""Change-stream ground truth: ``truth/changes/`` (docs/output.md "Change-stream truth").

Every row change a run writes, in commit order, recorded from what the generator applied
and where the writer placed it — never from reading the binlogs back:

* :class:`ChangesRecorder` — the engine calls :meth:`ChangesRecorder.record` once per
  committed transaction with the statements it gave the writer; the writer's
  ``last_group`` (file, first offset, events, event lengths) and each statement's
  ``event_rows`` (rows per rows event, binlogwriter/transaction.py) place every row at its
  rows event; :meth:`ChangesRecorder.record_batch` does the same for a whole batch of the
  batch path from its arrays (positions by prefix sums of the planned event lengths, typed
  columns straight from the batch's numpy columns). Changes go to per-table Parquet
  *chunks* (one per table definition) and, when the run stays small, to a JSONL chunk
  (the batch path renders its lines at the end, only then). The single-process engine
  records ``aligned``: each chunk is written in the final row groups by a worker thread,
  so a table with one definition needs no merge; the rows held for unfinished row groups
  stay within ``HOLD_BYTES`` (over it, tables fall back to the merge).
* :func:`merge_table` — a table's chunks (in commit order, from one process or from every
  Spark partition in partition order) into ``truth/changes/<db>.<table>.parquet`` with the
  union of its definitions' columns and row groups of :data:`ROW_GROUP` rows, so the bytes
  do not depend on how the run was partitioned.
* :func:`write_final_parquet` — ``truth/final/parquet/<db>.<table>.parquet`` from the
  canonical rows of ``truth/final`` (same types).

Typed values come from the canonical form (generators/truth.py), so JSONL and Parquet hold
the same values: DECIMAL decimal128/256(p, s), BIGINT UNSIGNED uint64, FLOAT float32,
DATE date32, DATETIME timestamp[us], TIMESTAMP timestamp[us, UTC], TIME duration[us], text
string, binary data binary — the Arrow types of ``binlogwriter export``
(binlogwriter/read/export.py). A temporal value Arrow cannot hold (the zero date) is null in
the struct and its canonical text is in ``before_text`` / ``after_text``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import json
import os
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from binlogwriter import images
from binlogwriter.layouts.rows import ROWS_TYPES
from binlogwriter.read.export import arrow_type
from binlogwriter.schema import Column, Table
from binlogwriter.values.row import ColumnArray
from generators.truth import canonical_renderer, column_renderer

__all__ = ["ChangesRecorder", "merge_table", "write_final_parquet", "changes_schema", "typed_converter",
           "column_info", "column_from_info", "columns_metadata", "finish_local", "rechunk", "final_schema",
           "read_jsonl_rows", "table_file", "jsonl_line", "concat_text", "JSONL_MAX_CHANGES", "ROW_GROUP", "CHANGE_FIELDS"]

JSONL_MAX_CHANGES = 100_000  # truth/changes/changes.jsonl is written when the run has at most this many changes
ROW_GROUP = 65_536  # rows per Parquet row group of the merged files
BATCH_ROWS = 16_384  # changes per table buffered before they become a record batch
HOLD_BYTES = 192 << 20  # Arrow bytes the single-process engine holds for full row groups, all tables together
PARQUET_OPTIONS: dict[str, Any] = {"compression": "zstd", "compression_level": 1}
"""Writer options of every truth Parquet file (one place: the engine, the merge and Spark
write the same bytes). zstd level 1: about half the bytes of snappy for the same CPU time."""
_ROWS = frozenset(ROWS_TYPES)
_UTC = dt.UTC
_PLAIN = {t.id: py for ts, py in ((("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"), int),
                                   (("float32", "float64"), float), (("string",), str))
          for t in (pa.type_for_alias(x) for x in ts)}

CHANGE_FIELDS = ("seq", "op", "database", "table", "gtid", "file", "position", "row", "transaction_position",
                 "timestamp")
"""The per-change columns before the images (docs/output.md)."""

_STATS = list(CHANGE_FIELDS)
"""Columns with Parquet statistics (min/max: a reader can skip row groups by seq or position);
the image columns have none, which keeps the footer of a wide table small."""


# -- column types ---------------------------------------------------------------------------
def column_info(col: Column, flavor: str) -> dict[str, Any]:
    """A column's definition for ``manifest.json`` and the Parquet schema metadata: ``name``,
    ``type`` (SQL type name), ``nullable``, then only the attributes that are set (``length``,
    ``precision``, ``scale``, ``fsp``, ``unsigned``, ``charset``, ``collation``, ``members``,
    ``auto_increment``, …), and ``arrow_type``, the type of its typed truth."""
    d: dict[str, Any] = {"name": col.name, "type": col.type, "nullable": col.nullable}
    for f in dataclasses.fields(col):
        v = getattr(col, f.name)
        if f.name in d or v is None or v is False or v == () or v == f.default:
            continue
        d[f.name] = list(v) if isinstance(v, tuple) else v
    d["arrow_type"] = str(_arrow_type(col, flavor))
    return d


def column_from_info(info: Mapping[str, Any]) -> Column:
    """:func:`column_info` back to a Column (for comparing values in canonical form)."""
    names = {f.name for f in dataclasses.fields(Column)}
    return Column(**{k: (tuple(v) if k == "members" else v) for k, v in info.items() if k in names})


def _arrow_type(col: Column, flavor: str) -> pa.DataType:
    return arrow_type(col.column_desc(flavor, ""))


def _temporal_parser(typ: pa.DataType) -> Callable[[str], Any]:
    if pa.types.is_date32(typ):
        return lambda s: dt.date(int(s[0:4]), int(s[5:7]), int(s[8:10]))
    if pa.types.is_timestamp(typ):
        tz = _UTC if typ.tz else None

        def ts(s: str) -> dt.datetime:
            frac = s[20:]
            return dt.datetime(int(s[0:4]), int(s[5:7]), int(s[8:10]), int(s[11:13]), int(s[14:16]),
                               int(s[17:19]), int(frac.ljust(6, "0")) if frac else 0, tzinfo=tz)
        return ts

    def time(s: str) -> dt.timedelta:
        neg = s.startswith("-")
        body = s[1:] if neg else s
        hms, _, frac = body.partition(".")
        h, m, sec = (int(x) for x in hms.split(":"))
        us = ((h * 60 + m) * 60 + sec) * 1_000_000 + (int(frac.ljust(6, "0")) if frac else 0)
        return dt.timedelta(microseconds=-us if neg else us)
    return time


_SAME, _CONVERT, _TEMPORAL = 0, 1, 2


def _column_plan(col: Column, flavor: str) -> tuple[pa.DataType, int, Callable[[Any], Any] | None]:
    """(Arrow type, how, fn): how the canonical values of ``col`` become typed ones —
    ``_SAME`` as they are (integers, floats, text), ``_CONVERT`` through ``fn`` (DECIMAL
    text -> Decimal, ``0x`` hex -> bytes), ``_TEMPORAL`` parsed by ``fn``, or null plus the
    canonical text when it is not a calendar value (the zero date)."""
    typ = _arrow_type(col, flavor)
    if pa.types.is_decimal(typ):
        return typ, _CONVERT, Decimal
    if pa.types.is_integer(typ) or pa.types.is_floating(typ) or pa.types.is_string(typ):
        return typ, _SAME, None
    if pa.types.is_binary(typ):
        return typ, _CONVERT, lambda v: bytes.fromhex(v[2:])
    if pa.types.is_date32(typ) or pa.types.is_timestamp(typ) or pa.types.is_duration(typ):
        return typ, _TEMPORAL, _temporal_parser(typ)
    raise ValueError(f"column {col.name}: no typed truth for Arrow type {typ}")


def typed_converter(col: Column, flavor: str) -> tuple[pa.DataType, Callable[[Any], tuple[Any, str | None]]]:
    """(Arrow type, fn(canonical value) -> (typed value, canonical text when the type cannot
    hold it))."""
    typ, how, fn = _column_plan(col, flavor)

    def conv(v: Any) -> tuple[Any, str | None]:
        if how == _SAME:
            return v, None
        if how == _CONVERT:
            return fn(v), None
        try:
            return fn(v), None
        except (ValueError, OverflowError):
            return None, v
    return typ, conv


def _typed_columns(plans: list, names: list[str], fulls: list) -> tuple[list[pa.Array], list]:
    """Canonical full rows (or None) -> one typed Arrow array per column, and per row the
    ``[(column, canonical text)]`` of values the types cannot hold (None when there are none)."""
    n = len(fulls)
    none = (None,) * len(names)
    columns = list(zip(*[none if f is None else f for f in fulls], strict=True)) if n else [()] * len(names)
    texts: list[Any] = [None] * n
    arrays = []
    for (typ, how, fn), name, vals in zip(plans, names, columns, strict=True):
        if how == _CONVERT:
            vals = [None if v is None else fn(v) for v in vals]
        elif how == _TEMPORAL:
            out = []
            for r, v in enumerate(vals):
                if v is None:
                    out.append(None)
                    continue
                try:
                    out.append(fn(v))
                except (ValueError, OverflowError):  # the zero date, zero parts: not a calendar value
                    out.append(None)
                    if texts[r] is None:
                        texts[r] = []
                    texts[r].append((name, v))
            vals = out
        arrays.append(pa.array(vals, type=typ))
    return arrays, texts


def _struct(table: Table, flavor: str) -> tuple[pa.StructType, list]:
    plans = [_column_plan(c, flavor) for c in table.columns]
    return pa.struct([pa.field(c.name, p[0], nullable=True) for c, p in zip(table.columns, plans, strict=True)]), plans


def columns_metadata(tables: Iterable[Table], flavor: str) -> dict[bytes, bytes]:
    cols: dict[str, Any] = {}
    for t in tables:
        for c in t.columns:
            cols.setdefault(c.name, column_info(c, flavor))
    return {b"binlogwriter.columns": json.dumps(cols, ensure_ascii=False).encode()}


def changes_schema(struct: pa.StructType, metadata: dict[bytes, bytes] | None = None) -> pa.Schema:
    """The columns of ``truth/changes/<db>.<table>.parquet`` (docs/output.md)."""
    names = pa.list_(pa.string())
    text = pa.map_(pa.string(), pa.string())
    return pa.schema([
        pa.field("seq", pa.int64(), nullable=False), pa.field("op", pa.string(), nullable=False),
        pa.field("database", pa.string(), nullable=False), pa.field("table", pa.string(), nullable=False),
        pa.field("gtid", pa.string()), pa.field("file", pa.string(), nullable=False),
        pa.field("position", pa.int64(), nullable=False), pa.field("row", pa.int32(), nullable=False),
        pa.field("transaction_position", pa.int64(), nullable=False),
        pa.field("timestamp", pa.timestamp("s", tz="UTC"), nullable=False),
        pa.field("columns", names, nullable=False), pa.field("before", struct), pa.field("after", struct),
        pa.field("before_columns", names), pa.field("after_columns", names),
        pa.field("before_text", text), pa.field("after_text", text),
    ], metadata=metadata)


# -- recording ------------------------------------------------------------------------------
class _Sink:
    """Row groups written by one worker thread, in the order they are given: Parquet
    encoding and compression run without the GIL (pyarrow), so the truth is written while
    the next batch is generated. At most ``depth`` jobs wait (each holds a row group)."""

    def __init__(self, depth: int = 1) -> None:
        import queue
        import threading

        self._q: Any = queue.Queue(maxsize=depth)
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._work, name="truth-changes-writer", daemon=True)
        self._thread.start()

    def _work(self) -> None:
        while True:
            job = self._q.get()
            try:
                if job is None:
                    return
                if self.error is None:
                    job()
            except BaseException as e:  # noqa: BLE001 - raised in the caller's thread by submit/close
                self.error = e
            finally:
                self._q.task_done()

    def _check(self) -> None:
        if self.error is not None:
            err, self.error = self.error, None
            raise err

    def submit(self, job: Callable[[], None]) -> None:
        self._check()
        self._q.put(job)

    def drain(self) -> None:
        self._q.join()
        self._check()

    def close(self) -> None:
        """Wait for every job, stop the thread; the first error of a job is raised here."""
        self._q.put(None)
        self._thread.join()
        self._check()


class _Segment:
    """Changes of one table definition: a Parquet file being written.

    ``aligned`` (the single-process engine): record batches are held until they fill a row
    group of :data:`ROW_GROUP` rows, written as one contiguous chunk exactly as
    :func:`rechunk` writes it, so a table with one definition needs no merge pass — its
    file *is* ``truth/changes/<db>.<table>.parquet``. The recorder may :meth:`spill` a
    segment when the rows held by all segments pass its memory budget; the segment then
    writes its batches as they come and becomes a chunk for :func:`merge_table`. ``sink``:
    the :class:`_Sink` that does the writing (None: this thread)."""

    def __init__(self, table: Table, flavor: str, path: Path, aligned: bool = False,
                 sink: _Sink | None = None) -> None:
        self.table = table
        self.names = [c.name for c in table.columns]
        self.struct, self.convs = _struct(table, flavor)
        self.schema = changes_schema(self.struct, columns_metadata([table], flavor))
        self.path = path
        self.writer: pq.ParquetWriter | None = None
        self.rows: list[tuple] = []
        self.aligned = aligned
        self.sink = sink
        self.pending: list[pa.RecordBatch] = []
        self.held = 0  # rows in ``pending``
        self.held_bytes = 0

    def _open(self) -> pq.ParquetWriter:
        if self.writer is None:
            self.writer = pq.ParquetWriter(self.path, self.schema, write_statistics=_STATS, **PARQUET_OPTIONS)
        return self.writer

    def _do(self, job: Callable[[], None]) -> None:
        if self.sink is None:
            job()
        else:
            self.sink.submit(job)

    def _groups(self, parts: list[pa.Table]) -> None:
        # one contiguous chunk per row group, as rechunk writes it: same pages, same bytes
        def job() -> None:
            w = self._open()
            for t in parts:
                w.write_table(t.combine_chunks(), row_group_size=ROW_GROUP)
        self._do(job)

    def _batches(self, batches: list[pa.RecordBatch]) -> None:
        def job() -> None:
            w = self._open()
            for b in batches:
                w.write_batch(b)
        self._do(job)

    def write(self, batch: pa.RecordBatch) -> int:
        """Add a record batch of :attr:`schema`; returns the change of bytes held."""
        if not self.aligned:
            self._batches([batch])
            return 0
        before = self.held_bytes
        self.pending.append(batch)
        self.held += batch.num_rows
        self.held_bytes += batch.nbytes
        rg = ROW_GROUP
        if self.held >= rg:
            tab = pa.Table.from_batches(self.pending, schema=self.schema)
            at = 0
            parts = []
            while self.held - at >= rg:
                parts.append(tab.slice(at, rg))
                at += rg
            self._groups(parts)
            rest = tab.slice(at)
            self.held = rest.num_rows
            self.pending = rest.to_batches() if self.held else []
            self.held_bytes = sum(b.nbytes for b in self.pending)
        return self.held_bytes - before

    def spill(self) -> int:
        """Stop aligning: write what is held as it is (this file becomes a chunk to merge)."""
        freed = self.held_bytes
        self.aligned = False
        if self.pending:
            self._batches(self.pending)
        self.pending, self.held, self.held_bytes = [], 0, 0
        return freed

    def flush(self) -> int:
        if not self.rows:
            return 0
        batch = _batch(self.schema, self.struct, self.convs, self.names, self.rows)
        self.rows = []
        return self.write(batch)

    def close(self) -> None:
        """Write what is left and close the file (through the sink: done once it is drained)."""
        self.flush()
        if self.pending:
            self._groups([pa.Table.from_batches(self.pending, schema=self.schema)])
            self.pending, self.held, self.held_bytes = [], 0, 0

        def job() -> None:
            if self.writer is not None:
                self.writer.close()
                self.writer = None
        self._do(job)


def _typed_struct(struct: pa.StructType, convs: list, names: list[str], rows: list, col: int
                  ) -> tuple[pa.Array, pa.Array, pa.Array]:
    """(struct array of full rows, before/after column lists, text maps) of image ``col``
    (9 = before, 10 = after) of ``rows``."""
    fulls = [rec[col] for rec in rows]
    mask = [f is None for f in fulls]
    lists: dict[tuple, list[str]] = {}

    def names_of(bits: tuple) -> list[str]:
        got = lists.get(bits)
        if got is None:
            got = lists[bits] = [nm for nm, p in zip(names, bits, strict=True) if p]
        return got
    cols = [None if rec[col] is None else names_of(rec[col + 2]) for rec in rows]
    arrays, texts = _typed_columns(convs, names, fulls)
    sa = pa.StructArray.from_arrays(arrays, fields=list(struct), mask=pa.array(mask, type=pa.bool_()))
    return sa, pa.array(cols, type=pa.list_(pa.string())), pa.array(texts, type=pa.map_(pa.string(), pa.string()))


def _batch(schema: pa.Schema, struct: pa.StructType, convs: list, names: list[str], rows: list) -> pa.RecordBatch:
    cols = list(zip(*[r[:9] for r in rows], strict=True))
    arrays = [pa.array(cols[0], pa.int64()), pa.array(cols[1], pa.string()), pa.array(cols[2], pa.string()),
              pa.array(cols[3], pa.string()), pa.array(cols[4], pa.string()), pa.array(cols[5], pa.string()),
              pa.array(cols[6], pa.int64()), pa.array(cols[7], pa.int32()), pa.array(cols[8], pa.int64())]
    arrays.append(pa.array([r[13] for r in rows], pa.timestamp("s", tz="UTC")))
    b, bcols, btext = _typed_struct(struct, convs, names, rows, 9)
    a, acols, atext = _typed_struct(struct, convs, names, rows, 10)
    arrays.append(pa.array([names] * len(rows), pa.list_(pa.string())))
    arrays += [b, a, bcols, acols, btext, atext]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


class ChangesRecorder:
    """Collects the row changes of a run (or of one Spark partition) into ``chunk_dir``.

    ``seq_start``: the sequence number of the first change recorded here (Spark: the
    changes of the partitions before this one). ``jsonl``: also write ``changes.jsonl``
    (a chunk of it, for Spark) when at most ``jsonl_max`` changes were recorded — the batch
    path keeps its batches' columns and renders their lines at :meth:`close`, only when
    the run stayed that small. ``aligned`` (the single-process engine): segments write
    final row groups (:class:`_Segment`), :meth:`close` reports which chunks are final
    files; the rows they hold wait within ``budget`` bytes."""

    def __init__(self, run: Any, chunk_dir: str | os.PathLike, *, seq_start: int = 0, jsonl: bool = True,
                 jsonl_max: int | None = None, batch_rows: int | None = None, aligned: bool = False,
                 budget: int | None = None) -> None:
        self.run = run
        self.flavor = run.spec.flavor
        self.image = run.spec.row_image
        self.dir = Path(chunk_dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.seq = seq_start
        self.count = 0
        self.batch_rows = BATCH_ROWS if batch_rows is None else batch_rows
        self.jsonl_max = JSONL_MAX_CHANGES if jsonl_max is None else jsonl_max
        self.jsonl_path = self.dir / "changes.jsonl"
        self._jsonl = open(self.jsonl_path, "w", encoding="utf-8", newline="\n") if jsonl else None  # noqa: SIM115
        self._deferred: list[Callable[[], str]] = []  # batch-path JSONL, rendered at close()
        self.aligned = aligned
        self.budget = HOLD_BYTES if budget is None else budget
        self.held = 0  # bytes held by aligned segments
        self.segments: dict[int, _Segment] = {}
        self.chunks: list[tuple[int, str]] = []  # (table index, chunk path) in order
        self._all: list[_Segment] = []
        self._n = 0
        self._renders: dict[int, tuple[Table, Callable]] = {}
        self._bits: dict[tuple, tuple] = {}
        self._pools: dict[tuple, tuple] = {}
        self._sink = _Sink() if aligned else None

    def _drop_jsonl(self) -> None:
        self._deferred = []
        if self._jsonl is not None:
            self._jsonl.close()
            self._jsonl = None
            os.unlink(self.jsonl_path)

    def _render_deferred(self) -> None:
        for job in self._deferred:
            self._jsonl.write(job())
        self._deferred = []

    def _hold(self, delta: int) -> None:
        """Account bytes held by aligned segments; over the budget, the segments holding the
        most stop aligning (their tables are merged at the end, as Spark's are)."""
        self.held += delta
        if self.held <= self.budget:
            return
        for seg in sorted((s for s in self.segments.values() if s.held_bytes), key=lambda s: -s.held_bytes):
            self.held -= seg.spill()
            if self.held <= self.budget // 2:
                break

    # -- the hook -----------------------------------------------------------------------
    def record(self, writer: Any, stmts: list[tuple[int, str, list]], tx: Any) -> None:
        """One committed transaction: ``stmts`` as given to the writer (table index, kind,
        rows — an insert/delete row is the full row, an update row ``(before row, after)``
        with ``after`` a full row or a mapping column index/name -> new value), ``tx`` the
        writer's Transaction (its statements' ``event_rows``), read right after the commit
        together with ``writer.last_group`` / ``last_gtid`` / ``now``."""
        fname, first, events, lengths = writer.last_group
        places: list[int] = []
        off = first
        payload = None
        for ev, ln in zip(events, lengths, strict=True):
            t = ev.type_code
            if t in _ROWS:
                places.append(off)
            elif t == 40:  # TRANSACTION_PAYLOAD: its rows events are inside (format.md §15)
                payload = off
            off += ln
        counts = [n for st in tx.statements for n in st.event_rows]
        if payload is not None:
            places = [payload] * len(counts)
        at: list[tuple[int, int]] = []  # (position, row in event) of every row, in order
        for pos, n in zip(places, counts, strict=True):
            at.extend((pos, r) for r in range(n))
        gtid = writer.last_gtid
        ts = writer.now
        k = 0
        for tidx, kind, rows in stmts:
            table = self.run.rows[tidx].table
            for row in rows:
                pos, r = at[k]
                k += 1
                self._add(tidx, table, kind, row, gtid, fname, pos, r, first, ts)
        if k != len(at):
            raise RuntimeError(f"changes truth: {len(at)} rows in the rows events, {k} rows given")

    # -- the batch path ---------------------------------------------------------------------
    def record_batch(self, ab: Any, rb: Any, plan: Any, placed: list, kept: int) -> None:
        """The committed transactions ``0..kept-1`` of one batch of the batch path
        (generators/engine.py ``_batch``): ``ab`` the :class:`generators.batch.AppliedBatch`
        (changes as arrays, their rows column by column in ``ab.values``), ``rb`` the
        :class:`~binlogwriter.batch.columnar.RowsBatch` (image shapes, clocks), ``plan`` its
        :class:`~binlogwriter.batch.columnar.RowsPlan` (event lengths, the rows event of every
        change), ``placed`` per written segment ``(file, first txn, end txn, offset, first
        GTID)``. Positions are the plan's prefix sums from each segment's offset, exactly where
        :meth:`BinlogWriter.write_planned` puts the events; the records equal what
        :meth:`record` makes of the same transactions written one by one."""
        m = int(np.searchsorted(ab.txn, kept, side="left"))  # changes are in transaction order
        if m == 0:
            return
        ops = np.arange(m, dtype=np.int64)
        ch = np.searchsorted(plan.chunk_first, ops, side="right") - 1
        op_row = ops - plan.chunk_first[ch]
        op_ev = plan.chunk_event[ch]
        op_txn = ab.txn[:m]
        ev_pos = np.zeros(len(plan.ev_len), dtype=np.int64)
        txn_file = np.zeros(kept, dtype=np.int64)
        files: list[str] = []
        txn_gtid: list[str | None] = [None] * kept
        for fname, lo, hi, off, first in placed:
            a, b = int(plan.txn_first[lo]), int(plan.txn_first[hi])
            ln = plan.ev_len[a:b]
            ev_pos[a:b] = off + np.cumsum(ln) - ln
            txn_file[lo:hi] = len(files)
            files.append(fname)
            if first is not None:  # GNO / MariaDB seq_no: one per transaction that wrote a group
                cut = max(first.rfind(":"), first.rfind("-")) + 1
                head, num = first[:cut], int(first[cut:])
                for k, t in enumerate((np.flatnonzero(plan.sizes[lo:hi] > 0) + lo).tolist()):
                    txn_gtid[t] = f"{head}{num + k}"
        position = ev_pos[op_ev]
        txpos = ev_pos[plan.txn_first[op_txn]]
        ts = np.asarray(rb.clock, dtype=np.int64)[op_txn]
        op_file = _np_array(txn_file[op_txn])  # per change: index into files / txn
        gtids = pa.array(txn_gtid, pa.string())
        fnames = pa.array(files, pa.string())
        op_tab = ab.table[:m]
        op_kind = ab.kind[:m]
        op_shape = rb.op_shape[:m]
        if self._jsonl is not None and self.count + m > self.jsonl_max:
            self._drop_jsonl()
        fills: list | None = [] if self._jsonl is not None else None
        tabs = np.unique(op_tab).tolist()
        for tidx in tabs:
            mine = np.flatnonzero(op_tab == tidx) if len(tabs) > 1 else ops
            self._record_table(tidx, mine, ab.values[tidx], op_kind[mine], op_shape[mine], rb.shapes,
                               gtids.take(_np_array(op_txn[mine])), fnames.take(op_file.take(_np_array(mine))),
                               position[mine], op_row[mine], txpos[mine], ts[mine], fills)
        if fills is not None:
            def job() -> str:
                lines = [""] * m
                for fill in fills:
                    fill(lines)
                return "".join(x + "\n" for x in lines)
            self._deferred.append(job)
        self.seq += m
        self.count += m

    def _segment(self, tidx: int, table: Table) -> _Segment:
        seg = self.segments.get(tidx)
        if seg is None or seg.table is not table:
            if seg is not None:
                self.held -= seg.held_bytes
                seg.close()
            self._n += 1
            path = self.dir / f"t{tidx:05d}-{self._n:06d}.parquet"
            seg = self.segments[tidx] = _Segment(table, self.flavor, path, self.aligned, self._sink)
            self._all.append(seg)
            self.chunks.append((tidx, str(path)))
        return seg

    def _typed(self, col: Column, values: Any) -> tuple[pa.Array, dict[int, str]]:
        """:func:`_typed_array`, with the typed form of a value pool kept while its pool lives."""
        if isinstance(values, ColumnArray) and values.kind == "pool":
            key = (id(values.pool), id(col))
            hit = self._pools.get(key)
            if hit is None or hit[0] is not values.pool or hit[1] is not col:
                if len(self._pools) >= 256:
                    self._pools.clear()
                hit = self._pools[key] = (values.pool, col, *_typed_values(col, self.flavor, list(values.pool)))
            return _take_pool(hit[2], hit[3], values)
        return _typed_array(col, self.flavor, values)

    def _record_table(self, tidx: int, mine: np.ndarray, values: tuple, kinds: np.ndarray, shapes: np.ndarray,
                      shape_bits: list, gtid: pa.Array, fname: pa.Array, pos: np.ndarray, row: np.ndarray,
                      txpos: np.ndarray, ts: np.ndarray, fills: list | None) -> None:
        """The changes ``mine`` (batch op indices) of table ``tidx``: the same record batch
        :class:`_Segment` makes of them, built column by column from the batch's arrays."""
        table = self.run.rows[tidx].table
        seg = self._segment(tidx, table)
        self._hold(seg.flush())  # changes recorded one by one before this batch come first
        cols, need_b, need_a = values
        names = seg.names
        n = len(mine)
        nb = len(need_b)
        has_b = kinds != 0
        has_a = kinds != 2
        bi = np.searchsorted(need_b, mine)
        ai = nb + np.searchsorted(need_a, mine)
        typed: list[pa.Array] = []
        row_text: dict[int, list] = {}
        for c, col in zip(cols, table.columns, strict=True):
            arr, texts = self._typed(col, c)
            typed.append(arr)
            for r, t in texts.items():
                row_text.setdefault(r, []).append((col.name, t))
        fields = list(seg.struct)

        def struct(idx: np.ndarray, has: np.ndarray) -> pa.StructArray:
            take = _np_array(idx, ~has)
            return pa.StructArray.from_arrays([a.take(take) for a in typed], fields=fields,
                                              mask=_np_bool(~has))

        def text(idx: np.ndarray, has: np.ndarray) -> pa.Array:
            if not row_text:
                return pa.nulls(n, pa.map_(pa.string(), pa.string()))
            return pa.array([row_text.get(r) if h else None for r, h in zip(idx.tolist(), has.tolist(), strict=True)],
                            type=pa.map_(pa.string(), pa.string()))

        # per (kind, shape): the image columns, gathered per change with one take
        combo = kinds.astype(np.int64) * len(shape_bits) + shapes
        uniq, inv = np.unique(combo, return_inverse=True)
        images: list[tuple] = []
        for u in uniq.tolist():
            k, (b, a) = u // len(shape_bits), shape_bits[u % len(shape_bits)]
            images.append((None, b) if k == 0 else (b, None) if k == 2 else (b, a))

        def image_names(b: Any) -> list | None:
            return None if b is None else [nm for nm, p in zip(names, b, strict=True) if p]
        lst = pa.list_(pa.string())
        at = _np_array(inv)
        zero = _np_array(np.zeros(n, dtype=np.int64))
        seq = self.seq + mine
        arrays = [_np_array(seq), _ops().take(_np_array(kinds)),
                  pa.array([table.database], pa.string()).take(zero), pa.array([table.name], pa.string()).take(zero),
                  gtid, fname, _np_array(pos), _np_array(row).cast(pa.int32()), _np_array(txpos),
                  _np_array(ts).cast(pa.timestamp("s", tz="UTC")),
                  pa.array([names], lst).take(zero),
                  struct(bi, has_b), struct(ai, has_a),
                  pa.array([image_names(b) for b, _ in images], lst).take(at),
                  pa.array([image_names(a) for _, a in images], lst).take(at),
                  text(bi, has_b), text(ai, has_a)]
        self._hold(seg.write(pa.RecordBatch.from_arrays(arrays, schema=seg.schema)))
        if fills is not None:  # JSONL lines: rendered at close(), only if the run stays small
            flavor = self.flavor

            def fill(lines: list) -> None:
                canon = [_canon_column(col, flavor, c) for c, col in zip(cols, table.columns, strict=True)]
                _jsonl_lines(lines, table, names, canon, nb + len(need_a), mine, seq.tolist(),
                             [_OP_NAMES[k] for k in kinds.tolist()], gtid.to_pylist(), fname.to_pylist(), pos, row,
                             txpos, ts, has_b, has_a, bi, ai, [images[j] for j in inv.tolist()])
            fills.append(fill)

    def _render(self, tidx: int, table: Table) -> Callable:
        cur = self._renders.get(tidx)
        if cur is None or cur[0] is not table:
            cur = self._renders[tidx] = (table, canonical_renderer(table, self.flavor))
        return cur[1]

    def _images(self, table: Table, kind: str, assigned: tuple) -> tuple:
        key = (id(table), kind, assigned)
        hit = self._bits.get(key)
        if hit is None or hit[0] is not table:
            if kind == "insert":
                bits = (None, images.insert_columns(table, self.image, range(len(table.columns)), self.flavor))
            elif kind == "delete":
                bits = (images.delete_columns(table, self.image, self.flavor), None)
            else:
                bits = images.update_columns(table, self.image, assigned, self.flavor)
            hit = self._bits[key] = (table, bits)
        return hit[1]

    def _add(self, tidx: int, table: Table, kind: str, row: Any, gtid: str | None, fname: str, pos: int, r: int,
             txpos: int, ts: int) -> None:
        render = self._render(tidx, table)
        if kind == "update":
            before, after = row
            before = tuple(before)
            if isinstance(after, Mapping):
                idx = {(table.index_of(c) if isinstance(c, str) else c): v for c, v in after.items()}
                assigned = tuple(sorted(idx))
                full = list(before)
                for i, v in idx.items():
                    full[i] = v
                after = tuple(full)
            else:
                after = tuple(after)
                assigned = tuple(range(len(after)))
            b, a = render(before), render(after)
        elif kind == "insert":
            b, a, assigned = None, render(tuple(row)), ()
        else:
            b, a, assigned = render(tuple(row)), None, ()
        bbits, abits = self._images(table, kind, assigned)
        seg = self._segment(tidx, table)
        rec = (self.seq, kind, table.database, table.name, gtid, fname, pos, r, txpos, b, a, bbits, abits, ts)
        seg.rows.append(rec)
        if len(seg.rows) >= self.batch_rows:
            self._hold(seg.flush())
        if self._jsonl is not None:
            if self.count < self.jsonl_max:
                self._render_deferred()
                self._jsonl.write(jsonl_line(rec, seg.names) + "\n")
            else:
                self._drop_jsonl()
        self.seq += 1
        self.count += 1

    def close(self) -> dict[str, Any]:
        """Flush and close every chunk; what the merge needs: ``chunks`` (table index, path)
        in order, ``final`` the tables whose one chunk is already their merged file
        (``aligned`` segments that never spilled), ``jsonl``, ``count``."""
        for seg in self.segments.values():
            seg.close()
        self.segments = {}
        self.held = 0
        if self._sink is not None:
            sink, self._sink = self._sink, None
            sink.close()
        jsonl = None
        if self._jsonl is not None:
            self._render_deferred()
            self._jsonl.close()
            self._jsonl = None
            jsonl = str(self.jsonl_path)
        per: dict[int, list[_Segment]] = {}
        for (t, _), seg in zip(self.chunks, self._all, strict=True):
            per.setdefault(t, []).append(seg)
        final = {t: (str(segs[0].path), segs[0].schema) for t, segs in per.items() if len(segs) == 1 and segs[0].aligned}
        return {"chunks": [(t, p) for t, p in self.chunks if os.path.exists(p)], "jsonl": jsonl,
                "count": self.count, "final": final}

    def abort(self) -> None:
        if self._sink is not None:
            sink, self._sink = self._sink, None
            try:
                sink.close()
            except BaseException:  # noqa: BLE001 - the run's own error is the one raised
                pass
        for seg in self.segments.values():
            if seg.writer is not None:
                seg.writer.close()
        self._deferred = []
        if self._jsonl is not None:
            self._jsonl.close()


def _np_array(data: np.ndarray, nulls: np.ndarray | None = None) -> pa.Array:
    """A numpy array (int64, int32, bool, float) as an Arrow array over the same memory,
    ``nulls`` (True = null) as its validity bitmap."""
    data = np.ascontiguousarray(data)
    typ = pa.from_numpy_dtype(data.dtype)
    validity, count = _validity(nulls)
    if data.dtype == np.bool_:
        return pa.Array.from_buffers(typ, len(data), [validity, pa.py_buffer(np.packbits(data, bitorder="little"))],
                                     null_count=count)
    return pa.Array.from_buffers(typ, len(data), [validity, pa.py_buffer(data)], null_count=count)


def _np_bool(mask: np.ndarray) -> pa.Array:
    return _np_array(np.asarray(mask, dtype=np.bool_))


def _validity(nulls: np.ndarray | None) -> tuple[pa.Buffer | None, int]:
    if nulls is None:
        return None, 0
    count = int(np.count_nonzero(nulls))
    if not count:
        return None, 0
    return pa.py_buffer(np.packbits(~np.asarray(nulls, dtype=np.bool_), bitorder="little")), count


_OP_NAMES = ("insert", "update", "delete")


@functools.cache
def _ops() -> pa.Array:
    return pa.array(list(_OP_NAMES), pa.string())  # not at import: pyarrow's first conversion imports pandas
_IDENTITY_TEXT = frozenset(("VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT", "ENUM"))


def _ascii_strings(data: np.ndarray, nulls: np.ndarray | None, strip_spaces: bool) -> pa.Array:
    """Fixed-width ASCII rows (an (n, w) uint8 array) -> an Arrow string array of what
    :meth:`ColumnArray.tolist` decodes (trailing NULs dropped, as numpy's ``S`` dtype does),
    then, for CHAR, without trailing spaces (the canonical form)."""
    n, w = data.shape
    validity, count = _validity(nulls)
    if w and count == 0 and bool(np.all((data[:, -1] != 0) & (data[:, -1] != 32))):
        # no row ends in a NUL or a space: every value is all w bytes
        offsets = np.arange(0, (n + 1) * w, w, dtype=np.int32)
        return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets),
                                                      pa.py_buffer(np.ascontiguousarray(data))], null_count=0)
    if not w:  # no bytes: every value is ""
        return pa.Array.from_buffers(pa.string(), n, [validity, pa.py_buffer(np.zeros(n + 1, dtype=np.int32)),
                                                      pa.py_buffer(b"")], null_count=count)
    idx = np.arange(w)
    keep = data != 0
    if strip_spaces:
        # trailing spaces before the trailing NULs: the last byte that is neither, within the NUL-stripped text
        nul_len = np.where(keep.any(axis=1), w - np.argmax(keep[:, ::-1], axis=1), 0)
        keep = (data != 32) & (idx < nul_len[:, None])
    lengths = np.where(keep.any(axis=1), w - np.argmax(keep[:, ::-1], axis=1), 0)
    if nulls is not None:
        lengths = np.where(nulls, 0, lengths)
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    values = data[idx < lengths[:, None]]
    return pa.Array.from_buffers(pa.string(), n, [validity, pa.py_buffer(offsets), pa.py_buffer(values)],
                                 null_count=count)


def _typed_values(col: Column, flavor: str, vals: list) -> tuple[pa.Array, dict[int, str]]:
    """Python values (None = NULL) of one column -> (typed Arrow array, {row: canonical text
    the type cannot hold}): what :func:`canonical_renderer` and :func:`typed_converter` make
    of each value."""
    render = column_renderer(col, flavor)
    typ, conv = typed_converter(col, flavor)
    canon = [None if v is None else render(v) for v in vals]
    if (pa.types.is_string(typ) or pa.types.is_integer(typ) or pa.types.is_floating(typ)) \
            and set(map(type, canon)) <= {_PLAIN[typ.id], type(None)}:
        return pa.array(canon, type=typ), {}  # conv is the identity on these values
    out: list = [None] * len(canon)
    texts: dict[int, str] = {}
    for r, v in enumerate(canon):
        if v is None:
            continue
        tv, t = conv(v)
        out[r] = tv
        if t is not None:
            texts[r] = t
    return pa.array(out, type=typ), texts


def _take_pool(arr: pa.Array, texts: dict[int, str], values: ColumnArray) -> tuple[pa.Array, dict[int, str]]:
    """A pool column: the typed pool gathered by the rows' pool indexes."""
    idx = np.asarray(values.data, dtype=np.int64)
    got = arr.take(_np_array(idx, values.nulls))
    if not texts:
        return got, {}
    nulls = values.nulls
    return got, {r: texts[i] for r, i in enumerate(idx.tolist()) if i in texts and (nulls is None or not nulls[r])}


def _typed_array(col: Column, flavor: str, values: Any) -> tuple[pa.Array, dict[int, str]]:
    """One column of many rows (a ``ColumnArray`` or a list of Python values) -> (typed Arrow
    array, {row: canonical text the type cannot hold}), straight from the arrays where the
    canonical form is the value itself (integers; ASCII text, CHAR without trailing spaces),
    else through :func:`_typed_values`."""
    if isinstance(values, ColumnArray):
        typ = _arrow_type(col, flavor)
        if values.kind == "int" and pa.types.is_integer(typ) and column_renderer(col, flavor) is int:
            return _np_array(np.asarray(values.data, dtype=np.int64), values.nulls).cast(typ), {}
        if values.kind == "ascii" and pa.types.is_string(typ) and (col.type in _IDENTITY_TEXT or col.type == "CHAR"):
            return _ascii_strings(np.asarray(values.data, dtype=np.uint8), values.nulls, col.type == "CHAR"), {}
        if values.kind == "pool":
            return _take_pool(*_typed_values(col, flavor, list(values.pool)), values)
        values = values.tolist()
    return _typed_values(col, flavor, values)


def _canon_column(col: Column, flavor: str, values: Any) -> list:
    """Canonical values (docs/output.md) of one column of many rows."""
    render = column_renderer(col, flavor)
    vals = values.tolist() if isinstance(values, ColumnArray) else values
    return [None if v is None else render(v) for v in vals]


_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _jsonl_lines(lines: list, table: Table, names: list[str], canon: list[list], nrows: int, mine: np.ndarray,
                 seq: list, op: list, gtid: list, fname: list, pos: np.ndarray, row: np.ndarray, txpos: np.ndarray,
                 ts: np.ndarray, has_b: np.ndarray, has_a: np.ndarray, bi: np.ndarray, ai: np.ndarray,
                 bits: list) -> None:
    """:func:`jsonl_line` of many changes of one table into ``lines[mine[k]]``, the same text:
    every full row is encoded once, an image that carries every column reuses it, the
    fields around it are formatted once per distinct value."""
    enc = _ENCODE
    keys = [enc(nm).replace("%", "%%") + ":%s" for nm in names]
    cols = [_json_values(c) for c in canon]
    rows = list(zip(*cols, strict=True)) if cols else [()] * nrows
    tmpl = "{" + ",".join(keys) + "}"
    full = [tmpl % r for r in rows]
    db, tb = enc(table.database), enc(table.name)
    memo: dict[Any, str] = {None: "null"}

    def text(v: Any) -> str:
        t = memo.get(v)
        if t is None:
            t = memo[v] = enc(v)
        return t
    pick: dict[int, tuple | None] = {}

    def image(r: int, b: Any) -> str:
        k = pick.get(id(b), 0)
        if k == 0:
            js = tuple(j for j, p in enumerate(b) if p)
            k = pick[id(b)] = None if all(b) else ("{" + ",".join(keys[j] for j in js) + "}", js)
        if k is None:
            return full[r]
        t, js = k
        vals = rows[r]
        return t % tuple(vals[j] for j in js)
    for k, (o, kd, b_ok, a_ok, r_b, r_a, (bb, ab), g, f, p, rw, tp, t) in enumerate(zip(
            mine.tolist(), op, has_b.tolist(), has_a.tolist(), bi.tolist(), ai.tolist(), bits, gtid, fname,
            pos.tolist(), row.tolist(), txpos.tolist(), ts.tolist(), strict=True)):
        before = full[r_b] if b_ok else "null"
        after = full[r_a] if a_ok else "null"
        bimg = image(r_b, bb) if b_ok else "null"
        aimg = image(r_a, ab) if a_ok else "null"
        lines[o] = (f'{{"seq":{seq[k]},"op":"{kd}","database":{db},"table":{tb},"gtid":{text(g)},"file":{text(f)},'
                    f'"position":{p},"row":{rw},"transaction_position":{tp},"timestamp":{t},"before":{before},'
                    f'"after":{after},"before_image":{bimg},"after_image":{aimg}}}')


def _json_values(vals: list) -> list[str]:
    """Canonical values -> their JSON texts, as :data:`_ENCODE` writes them inside an object
    (strings through json's own string encoder, ints by ``repr``; other types one by one)."""
    kinds = set(map(type, vals))
    kinds.discard(type(None))
    if kinds <= {str}:
        esc = json.encoder.encode_basestring
        return ["null" if v is None else esc(v) for v in vals]
    if kinds <= {int}:
        return ["null" if v is None else int.__repr__(v) for v in vals]
    return [_ENCODE(v) for v in vals]


def jsonl_line(rec: tuple, names: list[str]) -> str:
    """One change as a line of ``changes.jsonl`` (canonical values, docs/output.md)."""
    seq, op, db, tb, gtid, fname, pos, r, txpos, b, a, bbits, abits, ts = rec

    def image(vals, bits):
        if vals is None:
            return None
        return {n: v for n, v, p in zip(names, vals, bits, strict=True) if p}
    d = {"seq": seq, "op": op, "database": db, "table": tb, "gtid": gtid, "file": fname, "position": pos, "row": r,
         "transaction_position": txpos, "timestamp": ts,
         "before": None if b is None else dict(zip(names, b, strict=True)),
         "after": None if a is None else dict(zip(names, a, strict=True)),
         "before_image": image(b, bbits), "after_image": image(a, abits)}
    return json.dumps(d, ensure_ascii=False, separators=(",", ":"))


# -- merging --------------------------------------------------------------------------------
def _union(schemas: list[pa.Schema], fallback: pa.Schema) -> pa.Schema:
    """The changes schema whose before/after structs hold every column of ``schemas`` in order
    of first appearance; a column whose type changed between definitions is an error."""
    if not schemas:
        return fallback
    fields: dict[str, pa.Field] = {}
    cols: dict[str, Any] = {}
    for s in schemas:
        for f in s.field("before").type:
            old = fields.get(f.name)
            if old is not None and old.type != f.type:
                raise ValueError(f"changes truth: column {f.name} changed type ({old.type} -> {f.type})")
            fields.setdefault(f.name, f)
        meta = json.loads((s.metadata or {}).get(b"binlogwriter.columns", b"{}"))
        for k, v in meta.items():
            cols.setdefault(k, v)
    struct = pa.struct(list(fields.values()))
    return changes_schema(struct, {b"binlogwriter.columns": json.dumps(cols, ensure_ascii=False).encode()})


def _widen(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
    if batch.schema.equals(schema, check_metadata=False):
        return pa.RecordBatch.from_arrays(batch.columns, schema=schema)
    struct = schema.field("before").type
    arrays = []
    for name in schema.names:
        arr = batch.column(name)
        if name in ("before", "after"):
            have = {f.name: i for i, f in enumerate(arr.type)}
            children = [arr.field(have[f.name]) if f.name in have else pa.nulls(len(arr), f.type) for f in struct]
            arr = pa.StructArray.from_arrays(children, fields=list(struct), mask=arr.is_null())
        arrays.append(arr)
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def merge_table(chunks: list[str], dest: str | os.PathLike, table: Table, flavor: str,
                row_group: int | None = None) -> int:
    """Chunks of one table, in commit order -> one Parquet file with row groups of
    ``row_group`` rows (the bytes depend only on the changes). Returns the rows written."""
    row_group = ROW_GROUP if row_group is None else row_group
    struct, _ = _struct(table, flavor)
    fallback = changes_schema(struct, columns_metadata([table], flavor))
    schema = _union([pq.read_schema(c) for c in chunks], fallback)
    return rechunk(chunks, dest, schema, row_group)


def concat_text(parts: list[str], dest: str | os.PathLike) -> None:
    dest = Path(dest)
    tmp = dest.with_name(dest.name + ".part")
    with open(tmp, "wb") as out:
        for p in parts:
            with open(p, "rb") as f:
                while True:
                    b = f.read(1 << 20)
                    if not b:
                        break
                    out.write(b)
    os.replace(tmp, dest)


# -- final state ------------------------------------------------------------------------------
def write_final_parquet(table: Table, flavor: str, rows: Iterable[list], dest: str | os.PathLike,
                        row_group: int | None = None) -> int:
    """``truth/final/parquet/<db>.<table>.parquet``: canonical rows (in truth/final order) as
    typed columns, plus ``_text`` (map column -> canonical text of values the type cannot
    hold, e.g. the zero date). Returns the rows written."""
    row_group = ROW_GROUP if row_group is None else row_group
    schema = final_schema(table, flavor)
    fields = list(schema)
    plans = [_column_plan(c, flavor) for c in table.columns]
    names = [c.name for c in table.columns]
    dest = Path(dest)
    tmp = dest.with_name(dest.name + ".part")
    n = 0

    def batch(buf: list[list]) -> pa.Table:
        arrays, texts = _typed_columns(plans, names, buf)
        arrays.append(pa.array(texts, type=fields[-1].type))
        return pa.Table.from_arrays(arrays, schema=schema)

    with pq.ParquetWriter(tmp, schema, write_statistics=False, **PARQUET_OPTIONS) as w:
        buf: list[list] = []
        for vals in rows:
            buf.append(vals)
            if len(buf) >= row_group:
                w.write_table(batch(buf), row_group_size=row_group)
                n += len(buf)
                buf = []
        if buf:
            w.write_table(batch(buf), row_group_size=row_group)
            n += len(buf)
        elif n == 0:
            w.write_table(schema.empty_table())
    os.replace(tmp, dest)
    return n


def rechunk(chunks: list[str], dest: str | os.PathLike, schema: pa.Schema, row_group: int | None = None) -> int:
    """Parquet files of one schema, in order -> one file with row groups of ``row_group``
    rows (so the bytes do not depend on how the rows were split into chunks)."""
    row_group = ROW_GROUP if row_group is None else row_group
    dest = Path(dest)
    tmp = dest.with_name(dest.name + ".part")
    n = 0
    stats = _STATS if "seq" in schema.names else False
    with pq.ParquetWriter(tmp, schema, write_statistics=stats, **PARQUET_OPTIONS) as w:
        pending: list[pa.RecordBatch] = []
        held = 0
        for c in chunks:
            for batch in pq.ParquetFile(c).iter_batches(batch_size=row_group):
                pending.append(_widen(batch, schema) if "before" in schema.names
                               else pa.RecordBatch.from_arrays(batch.columns, schema=schema))
                held += batch.num_rows
                while held >= row_group:
                    tab = pa.Table.from_batches(pending, schema=schema)
                    # one contiguous chunk per row group: pages then do not depend on the input split
                    w.write_table(tab.slice(0, row_group).combine_chunks(), row_group_size=row_group)
                    pending = tab.slice(row_group).to_batches()
                    held -= row_group
                    n += row_group
        if held:
            w.write_table(pa.Table.from_batches(pending, schema=schema).combine_chunks(), row_group_size=row_group)
            n += held
        elif n == 0:
            w.write_table(schema.empty_table())
    os.replace(tmp, dest)
    return n


def final_schema(table: Table, flavor: str) -> pa.Schema:
    fields = [pa.field(c.name, _column_plan(c, flavor)[0]) for c in table.columns]
    fields.append(pa.field("_text", pa.map_(pa.string(), pa.string())))
    return pa.schema(fields, metadata=columns_metadata([table], flavor))


def read_jsonl_rows(path: str | os.PathLike) -> Iterable[list]:
    """Canonical rows of a ``truth/final`` JSONL file, in order."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            yield list(json.loads(line).values())


def table_file(table: Table) -> str:
    return f"{table.database}.{table.name}.parquet"


def _is_merged(schema: pa.Schema, table: Table, flavor: str) -> bool:
    """Whether a table's one aligned chunk, written with ``schema``, has the schema
    :func:`merge_table` would give it (then its bytes are the merge's)."""
    struct, _ = _struct(table, flavor)
    want = _union([schema], changes_schema(struct, columns_metadata([table], flavor)))
    return schema.equals(want, check_metadata=True)


def finish_local(run: Any, out: str | os.PathLike) -> int:
    """The single-process engine's end of a run: merge the recorder's chunks into
    ``truth/changes/`` and write ``truth/final/parquet/`` from ``truth/final``. Returns the
    number of changes."""
    import shutil

    out = Path(out)
    res = run.changes.close()
    chunk_dir = run.changes.dir
    run.changes = None
    cdir = out / "truth" / "changes"
    cdir.mkdir(parents=True, exist_ok=True)
    by_table: dict[int, list[str]] = {}
    for t, p in res["chunks"]:
        by_table.setdefault(t, []).append(p)
    fl = run.spec.flavor
    final = res.get("final", {})
    for t, rt in enumerate(run.rows):
        dest = cdir / table_file(rt.table)
        got = final.get(t)
        if got is not None and _is_merged(got[1], rt.table, fl):
            os.replace(got[0], dest)  # written in final row groups (ChangesRecorder aligned): the merge's bytes
        else:
            merge_table(by_table.get(t, []), dest, rt.table, fl)
    if res["jsonl"] is not None:
        os.replace(res["jsonl"], cdir / "changes.jsonl")
    shutil.rmtree(chunk_dir, ignore_errors=True)
    pdir = out / "truth" / "final" / "parquet"
    pdir.mkdir(parents=True, exist_ok=True)
    for rt in run.rows:
        t = rt.table
        write_final_parquet(t, fl, read_jsonl_rows(out / "truth" / "final" / f"{t.database}.{t.name}.jsonl"),
                            pdir / table_file(t))
    return res["count"]
