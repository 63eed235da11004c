"""Record batches of one table definition for the columnar export (issue 11): rows events
buffered as their rows bytes, then decoded column by column, many rows at once, into Arrow
buffers (:mod:`binlogwriter.read.arrowcols`), or through the reference path — the compiled
row decoders' Python values (:mod:`binlogwriter.read.rowdecode`) and ``pa.array`` — when the
columnar decoders decline; the reference also gives the located error for malformed input.
``tests/read/test_export_columnar_props.py`` asserts both give the same batches.

Size (about 400 lines): one class, :class:`TableBuffer` — the buffered rows events of one
table definition, and the two ways (reference, columnar) a record batch is made of them,
which all read the same buffer and its fields transposed once — and the small per-event
readers its meta columns use.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

import numpy as np
import pyarrow as pa

from binlogwriter.errors import DecodeError
from binlogwriter.layouts.control import NonCanonical
from binlogwriter.layouts.rows import DELETE_TYPES, no_image_columns
from binlogwriter.read.arrowbuild import booleans, numbers, optional_uint64, string_lists, strings, take
from binlogwriter.read.arrowcols import (
    PAD,
    Fallback,
    arrow_type,
    column_layout,
    converter,
    safe_array,
    walk_image,
)
from binlogwriter.read.arrowfamilies import ColumnBuilder
from binlogwriter.read.changes import TableInfo, rows_event_error
from binlogwriter.read.export_model import (  # re-exported: the export's one import point
    IMAGES,
    META_FIELDS,
    Txn,
    arrow_schema,
    count_rows,
    field_names,
    path_strings,
)

__all__ = ["arrow_schema", "field_names", "TableBuffer", "Txn", "IMAGES", "META_FIELDS", "count_rows"]

_OPNAMES = ("insert", "update", "delete")


class TableBuffer:
    """Rows events of one table definition waiting to become a record batch: their rows
    bytes and where they come from, decoded when the batch is made.

    Size: the buffered rows events of one table and the two ways a record batch is made from
    them (the reference path, and the columnar one with its _group / _long steps), which all
    read that buffer.
    """

    __slots__ = ("info", "schema", "columnar", "events", "nbytes", "_builders", "_layouts", "images", "_image_names",
                 "_fields")

    def __init__(self, info: TableInfo, columnar: bool, images: str = "flat") -> None:
        self.info = info
        self.images = images
        self.schema = arrow_schema(info.cols, images)
        self.columnar = columnar
        self._builders: list[ColumnBuilder] | None = None
        self._layouts: list | None = None
        self._image_names: tuple | None = None
        self.clear()

    def clear(self) -> None:
        self.events: list[tuple] = []  # (plan, type code, rows bytes, gtid, file, pos, timestamp, Txn, k)
        self.nbytes = 0
        self._fields: tuple | None = None

    def fields(self) -> tuple:
        """The buffered events' fields, each a tuple over the events (the events transposed
        once per batch: the meta columns and the columnar decoders both read them)."""
        if self._fields is None:  # every event is a 9-tuple (add, export._add_rows): ``zip`` without
            # ``strict`` (which checks each tuple's end: eight times slower) transposes them in one C loop
            ev = self.events
            self._fields = tuple(zip(*ev, strict=False)) if ev else ((),) * 9
        return self._fields

    def add(self, plan: Any, t: int, rows: bytes, gtid: str | None, name: str, offset: int, ts: int,
            txn: Txn | None = None, k: int = 0) -> None:
        """Buffer one rows event; ``txn``: its transaction and ``k`` its index there (None: a
        transaction of its own, numbered ``seq`` 0)."""
        self.events.append((plan, t, rows, gtid, name, offset, ts, txn, k))
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
        for plan, t, rows, _gtid, name, offset, *_ in self.events:
            start = len(befores)
            try:
                n, pos, img = len(rows), 0, plan.bfull
                once = n == 0 and no_image_columns(plan.present, plan.after)  # one row of 0-byte images
                if plan.after is not None:
                    aimg = plan.afull
                    while pos < n or once:
                        once = False
                        v, _, pos = img(rows, pos)
                        befores.append(v)
                        v, _, pos = aimg(rows, pos)
                        afters.append(v)
                else:
                    mine, other = (befores, afters) if t in DELETE_TYPES else (afters, befores)
                    while pos < n or once:
                        once = False
                        v, _, pos = img(rows, pos)
                        mine.append(v)
                    other.extend([none] * (len(mine) - len(other)))
            except (DecodeError, ValueError, IndexError, NonCanonical) as exc:
                raise rows_event_error(exc, info, t, name, offset) from None
            kinds.append(len(befores) - start)
        counts = np.array(kinds, dtype=np.int64)
        rows_ev = np.repeat(np.arange(len(counts)), counts)
        arrays, kind = self._meta(rows_ev)
        for images in (befores, afters):
            columns = list(zip(*images, strict=True)) if len(rows_ev) else [()] * len(types)
            for vals, typ, conv in zip(columns, types, convs, strict=True):
                if conv is not None:
                    vals = [None if v is None else conv(v) for v in vals]
                arrays.append(safe_array(vals, typ))
        return self._finish(arrays, kind)

    def _finish(self, arrays: list[pa.Array], kind: np.ndarray) -> pa.RecordBatch:
        """The record batch from the meta columns and the flat image columns (``kind`` per
        row: 0 insert, 1 update, 2 delete); ``images="struct"`` wraps each image's columns in
        a struct, null where the change has no such image."""
        if self.images == "struct":
            nm = len(META_FIELDS)
            w = (len(arrays) - nm) // 2
            st = self.schema.field("before").type
            fields = list(st)
            b = pa.StructArray.from_arrays(arrays[nm:nm + w], fields=fields,
                                           mask=booleans(kind == 0))
            a = pa.StructArray.from_arrays(arrays[nm + w:], fields=fields,
                                           mask=booleans(kind == 2))
            arrays = [*arrays[:nm], b, a]
        return pa.RecordBatch.from_arrays(arrays, schema=self.schema)

    def _meta(self, rows_ev: np.ndarray, groups: tuple | None = None) -> tuple[list[pa.Array], np.ndarray]:
        """The :data:`META_FIELDS` columns of each row (``rows_ev``: its event's index, rows
        in event order), and each row's kind (0 insert, 1 update, 2 delete): per event in C
        loops (``map``) and numpy, per distinct rows plan in Python, per row in numpy.
        ``groups``: the events' :func:`_identity_groups` when the caller has them."""
        ev = self.events
        n_ev = len(ev)
        plans, types, _, gtids, files, offsets, stamps, txns, ks = self.fields()
        # per distinct rows plan (a plan is made for one type code): its kind and column names
        p_first, p_of = groups if groups is not None else _identity_groups(plans)
        names = self._names()
        p_kind, bnames, anames = [], [], []
        for i in p_first.tolist():
            plan, t = plans[i], types[i]
            kind = 1 if plan.after is not None else 2 if t in DELETE_TYPES else 0
            p_kind.append(kind)
            bnames.append(None if kind == 0 else names(plan.present))
            anames.append(names(plan.after) if kind == 1 else None if kind == 2 else names(plan.present))
        # row: index of the change in its transaction = the event's first row there + index in the event
        counts = np.bincount(rows_ev, minlength=n_ev).astype(np.int64) if n_ev else np.zeros(0, dtype=np.int64)
        first = np.cumsum(counts) - counts  # each event's first row in this batch
        one_each = len(rows_ev) == n_ev and bool((counts == 1).all())  # rows_ev is 0, 1, 2, ...
        # per event -> per row: taken by rows_ev, or as they are when each event has one row (OLTP's usual)
        at: Any = (lambda a: a) if one_each else (lambda a: a[rows_ev])
        taken: Any = (lambda a: a) if one_each else (lambda a: take(a, rows_ev))
        kind = at(np.array(p_kind, dtype=np.int64)[p_of])
        whole = None not in txns  # every event in a transaction: its fields read in C (attrgetter)
        counted = np.fromiter(_counted_rows(txns, ks, whole), dtype=np.int64, count=n_ev)  # -1: not counted
        # not counted: a transaction touching only this buffer, its events consecutive here
        # (None: an event outside a transaction, a run of its own)
        tx_ids = np.fromiter(map(id, txns), dtype=np.uint64, count=n_ev)
        new_run = np.ones(n_ev, dtype=np.bool_)
        new_run[1:] = tx_ids[1:] != tx_ids[:-1]
        if None in txns:
            new_run |= np.fromiter((t is None for t in txns), dtype=np.bool_, count=n_ev)
        run_start = np.maximum.accumulate(np.where(new_run, np.arange(n_ev), 0)) if n_ev else np.zeros(0, np.int64)
        row = at(np.where(counted >= 0, counted, first - first[run_start]))
        if not one_each:  # the change's index in its event
            row = row + (np.arange(len(rows_ev), dtype=np.int64) - first[rows_ev])
        seq = np.fromiter(map(_SEQ if whole else _seq, txns), dtype=np.int64, count=n_ev)
        unknown = np.fromiter(map(_UNKNOWN if whole else _unknown, txns), dtype=np.bool_, count=n_ev)
        info = self.info
        zero = np.zeros(len(rows_ev), dtype=np.int64)
        p_rows = at(p_of)
        return [numbers(at(seq), pa.int64()),
                numbers(row.astype(np.int32), pa.int32(), at(unknown)),
                take(strings(_OPNAMES), kind),
                take(path_strings([info.database]), zero),
                take(path_strings([info.table]), zero),
                taken(strings(gtids)),
                taken(optional_uint64(list(map(_XID if whole else _xid, txns)))),  # None: no Xid event (COMMIT query)
                _event_paths(files, rows_ev),
                numbers(at(np.array(offsets, dtype=np.uint64)), pa.uint64()),
                taken(optional_uint64(list(map(_TXPOS if whole else _txpos, txns)))),
                numbers(at(np.array(stamps, dtype=np.int64)), pa.timestamp("s", tz="UTC")),
                take(string_lists(bnames), p_rows),
                take(string_lists(anames), p_rows)], kind

    def _names(self) -> Any:
        """fn(column bitmap) -> the export's names of the columns it holds (:func:`field_names`,
        bytes that are not UTF-8 as ``\\xNN``)."""
        if self._image_names is None:
            self._image_names = ({}, [n.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
                                      for n in field_names(self.info.cols)])
        cache, all_names = self._image_names

        def names(bits: tuple) -> list[str]:
            got = cache.get(bits)
            if got is None:
                got = cache[bits] = [n for n, p in zip(all_names, bits, strict=True) if p]
            return got
        return names

    # -- the columnar decoders (binlogwriter.read.arrowcols) ------------------------------------
    def _columnar(self) -> pa.RecordBatch:
        cols = self.info.cols
        if self._builders is None:
            self._layouts, self._builders = _column_builders(cols)
            if self._builders is None:
                self.columnar = False
                raise Fallback
        ev = self.events
        plans, types, rows = self.fields()[:3]
        if not all(rows) and any(not r and no_image_columns(p.present, p.after) for p, r in zip(plans, rows, strict=True)):
            raise Fallback  # an event of one row with 0-byte images (layouts.rows.no_image_columns)
        raw = b"".join(rows)
        buf = np.frombuffer(raw + bytes(PAD), dtype=np.uint8)
        lens = np.fromiter(map(len, rows), dtype=np.int64, count=len(ev))
        ends = np.cumsum(lens)
        starts = ends - lens
        # the events of each rows plan (in order), plan by plan in order of first use
        firsts, of = groups = _identity_groups(plans)
        order = np.argsort(of, kind="stable")
        bounds = np.cumsum(np.bincount(of, minlength=len(firsts)))
        blocks: list[tuple] = []
        for g in np.argsort(firsts).tolist():
            idx = order[(bounds[g - 1] if g else 0):bounds[g]]
            first = int(firsts[g])
            self._group(buf, raw, idx, starts[idx], ends[idx], plans[first], types[first], blocks)
        ev_all = np.concatenate([b[0] for b in blocks]) if blocks else np.zeros(0, dtype=np.int64)
        m_all = np.concatenate([b[1] for b in blocks]) if blocks else np.zeros(0, dtype=np.int64)
        perm = np.lexsort((m_all, ev_all))
        n = len(perm)
        arrays, kind = self._meta(ev_all[perm], groups)
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
        return self._finish(arrays, kind)

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


