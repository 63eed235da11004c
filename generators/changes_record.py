"""How :class:`generators.changes_truth.ChangesRecorder` turns written transactions into
change records: one committed transaction from the statements given to the writer
(:class:`RecordingMixin`), or a whole batch of the batch path from its arrays
(:class:`BatchRecordingMixin`); both give the same records."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pyarrow as pa

from binlogwriter import images
from binlogwriter.batch.unique import unique_ints
from binlogwriter.format import TRANSACTION_PAYLOAD_EVENT, XID_EVENT
from binlogwriter.layouts.rows import ROWS_TYPES
from binlogwriter.schema import Column, Table
from binlogwriter.values.row import ColumnArray
from generators.arrow_arrays import (
    OP_NAMES,
    np_array,
    numbered,
    pick_lists,
    pick_strings,
    py_array,
    string_array,
    take_rows,
)
from generators.changes_arrow import take_pool, typed_array, typed_python
from generators.changes_jsonl import JsonlBatch, jsonl_line
from generators.truth import canonical_renderer

_ROWS = frozenset(ROWS_TYPES)


class RecordingMixin:
    """One committed transaction at a time (the per-transaction path); part of
    :class:`~generators.changes_truth.ChangesRecorder` (uses its ``run``, ``flavor``, ``image``,
    segments, JSONL file and counters)."""

    # -- the hook -----------------------------------------------------------------------
    def record(self, writer: Any, stmts: list[tuple[int, str, list]], tx: Any) -> None:
        """One committed transaction: ``stmts`` as given to the writer (table index, kind,
        rows — an insert/delete row is the full row, an update row ``(before row, after)``
        with ``after`` a full row or a mapping column index/name -> new value), ``tx`` the
        writer's Transaction (its statements' ``event_rows``), read right after the commit
        together with ``writer.last_group`` / ``last_gtid`` / ``now``."""
        self._settle()
        fname, first, events, lengths = writer.last_group
        places: list[int] = []
        off = first
        payload = None
        for ev, ln in zip(events, lengths, strict=True):
            t = ev.type_code
            if t in _ROWS:
                places.append(off)
            elif t == TRANSACTION_PAYLOAD_EVENT:  # TRANSACTION_PAYLOAD: its rows events are inside (format.md §15)
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
        xid = _group_xid(writer, events)
        k = 0
        for tidx, kind, rows in stmts:
            table = self.run.rows[tidx].table
            for row in rows:
                pos, _ = at[k]
                self._add(tidx, table, kind, row, gtid, fname, pos, k, first, ts, xid)
                k += 1
        if k != len(at):
            raise RuntimeError(f"changes truth: {len(at)} rows in the rows events, {k} rows given")
        if k:
            self.seq += 1  # the change model's seq: one per transaction that carries row changes

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
             txpos: int, ts: int, xid: int | None) -> None:
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
        rec = (self.seq, kind, table.database, table.name, gtid, fname, pos, r, txpos, b, a, bbits, abits, ts, xid)
        seg.rows.append(rec)
        if len(seg.rows) >= self.batch_rows:
            self._hold(seg.flush())
        if self._jsonl is not None:
            if self.count < self.jsonl_max:
                self._jsonl.write_line(jsonl_line(rec, seg.names))
            else:
                self._drop_jsonl()
        self.count += 1


def _group_xid(writer: Any, events: list) -> int | None:
    """The XID that commits the group just written: its XID_EVENT's (format.md §10), or the
    writer's last XID when the group is a TRANSACTION_PAYLOAD (the XID_EVENT is inside it,
    taken just before it was compressed, binlogwriter/write/transaction.py); None without either."""
    for ev in reversed(events):
        t = ev.type_code
        if t == XID_EVENT:
            return ev.xid
        if t == TRANSACTION_PAYLOAD_EVENT:
            return writer.ids.xid
    return None


class BatchRecordingMixin:
    """A batch of the batch path at a time, column by column; part of
    :class:`~generators.changes_truth.ChangesRecorder`.

    Size: three methods over one batch (placing its rows, typing a column, one table's
    columns); ``_record_table`` builds every typed column of a table in one pass over the
    batch's arrays and is not split further."""

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
        :meth:`record` makes of the same transactions written one by one.

        Here only what the caller may change later is read (the change count, the tables'
        current definitions, the JSONL decision); the records are built by
        :meth:`_record_batch`, on the recorder's writer thread when it has one (the batch's
        arrays are not changed after it is written): the arrays are built there in order
        with the row groups they go to, and whatever reads the recorder's state next waits
        for it (:meth:`_settle`)."""
        m = int(np.searchsorted(ab.txn, kept, side="left"))  # changes are in transaction order
        if m == 0:
            return
        if self._jsonl is not None and self.count + m > self.jsonl_max:
            self._drop_jsonl()
        fills = self._jsonl.batch() if self._jsonl is not None else None  # this batch's changes.jsonl lines
        tables = {t: self.run.rows[t].table for t in unique_ints(ab.table[:m]).tolist()}
        seq = self.seq
        txn = ab.txn[:m]
        self.seq += int(np.count_nonzero(txn[1:] != txn[:-1])) + 1  # transactions with row changes
        self.count += m
        self._later(lambda: self._record_batch(ab, rb, plan, placed, kept, m, seq, tables, fills))

    def _record_batch(self, ab: Any, rb: Any, plan: Any, placed: list, kept: int, m: int, seq: int,
                      tables: dict[int, Table], fills: JsonlBatch | None) -> None:
        """:meth:`record_batch`'s records: the first ``m`` changes of the batch, their
        transactions numbered from ``seq``, of the table definitions ``tables`` (table index ->
        :class:`Table`). The change model's ``seq`` counts the transactions that carry changes
        (``ab.txn`` is ascending), ``row`` is the change's index inside its transaction."""
        ops = np.arange(m, dtype=np.int64)
        ch = np.searchsorted(plan.chunk_first, ops, side="right") - 1
        op_ev = plan.chunk_event[ch]
        op_txn = ab.txn[:m]
        new_txn = np.ones(m, dtype=np.bool_)
        new_txn[1:] = op_txn[1:] != op_txn[:-1]
        starts = np.flatnonzero(new_txn)
        op_seq = seq + np.cumsum(new_txn, dtype=np.int64) - 1
        op_row = ops - starts[op_seq - seq]
        op_xid = _txn_xids(plan, placed, kept)[op_txn]
        ev_pos = np.zeros(len(plan.ev_len), dtype=np.int64)
        txn_file = np.zeros(kept, dtype=np.int64)
        files: list[str] = []
        heads: list[str] = []  # GTID of transaction t: heads[txn_head[t]] + str(txn_num[t]); none where -1
        txn_head = np.full(kept, -1, dtype=np.int64)
        txn_num = np.zeros(kept, dtype=np.int64)
        big: dict[int, str] = {}
        for fname, lo, hi, off, first, _xid in placed:
            a, b = int(plan.txn_first[lo]), int(plan.txn_first[hi])
            ln = plan.ev_len[a:b]
            ev_pos[a:b] = off + np.cumsum(ln) - ln
            txn_file[lo:hi] = len(files)
            files.append(fname)
            if first is not None:  # GNO / MariaDB seq_no: one per transaction that wrote a group
                cut = max(first.rfind(":"), first.rfind("-")) + 1
                wrote = np.flatnonzero(plan.sizes[lo:hi] > 0) + lo
                num = int(first[cut:])
                txn_head[wrote] = len(heads)
                heads.append(first[:cut])
                if num + len(wrote) <= 1 << 63:
                    txn_num[wrote] = np.arange(num, num + len(wrote), dtype=np.int64)
                else:  # a MariaDB seq_no past int64 (it is unsigned): these GTIDs as Python strings
                    big.update((t, f"{first[:cut]}{num + k}") for k, t in enumerate(wrote.tolist()))
        position = ev_pos[op_ev]
        txpos = ev_pos[plan.txn_first[op_txn]]
        ts = np.asarray(rb.clock, dtype=np.int64)[op_txn]
        op_file = np_array(txn_file[op_txn])  # per change: index into files / txn

        if big:
            gtids = string_array([big.get(t, heads[h] + str(g) if h >= 0 else None)
                              for t, (h, g) in enumerate(zip(txn_head.tolist(), txn_num.tolist(), strict=True))])
        else:
            gtids = numbered(heads, txn_head, txn_num)
        fnames = string_array(files)
        op_tab = ab.table[:m]
        op_kind = ab.kind[:m]
        op_shape = rb.op_shape[:m]
        for tidx, table in tables.items():
            mine = np.flatnonzero(op_tab == tidx) if len(tables) > 1 else ops
            self._record_table(tidx, table, op_seq[mine], mine, ab.values[tidx], op_kind[mine], op_shape[mine],
                               rb.shapes, gtids.take(np_array(op_txn[mine])), op_xid[mine],
                               fnames.take(op_file.take(np_array(mine))), position[mine], op_row[mine], txpos[mine],
                               ts[mine], fills)
        if fills is not None:
            fills.done()

    def _typed(self, col: Column, values: Any, keep: list | None = None) -> tuple[pa.Array, dict[int, str]]:
        """:func:`_typed_array`, with the typed form of a value pool kept while its pool lives
        (``keep``: see :func:`_typed_values`)."""
        if isinstance(values, ColumnArray) and values.kind == "pool":
            key = (id(values.pool), id(col))
            hit = self._pools.get(key)
            if hit is None or hit[0] is not values.pool or hit[1] is not col:
                if len(self._pools) >= 256:
                    self._pools.clear()
                hit = self._pools[key] = (values.pool, col, *typed_python(col, self.flavor, list(values.pool)))
            return take_pool(hit[2], hit[3], values)
        return typed_array(col, self.flavor, values, keep)

    def _record_table(self, tidx: int, table: Table, seq: np.ndarray, mine: np.ndarray, values: tuple,
                      kinds: np.ndarray, shapes: np.ndarray, shape_bits: list, gtid: pa.Array, xid: np.ndarray,
                      fname: pa.Array, pos: np.ndarray, row: np.ndarray, txpos: np.ndarray, ts: np.ndarray,
                      fills: JsonlBatch | None) -> None:
        """The changes ``mine`` (batch op indices, of transactions ``seq``) of table ``tidx``
        (definition ``table``): the same record batch :class:`_Segment` makes of them, built
        column by column from the batch's arrays."""
        seg = self._segment(tidx, table)
        self._hold(seg.flush())  # changes recorded one by one before this batch come first
        cols, need_b, need_a, src = values
        names = seg.names
        n = len(mine)
        nb = len(need_b)
        has_b = kinds != 0
        has_a = kinds != 2
        bi = np.searchsorted(need_b, mine)
        ai = nb + np.searchsorted(need_a, mine)
        nrows = nb + len(need_a)
        if src is not None:  # rows computed once for two images (generators/reuse.py)
            bi = src[np.minimum(bi, len(src) - 1)]
            ai = src[np.minimum(ai, len(src) - 1)]
            nrows = int(src[-1]) + 1
        typed: list[pa.Array] = []
        row_text: dict[int, list] = {}
        canons: list[Any] = []  # canonical values the typed path rendered, list or string array (JSONL reuses them)
        col_texts: list[dict] = []
        for c, col in zip(cols, table.columns, strict=True):
            keep: list | None = [] if fills is not None else None
            arr, texts = self._typed(col, c, keep)
            canons.append(keep[0] if keep else None)
            col_texts.append(texts)
            typed.append(arr)
            for r, t in texts.items():
                row_text.setdefault(r, []).append((col.name, t))
        rows = pa.StructArray.from_arrays(typed, fields=list(seg.struct))  # the batch's rows of this table

        def struct(idx: np.ndarray, has: np.ndarray) -> pa.Array:
            return take_rows(rows, idx, has)

        def text(idx: np.ndarray, has: np.ndarray) -> pa.Array:
            if not row_text:
                return pa.nulls(n, pa.map_(pa.string(), pa.string()))
            return py_array([row_text.get(r) if h else None for r, h in zip(idx.tolist(), has.tolist(), strict=True)],
                            pa.map_(pa.string(), pa.string()))

        # per (kind, shape): the image columns, gathered per change with one take
        combo = kinds.astype(np.int64) * len(shape_bits) + shapes
        uniq, inv = unique_ints(combo, return_inverse=True)
        images: list[tuple] = []
        for u in uniq.tolist():
            k, (b, a) = u // len(shape_bits), shape_bits[u % len(shape_bits)]
            images.append((None, b) if k == 0 else (b, None) if k == 2 else (b, a))

        def image_names(b: Any) -> list | None:
            return None if b is None else [nm for nm, p in zip(names, b, strict=True) if p]
        zero = np.zeros(n, dtype=np.int64)
        xid_arr = np_array(xid, xid < 0)
        arrays = [np_array(seq), pick_strings(OP_NAMES, kinds),
                  pick_strings([table.database], zero), pick_strings([table.name], zero),
                  gtid, xid_arr, fname, np_array(pos), np_array(row).cast(pa.int32()), np_array(txpos),
                  np_array(ts).cast(pa.timestamp("s", tz="UTC")),
                  pick_lists([names], zero),
                  struct(bi, has_b), struct(ai, has_a),
                  pick_lists([image_names(b) for b, _ in images], inv),
                  pick_lists([image_names(a) for _, a in images], inv),
                  text(bi, has_b), text(ai, has_a)]
        self._hold(seg.write(pa.RecordBatch.from_arrays(arrays, schema=seg.schema)))
        if fills is not None:  # JSONL lines: rendered from the typed columns (generators/changes_jsonl.py)
            fills.table(table, self.flavor, list(zip(table.columns, typed, col_texts, canons, cols, strict=True)), nrows, mine,
                        {"seq": seq, "row": row, "position": pos, "transaction_position": txpos, "timestamp": ts,
                         "kind": kinds, "gtid": gtid, "file": fname, "xid": xid_arr}, images, inv, bi, ai)


def _txn_xids(plan: Any, placed: list, kept: int) -> np.ndarray:
    """Per transaction ``0..kept-1`` of a written batch: the XID of its XID_EVENT (or of the
    one inside its TRANSACTION_PAYLOAD), -1 when it writes none. The writer takes XIDs in
    event order (binlogwriter/write/ids.py ``IdAllocator.commit``) from the next one when
    each segment starts (``placed[k][5]``)."""
    from binlogwriter.batch.columnar_encode import PAYLOAD, XID

    out = np.full(kept, -1, dtype=np.int64)
    kind = plan.ev_kind
    has = ((kind == XID) | (kind == PAYLOAD)).astype(np.int64)
    cum = np.concatenate(([0], np.cumsum(has)))
    first = plan.txn_first
    for _f, lo, hi, _off, _gtid, xid0 in placed:
        a = first[lo:hi]
        b = first[lo + 1:hi + 1]
        took = cum[b] - cum[a]
        rank = cum[a] - cum[first[lo]]
        out[lo:hi] = np.where(took > 0, xid0 + rank, -1)
    return out
