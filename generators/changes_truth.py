"""Change-stream ground truth: ``truth/changes/`` (docs/output.md "Change-stream truth").

Every row change a run writes, in commit order, recorded from what the generator applied
and where the writer placed it — never from reading the binlogs back:

* :class:`ChangesRecorder` — the engine calls :meth:`ChangesRecorder.record` once per
  committed transaction with the statements it gave the writer; the writer's
  ``last_group`` (file, first offset, events, event lengths) and each statement's
  ``event_rows`` (rows per rows event, binlogwriter/write/transaction.py) place every row at its
  rows event; :meth:`ChangesRecorder.record_batch` does the same for a whole batch of the
  batch path from its arrays (positions by prefix sums of the planned event lengths, typed
  columns straight from the batch's numpy columns). Changes go to per-table Parquet
  *chunks* (one per table definition) and, when the run stays small, to a JSONL chunk
  (the batch path renders its lines at the end, only then). The single-process engine
  records ``aligned``: each chunk is written in the final row groups by a worker thread
  (which also builds the batch path's records, off the generating thread), so a table with
  one definition needs no merge; the rows held for unfinished row groups
  stay within ``HOLD_BYTES`` (over it, tables fall back to the merge).
* :func:`merge_table` — a table's chunks (in commit order, from one process or from every
  Spark partition in partition order) into ``truth/changes/<db>.<table>.parquet`` with the
  union of its definitions' columns and row groups of :data:`ROW_GROUP` rows, so the bytes
  do not depend on how the run was partitioned.
* :func:`write_final_parquet` — ``truth/final/parquet/<db>.<table>.parquet`` from the
  canonical rows of ``truth/final`` (same types).

Typed values come from the canonical form (generators/truth.py), so JSONL and Parquet hold
the same values (generators/changes_arrow.py). The pieces live beside this module:
changes_arrow.py (Arrow types and arrays), changes_record.py (transactions and batches to
records), changes_jsonl.py (``changes.jsonl``), changes_sink.py (the writer thread); here
the tunables, the Parquet segments, the recorder's state, the merge and the final state.

Size (about 540 lines): every reader of the tunables the tests patch (``ROW_GROUP``,
``BATCH_ROWS``, ``HOLD_BYTES``, ``JSONL_MAX_CHANGES``) stays in this module.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from binlogwriter.schema import Table
from generators.changes_arrow import (
    changes_schema,
    column_from_info,
    column_info,
    column_plan,
    columns_metadata,
    final_schema,
    is_merged,
    py_array,
    rows_record_batch,
    table_struct,
    typed_columns_of,
    typed_converter,
    union,
    widen,
)
from generators.changes_ipc import IPC_SUFFIX, chunk_batches, chunk_schema, open_ipc
from generators.changes_jsonl import JsonlFile, concat_text, jsonl_line, read_jsonl_rows, table_file
from generators.changes_record import BatchRecordingMixin, RecordingMixin
from generators.changes_sink import Sink
from generators.memory import release_memory
from generators.truth import column_blocks

__all__ = ["ChangesRecorder", "merge_table", "write_final_parquet", "write_final_parquet_columns", "write_final_pieces",
           "changes_schema",
           "typed_converter", "column_info", "column_from_info", "columns_metadata", "close_local", "merge_local", "needs_merge", "rechunk",
           "final_schema", "read_jsonl_rows", "table_file", "jsonl_line", "concat_text", "JSONL_MAX_CHANGES", "ROW_GROUP", "CHANGE_FIELDS"]

JSONL_MAX_CHANGES = 100_000  # truth/changes/changes.jsonl is written when the run has at most this many changes
ROW_GROUP = 65_536  # rows per Parquet row group of the merged files
BATCH_ROWS = 16_384  # changes per table buffered before they become a record batch
HOLD_BYTES = 192 << 20  # Arrow bytes the single-process engine holds for full row groups, all tables together
SPILL_COMPRESSION = "lz4"
"""Compression of the Arrow IPC chunk a spilled segment writes (:meth:`_Segment.spill`): LZ4
frames, a few times smaller on disk for little CPU (the merge decompresses them)."""
PARQUET_OPTIONS: dict[str, Any] = {"compression": "zstd", "compression_level": 1, "write_batch_size": ROW_GROUP}
"""Writer options of every truth Parquet file (one place, with :func:`parquet_options`: the
engine, the merge and Spark write the same bytes). zstd level 1: about half the bytes of
snappy for the same CPU time. ``write_batch_size`` of a whole row group: each column chunk
is encoded in one pass (Arrow's default of 1,024 rows per pass cut pages and checked the
dictionary size 64 times per row group): about 10 % less writer CPU on sysbench truth, and
slightly smaller files (bench notes in the #10 closing note)."""

CHANGE_FIELDS = ("seq", "op", "database", "table", "gtid", "file", "position", "row", "transaction_position",
                 "timestamp")
"""The per-change columns before the images (docs/output.md)."""

_STATS = list(CHANGE_FIELDS)
"""Columns with Parquet statistics (min/max: a reader can skip row groups by seq or position);
the image columns have none, which keeps the footer of a wide table small."""




def parquet_options(schema: pa.Schema) -> dict[str, Any]:
    """The writer options of a truth Parquet file of ``schema``: :data:`PARQUET_OPTIONS`, with
    dictionary pages for the table's values only (the ``before`` / ``after`` struct fields of
    truth/changes, every column but ``_text`` of truth/final). The per-change fields (``seq``,
    positions, GTIDs, column lists) are nearly all distinct or compress to nothing with zstd
    alone: a dictionary there costs about a tenth of the writer's CPU and saves no bytes."""
    if "before" in schema.names:
        dic = [f"{name}.{f.name}" for name in ("before", "after") for f in schema.field(name).type]
    else:
        dic = [n for n in schema.names if n != "_text"]
    return {**PARQUET_OPTIONS, "use_dictionary": dic}


# -- recording ------------------------------------------------------------------------------
class _Segment:
    """Changes of one table definition: a Parquet file being written.

    ``aligned`` (the single-process engine): record batches are held until they fill a row
    group of :data:`ROW_GROUP` rows, written as one contiguous chunk exactly as
    :func:`rechunk` writes it, so a table with one definition needs no merge pass — its
    file *is* ``truth/changes/<db>.<table>.parquet``. The recorder may :meth:`spill` a
    segment when the rows held by all segments pass its memory budget; the row groups it
    wrote stay a chunk for :func:`merge_table`, and its later batches go, as they come, to a
    second chunk: an Arrow IPC stream (generators/changes_ipc.py), which the merge reads
    back without undoing a Parquet encoding. :attr:`paths`: the chunks, in order.
    ``sink``: the :class:`_Sink` that does the writing (None: this thread)."""

    def __init__(self, table: Table, flavor: str, path: Path, aligned: bool = False,
                 sink: Sink | None = None, ipc: bool = False) -> None:
        self.table = table
        self.ipc = ipc  # an Arrow IPC chunk (generators/changes_ipc.py), not aligned
        self.names = [c.name for c in table.columns]
        self.struct, self.convs = table_struct(table, flavor)
        self.schema = changes_schema(self.struct, columns_metadata([table], flavor))
        self.path = path
        self.paths = [path]
        self.compression: str | None = None  # of an IPC chunk: SPILL_COMPRESSION once spilled
        self.writer: pq.ParquetWriter | None = None
        self.rows: list[tuple] = []
        self.aligned = aligned
        self.sink = sink
        self.pending: list[pa.RecordBatch] = []
        self.held = 0  # rows in ``pending``
        self.held_bytes = 0

    def _open(self) -> pq.ParquetWriter:
        if self.writer is None and self.ipc:
            self.writer = open_ipc(self.path, self.schema, self.compression)
        if self.writer is None:
            self.writer = pq.ParquetWriter(self.path, self.schema, write_statistics=_STATS,
                                              **parquet_options(self.schema))
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
        """Stop aligning: the row groups written so far are a chunk to merge, what is held
        and what comes later goes to an Arrow IPC chunk after it (:attr:`paths`)."""
        freed = self.held_bytes
        self.aligned = False
        ipc_path = self.path.with_suffix(IPC_SUFFIX)
        self.paths.append(ipc_path)

        def job() -> None:
            if self.writer is not None:
                self.writer.close()
            self.writer, self.ipc, self.path, self.compression = None, True, ipc_path, SPILL_COMPRESSION
        self._do(job)
        if self.pending:
            self._batches(self.pending)
        self.pending, self.held, self.held_bytes = [], 0, 0
        return freed

    def flush(self) -> int:
        if not self.rows:
            return 0
        batch = rows_record_batch(self.schema, self.struct, self.convs, self.names, self.rows)
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


class ChangesRecorder(RecordingMixin, BatchRecordingMixin):
    """Collects the row changes of a run (or of one Spark partition) into ``chunk_dir``.

    ``seq_start``: the sequence number of the first change recorded here (Spark: the
    changes of the partitions before this one). ``jsonl``: also write ``changes.jsonl``
    (a chunk of it, for Spark) when at most ``jsonl_max`` changes were recorded — the batch
    path keeps its batches' columns and renders their lines at :meth:`close`, only when
    the run stayed that small. ``aligned`` (the single-process engine): segments write
    final row groups (:class:`_Segment`), :meth:`close` reports which chunks are final
    files; the rows they hold wait within ``budget`` bytes. ``ipc`` (Spark, not aligned): the
    chunks are Arrow IPC streams, encoded once by the merge (generators/changes_ipc.py)."""

    def __init__(self, run: Any, chunk_dir: str | os.PathLike, *, seq_start: int = 0, jsonl: bool = True,
                 jsonl_max: int | None = None, batch_rows: int | None = None, aligned: bool = False,
                 budget: int | None = None, ipc: bool = False) -> None:
        self.run = run
        self.ipc = ipc and not aligned  # chunks as Arrow IPC streams (generators/changes_ipc.py)
        self.flavor = run.spec.flavor
        self.image = run.spec.row_image
        self.dir = Path(chunk_dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.seq = seq_start
        self.count = 0
        self.batch_rows = BATCH_ROWS if batch_rows is None else batch_rows
        self.jsonl_max = JSONL_MAX_CHANGES if jsonl_max is None else jsonl_max
        self.jsonl_path = self.dir / "changes.jsonl"
        self._jsonl = JsonlFile(self.jsonl_path) if jsonl else None
        self.aligned = aligned
        self.budget = HOLD_BYTES if budget is None else budget
        self.held = 0  # bytes held by aligned segments
        self.segments: dict[int, _Segment] = {}
        self.chunks: list[tuple[int, _Segment]] = []  # (table index, segment) in order
        self._n = 0
        self._renders: dict[int, tuple[Table, Callable]] = {}
        self._bits: dict[tuple, tuple] = {}
        self._pools: dict[tuple, tuple] = {}
        self._sink = Sink(2) if aligned else None
        self._queued = False  # records being built on the sink's thread (BatchRecordingMixin.record_batch)
        self.definitions: list[dict[str, Any]] = []  # truth/schema_history.jsonl lines after DDL (define)

    def define(self, rt: Any) -> None:
        """A DDL changed table ``rt`` (generators/run_txn.py ``do_ddl``): its new definition
        applies from the next transaction with changes (generators/schema_history.py)."""
        from generators.schema_history import definition

        self.definitions.append(definition(rt, self.seq))

    def _later(self, job: Callable[[], None]) -> None:
        """Run ``job`` (it builds records and writes them to segments) on the sink's thread,
        after what was given before; here when there is no sink."""
        if self._sink is None:
            job()
            return
        self._sink.submit(job)
        self._queued = True

    def _settle(self) -> None:
        """Wait for the jobs of :meth:`_later`: the segments, counters of held bytes and
        deferred JSONL are this thread's again."""
        if self._queued and self._sink is not None:
            self._queued = False
            self._sink.drain()

    def _drop_jsonl(self) -> None:
        self._settle()  # the writer thread may be adding a batch's lines
        if self._jsonl is not None:
            self._jsonl.discard()
            self._jsonl = None

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

    def _segment(self, tidx: int, table: Table) -> _Segment:
        seg = self.segments.get(tidx)
        if seg is None or seg.table is not table:
            if seg is not None:
                self.held -= seg.held_bytes
                seg.close()
            self._n += 1
            path = self.dir / f"t{tidx:05d}-{self._n:06d}{IPC_SUFFIX if self.ipc else '.parquet'}"
            seg = self.segments[tidx] = _Segment(table, self.flavor, path, self.aligned, self._sink, self.ipc)
            self.chunks.append((tidx, seg))
        return seg

    def close(self, jsonl_later: bool = False) -> dict[str, Any]:
        """Flush and close every chunk; what the merge needs: ``chunks`` (table index, path)
        in order, ``final`` the tables whose one chunk is already their merged file
        (``aligned`` segments that never spilled), ``jsonl``, ``count``. ``jsonl_later``:
        ``changes.jsonl``'s waiting lines are not rendered here; ``jsonl`` is then a callable
        that writes them and closes the file (it returns the path)."""
        self._settle()
        for seg in self.segments.values():
            seg.close()
        self.segments = {}
        self.held = 0
        if self._sink is not None:
            sink, self._sink = self._sink, None
            sink.close()
        jsonl = None
        if self._jsonl is not None:
            jsonl = self._jsonl.close if jsonl_later else self._jsonl.close()
            self._jsonl = None
        per: dict[int, list[_Segment]] = {}
        for t, seg in self.chunks:
            per.setdefault(t, []).append(seg)
        final = {t: (str(segs[0].path), segs[0].schema) for t, segs in per.items() if len(segs) == 1 and segs[0].aligned}
        chunks = [(t, str(p)) for t, seg in self.chunks for p in seg.paths if os.path.exists(p)]
        return {"chunks": chunks, "jsonl": jsonl,
                "count": self.count, "final": final, "definitions": self.definitions}

    def abort(self) -> None:
        self._queued = False
        if self._sink is not None:
            sink, self._sink = self._sink, None
            try:
                sink.close()
            except BaseException:  # noqa: BLE001 - the run's own error is the one raised
                pass
        for seg in self.segments.values():
            if seg.writer is not None:
                seg.writer.close()
        if self._jsonl is not None:
            self._jsonl.abort()


# -- merging --------------------------------------------------------------------------------
def merge_table(chunks: list[str], dest: str | os.PathLike, table: Table, flavor: str,
                row_group: int | None = None) -> int:
    """Chunks of one table, in commit order -> one Parquet file with row groups of
    ``row_group`` rows (the bytes depend only on the changes). Returns the rows written."""
    row_group = ROW_GROUP if row_group is None else row_group
    struct, _ = table_struct(table, flavor)
    fallback = changes_schema(struct, columns_metadata([table], flavor))
    schema = union([chunk_schema(c) for c in chunks], fallback)
    return rechunk(chunks, dest, schema, row_group)


# -- final state ------------------------------------------------------------------------------
def write_final_parquet(table: Table, flavor: str, rows: Iterable[list], dest: str | os.PathLike,
                        row_group: int | None = None) -> int:
    """``truth/final/parquet/<db>.<table>.parquet``: canonical rows (in truth/final order) as
    typed columns, plus ``_text`` (map column -> canonical text of values the type cannot
    hold, e.g. the zero date). Returns the rows written. (:func:`write_final_parquet_columns`
    of the rows in blocks.)"""
    blocks = column_blocks(rows, len(table.columns), FINAL_BLOCK)
    return write_final_parquet_columns(table, flavor, blocks, dest, row_group)


FINAL_BLOCK = 4096
"""Rows of truth/final made typed at once (:func:`write_final_parquet_columns`): the Python
values of a block at a time, never of a whole row group of a wide table."""


def write_final_parquet_columns(table: Table, flavor: str, blocks: Iterable[list[list]], dest: str | os.PathLike,
                                row_group: int | None = None) -> int:
    """:func:`write_final_parquet` of rows given as blocks of columns (any number of rows
    each). Bounded memory: each block becomes typed Arrow arrays :data:`FINAL_BLOCK` rows
    at a time, written by :func:`write_final_pieces`."""
    schema = final_schema(table, flavor)
    fields = list(schema)
    plans = [column_plan(c, flavor) for c in table.columns]
    names = [c.name for c in table.columns]

    def pieces() -> Iterable[list[pa.Array]]:
        for cols in blocks:
            total = len(cols[0]) if cols else 0
            for at in range(0, total, FINAL_BLOCK):
                k = min(total - at, FINAL_BLOCK)
                arrays, texts = typed_columns_of(plans, names, [c[at:at + k] for c in cols] if k < total else cols, k)
                arrays.append(py_array(texts, fields[-1].type))
                yield arrays
    return write_final_pieces(schema, pieces(), dest, row_group)


def write_final_pieces(schema: pa.Schema, pieces: Iterable[list[pa.Array]], dest: str | os.PathLike,
                       row_group: int | None = None) -> int:
    """``truth/final/parquet/<db>.<table>.parquet`` of ``schema`` from typed pieces (each a list
    of arrays of one length, the ``_text`` column last), in order: row groups of ``row_group``
    rows, each the concatenation of its pieces (one contiguous array per column: the bytes of
    the row group built whole, however the rows were cut into pieces). Returns the rows
    written; on an error the file is not left behind."""
    row_group = ROW_GROUP if row_group is None else row_group
    dest = Path(dest)
    tmp = dest.with_name(dest.name + ".part")
    n = 0
    parts: list[list[pa.Array]] = []
    held = 0

    def group(w: pq.ParquetWriter) -> None:
        cols = [list(c) for c in zip(*parts, strict=True)]
        parts.clear()
        w.write_table(pa.Table.from_arrays(_joined(cols), schema=schema), row_group_size=row_group)

    try:
        with pq.ParquetWriter(tmp, schema, write_statistics=False, **parquet_options(schema)) as w:
            for arrays in pieces:
                total = len(arrays[0])
                at = 0
                while at < total:
                    k = min(total - at, row_group - held)
                    parts.append([a.slice(at, k) for a in arrays] if (at or k < total) else arrays)
                    at += k
                    held += k
                    if held == row_group:
                        group(w)
                        n += held
                        parts, held = [], 0
            if held:
                group(w)
                n += held
            elif n == 0:
                w.write_table(schema.empty_table())
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, dest)
    return n


READ_ROWS = 8192
"""Rows per batch :func:`rechunk` reads from a Parquet chunk: a row group's worth of them is
held, not a second row group beside it (the batches read do not change the bytes written)."""


def rechunk(chunks: list[str], dest: str | os.PathLike, schema: pa.Schema, row_group: int | None = None) -> int:
    """Parquet files of one schema, in order -> one file with row groups of ``row_group``
    rows (so the bytes do not depend on how the rows were split into chunks)."""
    row_group = ROW_GROUP if row_group is None else row_group
    dest = Path(dest)
    tmp = dest.with_name(dest.name + ".part")
    n = 0
    stats = _STATS if "seq" in schema.names else False
    with pq.ParquetWriter(tmp, schema, write_statistics=stats, **parquet_options(schema)) as w:
        pending: list[pa.RecordBatch] = []
        held = 0
        for c in chunks:
            for batch in chunk_batches(c, min(row_group, READ_ROWS)):
                pending.append(widen(batch, schema) if "before" in schema.names
                               else pa.RecordBatch.from_arrays(batch.columns, schema=schema))
                held += batch.num_rows
                while held >= row_group:
                    tab = pa.Table.from_batches(pending, schema=schema)
                    head = tab.slice(0, row_group).to_batches()
                    pending = tab.slice(row_group).to_batches()
                    del tab
                    w.write_table(_contiguous(head, schema), row_group_size=row_group)
                    held -= row_group
                    n += row_group
        if held:
            w.write_table(_contiguous(pending, schema), row_group_size=row_group)
            n += held
        elif n == 0:
            w.write_table(schema.empty_table())
    os.replace(tmp, dest)
    return n


def _contiguous(batches: list[pa.RecordBatch], schema: pa.Schema) -> pa.Table:
    """One row group from ``batches`` (emptied): one contiguous chunk per column, so its pages
    do not depend on how the rows were split into batches (:func:`_joined`)."""
    if not batches:
        return schema.empty_table()
    cols = [[b.column(i) for b in batches] for i in range(len(schema))]
    batches.clear()
    return pa.Table.from_arrays(_joined(cols), schema=schema)


def _joined(cols: list[list[pa.Array]]) -> list[pa.Array]:
    """Each column's pieces joined into one array, column by column, each column's pieces
    freed once it is joined (``cols`` is emptied): a row group is held about once, not twice."""
    out = []
    for i, pieces in enumerate(cols):
        out.append(pa.concat_arrays(pieces))
        cols[i] = []
    return out


def close_local(run: Any) -> dict[str, Any]:
    """The single-process engine's end of a run, first step: the recorder flushed and closed,
    the batches it held written and freed (``run.changes`` is None after; the lines of
    ``changes.jsonl`` that wait are rendered by :func:`merge_local`). Returns what
    :func:`merge_local` needs."""
    res = run.changes.close(jsonl_later=True)  # changes.jsonl's lines: rendered by merge_local
    res["dir"] = run.changes.dir
    run.changes = None
    release_memory()  # the recorder's buffers: freed, and given back before the merges
    fl = run.spec.flavor
    final = res.get("final", {})
    # the tables whose one aligned chunk already is their merged file (moved, not merged)
    res["moved"] = {t: final[t][0] for t, rt in enumerate(run.rows)
                    if t in final and is_merged(final[t][1], rt.table, fl)}
    return res


def needs_merge(res: dict[str, Any]) -> bool:
    """Whether :func:`merge_local` of :func:`close_local`'s ``res`` merges a table's chunks
    (its changes are not one aligned chunk of the merged schema: a segment spilled, or a DDL
    changed the table), rather than only moving files and writing ``changes.jsonl``."""
    return any(t not in res["moved"] for t, _ in res["chunks"])


def merge_local(run: Any, out: str | os.PathLike, res: dict[str, Any]) -> int:
    """The single-process engine's end of a run, second step: each table's chunks merged into
    ``truth/changes/<db>.<table>.parquet`` (or its one aligned chunk moved there; the
    final state's ``truth/final/parquet/`` is written by ``Run.write_final``),
    ``changes.jsonl`` and ``schema_history.jsonl``. It reads only the tables' definitions
    of ``run``, so it may run while ``truth/final`` is written (``Run.run``). Returns the
    number of changes."""
    import shutil

    out = Path(out)
    cdir = out / "truth" / "changes"
    cdir.mkdir(parents=True, exist_ok=True)
    by_table: dict[int, list[str]] = {}
    for t, p in res["chunks"]:
        by_table.setdefault(t, []).append(p)
    for t, rt in enumerate(run.rows):
        dest = cdir / table_file(rt.table)
        if t in res["moved"]:
            os.replace(res["moved"][t], dest)  # written in final row groups (ChangesRecorder aligned): the merge's bytes
        else:
            merge_table(by_table.get(t, []), dest, rt.table, run.spec.flavor)
            release_memory()
    if res["jsonl"] is not None:
        os.replace(res["jsonl"](), cdir / "changes.jsonl")
    from generators.schema_history import HISTORY_FILE, initial_definitions, write_history

    write_history(out / "truth" / HISTORY_FILE, initial_definitions(run.rows), res["definitions"])
    shutil.rmtree(res["dir"], ignore_errors=True)
    return res["count"]