def _event_paths(files: tuple[str, ...], rows_ev: np.ndarray) -> pa.Array:
    """The ``file`` column: each row's event's path (:func:`path_strings`), each distinct
    path object laid out once (one per file read) and taken per row."""
    first, of = _identity_groups(files)
    return take(path_strings([files[i] for i in first.tolist()]), of[rows_ev])


def _counted_rows(txns: tuple, ks: tuple, whole: bool) -> list[int]:
    """Event ``k`` of each transaction ``t``: its first row in the transaction once counted,
    else -1 (``whole``: no event outside a transaction, the counts read in C)."""
    if whole:
        return [-1 if c is None else c[k] for c, k in zip(map(_COUNTS, txns), ks, strict=True)]
    return [-1 if t is None or t.counts is None else t.counts[k] for t, k in zip(txns, ks, strict=True)]


def _identity_groups(objs: tuple) -> tuple[np.ndarray, np.ndarray]:
    """``(first, of)`` of a field's objects by identity (the events' rows plans, their file
    paths): the index of each distinct object's first event (in order of their ids), and
    each event's object among them."""
    ids = np.fromiter(map(id, objs), dtype=np.uint64, count=len(objs))
    _, first, of = np.unique(ids, return_index=True, return_inverse=True)
    return first, of.reshape(-1)


_SEQ, _UNKNOWN, _XID, _TXPOS, _COUNTS = (attrgetter(a) for a in ("seq", "unknown", "xid", "txpos", "counts"))


def _seq(t: Txn | None) -> int:
    return 0 if t is None else t.seq


def _unknown(t: Txn | None) -> bool:
    return t is not None and t.unknown


def _xid(t: Txn | None) -> int | None:
    return None if t is None else t.xid


def _txpos(t: Txn | None) -> int | None:
    return None if t is None else t.txpos
