"""A batch of transactions at once: plans and key states -> row changes as arrays -> row
images column by column -> a :class:`~binlogwriter.batch.columnar.RowsBatch`.

:func:`apply_batch` runs the plans of transactions ``lo..hi-1`` (generators/plan.py) through
key resolution and the key state machine (generators/keys.py) in one tight loop and
records what every transaction applied as arrays (:class:`AppliedBatch`: per change its
transaction, table, kind, key, versions before/after and ``born``), with an undo log so
the transactions after a ``--size`` cut are rolled back (:meth:`AppliedBatch.keep`).

:func:`rows_batch` makes the rows of every change per table, column by column
(:meth:`generators.rows.TableRows.compute_columns`: vectorised value generators, the scalar
ones per value where a type has none), groups the changes by image shape (before/after
column bitmaps, ``binlogwriter.images``) and encodes each group's images with
``binlogwriter.values.row.encode_column_images`` — all of a table's rows in one call when
every image has the same columns (FULL; NOBLOB without BLOBs): a row's image depends on its
values and columns only; the images are placed in write order (an UPDATE's before image then
its after image) when the bytes are built (``DeferredImages``). Plans, keys and key states
are arrays for every template (generators/plan_batch.py, generators/steps.py).

Shape of what a committed transaction applied (for truth / hooks): ``AppliedBatch`` arrays
``txn`` (0-based in the batch), ``table``, ``kind`` (0 insert, 1 update, 2 delete),
``key``, ``ver_before``, ``ver_after``, ``born``, in (transaction, seq) order; the rows are
``TableRows.compute_columns(key, version, born)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from binlogwriter import images
from binlogwriter.batch.columnar import DeferredImages, RowsBatch
from binlogwriter.batch.unique import lexsort_ints, unique_ints
from binlogwriter.errors import ValueEncodeError
from binlogwriter.values.row import ColumnArray, encode_column_images
from generators import reuse
from generators.keys import KeyCursor, resolve_ops, step
from generators.noop import changed_ops
from generators.plan import plan_range
from generators.plan_batch import resolve_range
from generators.stamps import op_stamps
from generators.statements import own_statements, rows_query_texts, statement_starts
from generators.steps import step_many

__all__ = ["BATCH_BYTES", "BATCH_TXNS", "FIRST_TXNS", "AppliedBatch", "apply_batch", "apply_batch_loop", "rows_batch"]

BATCH_TXNS = 16_384
"""Transactions per batch. Every batch costs the same count of numpy and Arrow calls whatever
its size, each giving back and taking again the GIL the encoder and truth threads also want:
sysbench 1 GB took 7.8 s at 4096, 7.3 s at 8192, 6.9-7.1 s at 16,384 and 7.3-7.7 s at
32,768 (peak RSS 317, 375, 400, 620 MB; issue #10's closing note). The bytes do not depend
on it (tests/generators/test_batch_size.py)."""
BATCH_BYTES = 16 << 20
"""Binlog bytes a batch aims at (the single-process engine sizes its batches from the bytes per
transaction so far): a wide table's batch holds fewer transactions, so memory stays flat
(alltypes 100 MB: peak RSS 768 MB at 12 MB, 848 at 20, 999 at 32; 795 with the old 4096
transactions; sysbench's 1.7 KB transactions make batches of about 10,000)."""
FIRST_TXNS = 1024
"""Transactions of the first batch (it measures the bytes per transaction), unless the schema's
estimate (:func:`generators.batch_size.batch_txns`) says fewer make :data:`BATCH_BYTES`."""
_KIND = {"insert": 0, "update": 1, "delete": 2}
_NAMES = ("insert", "update", "delete")


@dataclass
class AppliedBatch:
    lo: int
    txn: np.ndarray
    table: np.ndarray
    kind: np.ndarray
    key: np.ndarray
    ver_before: np.ndarray
    ver_after: np.ndarray
    born: np.ndarray
    advance: np.ndarray
    undo: list  # (table, key, state before)
    undo_at: list  # per transaction: len(undo) before it
    cursors: list  # per transaction: the key cursor before it
    pending: bool = False  # the state was not touched: keep() sets the state the kept changes leave
    cursor_at: Any = None  # pending: the key cursor before a transaction (absolute number) -> KeyCursor
    state: tuple | None = None
    """Pending only, when UPDATEs that change nothing were dropped (generators/noop.py) or the
    rows have times: every applied op's ``(txn, table, kind, key, ver_after, born, ti, tu_a)``,
    the state :meth:`keep` sets (a dropped UPDATE still moves its key's version)."""
    stamps: tuple | None = None
    """``(ti, tu_b, tu_a)`` per op: the row's INSERT time and last change time before and after
    it, when a table has stamped columns (generators/stamps.py); else None."""
    values: dict | None = None
    """Set by :func:`rows_batch` when rows-query texts or truth/changes need the rows: per
    table index ``(columns, before ops, after ops, src)`` — the columns of ``compute_columns``
    over the before rows of ``before ops`` then the after rows of ``after ops`` (op indices);
    when ``src`` is not None, only some rows were computed and row ``r`` of that list is
    row ``src[r]`` of the columns (generators/reuse.py)."""

    def keep(self, run: Any, c: int) -> None:
        """Keep transactions ``0..c-1``; roll the key state back to before transaction ``c``
        (or, for a batch applied without touching the state, set the state they leave and the
        key cursor before transaction ``c``)."""
        if self.pending:
            if self.cursor_at is not None and c < len(self.advance):
                run.cursor = self.cursor_at(self.lo + c)
            txn, table, kind, key, ver_after, born, ti, tu = self.state or (
                self.txn, self.table, self.kind, self.key, self.ver_after, self.born, None, None)
            m = txn < c
            t, k = table[m], key[m]
            if not len(k):
                return
            # the last change of each key decides its state (kinds: 0 insert, 1 update live; 2 delete)
            last = lexsort_ints((k, t))
            ts, ks = t[last], k[last]
            end = np.ones(len(ks), dtype=bool)
            end[:-1] = (ts[1:] != ts[:-1]) | (ks[1:] != ks[:-1])
            pick = np.flatnonzero(m)[last[end]]
            for tidx in unique_ints(table[pick]).tolist():
                q = pick[table[pick] == tidx]
                run.rows[tidx].set_states(key[q], kind[q] != 2, ver_after[q], born[q])
                if ti is not None:
                    run.rows[tidx].set_stamps(key[q], ti[q], tu[q])
            return
        if c >= len(self.cursors):
            return
        rows = run.rows
        for tidx, key, old in reversed(self.undo[self.undo_at[c]:]):
            rows[tidx].set_state(key, old)
        run.cursor = self.cursors[c]

    def counts(self, c: int):
        """(table, kind name, changes) of transactions ``0..c-1``."""
        m = self.txn < c
        if not m.any():
            return []
        combo = self.table[m].astype(np.int64) * 3 + self.kind[m]
        u, cnt = unique_ints(combo, return_counts=True)
        return [(int(x) // 3, _NAMES[int(x) % 3], int(k)) for x, k in zip(u, cnt, strict=True)]


def apply_batch(run: Any, lo: int, hi: int, now: int | None = None) -> AppliedBatch:
    """Plan and apply transactions ``lo..hi-1`` as arrays, every template and ``--key-dist``
    (generators/plan_batch.py: the ops and key cursor of keys.resolve_ops over the range;
    generators/steps.py: keys.step over them). The key state is left as it was
    (``pending``: :meth:`AppliedBatch.keep` sets what the kept transactions leave); the key
    cursor moves past ``hi - 1`` and ``keep`` moves it back to a cut. Same changes as
    :func:`apply_batch_loop` (tests/generators/test_plan_batch.py). UPDATEs that change
    nothing are dropped (generators/noop.py); ``now``: the clock before transaction ``lo``,
    for the rows' times of stamped columns (generators/stamps.py; None: not kept)."""
    ops, after = resolve_range(run.spec, run.infos, run.cursor, lo, hi)
    applied, vb, va, born = step_many(run.rows, ops.table, ops.key, ops.kind, ops.epoch, ops.inc)
    txn, tab, kind, key = ops.txn[applied] - lo, ops.table[applied], ops.kind[applied], ops.key[applied]
    vb, va, born = vb[applied], va[applied], born[applied]
    state = stamps = None
    keep = changed_ops(run.rows, tab, kind, key, vb, va, born)  # no row for an unchanged row
    if now is not None:
        changes = np.ones(len(txn), dtype=bool)
        if keep is not None:
            changes[:] = False
            changes[keep] = True
        stamps = op_stamps(run.rows, tab, kind, key, now + np.cumsum(ops.advance)[txn], changes)
    if keep is not None or stamps is not None:
        state = (txn, tab, kind, key, va, born) + ((None, None) if stamps is None else (stamps[0], stamps[2]))
    if keep is not None:
        txn, tab, kind, key, vb, va, born = (x[keep] for x in (txn, tab, kind, key, vb, va, born))
        stamps = None if stamps is None else tuple(x[keep] for x in stamps)
    ab = AppliedBatch(lo, txn, tab, kind, key, vb, va, born, ops.advance, [], [], [], pending=True,
                      cursor_at=ops.cursor_at, state=state, stamps=stamps)
    run.cursor = after
    return ab


def apply_batch_loop(run: Any, lo: int, hi: int) -> AppliedBatch:
    """:func:`apply_batch` transaction by transaction (plan.plan_range, keys.resolve_ops,
    keys.step, the state set as it goes, with an undo log): the reference the tests compare
    :func:`apply_batch` with; the engine does not call it."""
    spec = run.spec
    infos = run.infos
    rows = run.rows
    ntab = len(rows)
    txn: list[int] = []
    tab: list[int] = []
    kind: list[int] = []
    keys: list[int] = []
    vb_l: list[int] = []
    va_l: list[int] = []
    born_l: list[int] = []
    adv: list[int] = []
    undo: list = []
    undo_at: list[int] = []
    cursors: list[KeyCursor] = []
    for t, plan in enumerate(plan_range(spec, ntab, lo, hi)):
        cursors.append(run.cursor.copy())
        undo_at.append(len(undo))
        adv.append(plan.advance)
        for op in resolve_ops(spec, infos, run.cursor, plan):
            rt = rows[op.table]
            old = rt.state(op.key)
            res = step(old, op.kind, op.epoch, op.inc)
            if res is None:
                continue
            st, vb, va = res
            undo.append((op.table, op.key, old))
            rt.set_state(op.key, st)
            txn.append(t)
            tab.append(op.table)
            kind.append(_KIND[op.kind])
            keys.append(op.key)
            vb_l.append(vb)
            va_l.append(va)
            born_l.append(st[2])
    arrays = [np.asarray(x, dtype=np.int64) for x in (txn, tab, kind, keys, vb_l, va_l, born_l)]
    keep = changed_ops(rows, *arrays[1:])  # no row for an unchanged row (generators/noop.py)
    if keep is not None:
        arrays = [x[keep] for x in arrays]
    return AppliedBatch(lo, *arrays, np.asarray(adv, dtype=np.int64), undo, undo_at, cursors)


def _encode_images(t: Any, descs, present, cols, n: int, pad):
    """``encode_column_images`` with a value error naming ``db.table.column`` as the
    per-transaction path names it."""
    try:
        return encode_column_images(descs, present, cols, n, pad)
    except ValueEncodeError as exc:
        raise ValueEncodeError(exc.reason, table=f"{t.database}.{t.name}", column=exc.column,
                               row=exc.row) from None


def _encode_whole(descs, groups: list, cols: list, n: int, pad) -> tuple[np.ndarray, np.ndarray] | None:
    """The images of all ``n`` computed rows (before rows then after rows, as
    ``compute_columns`` made them) in one ``encode_column_images`` call, when every image of
    the table's groups has the same columns (FULL images; NOBLOB without BLOBs), else None.
    A row's image depends on its values and columns only, so these are the bytes the
    per-group calls give, without taking each group's rows first. A value that does not fit:
    None (the per-group calls raise the error, located as always)."""
    present = {sh[0] for sh, _, rb_, _ in groups if rb_ is not None}
    present |= {sh[0] if sh[1] is None else sh[1] for sh, _, _, ra_ in groups if ra_ is not None}
    if len(present) != 1:
        return None
    try:
        return encode_column_images(descs, present.pop(), cols, n, pad)
    except ValueEncodeError:
        return None


def _take(col: Any, idx: np.ndarray) -> Any:
    if isinstance(col, ColumnArray):
        return col.take(idx)
    return [col[j] for j in idx.tolist()]


class _Shapes:
    """The batch's distinct image shapes ``(table index, (before bits, after bits))``, numbered
    in the order first met."""

    def __init__(self) -> None:
        self.shapes: list = []
        self._ix: dict = {}

    def number(self, sh: tuple) -> int:
        """The number of shape ``sh`` (a new one the next number)."""
        k = self._ix.get(sh)
        if k is None:
            k = self._ix[sh] = len(self.shapes)
            self.shapes.append(sh)
        return k


_Group = tuple[tuple, np.ndarray, np.ndarray | None, np.ndarray | None]
"""(image shape, op indices, their rows among the before rows, among the computed rows of after images)."""


def _image_groups(rt: Any, ab: AppliedBatch, mine: np.ndarray, need_b: np.ndarray, need_a: np.ndarray,
                  image: str, flavor: str) -> list[_Group]:
    """One table's ops ``mine`` grouped by image shape (``binlogwriter.images``): INSERT and
    DELETE one group each, UPDATE one per assigned column set's bitmaps (every set under
    FULL), with each op's row among the rows computed (before rows, then after rows)."""
    t = rt.table
    k = ab.kind[mine]
    nb = len(need_b)
    groups: list[_Group] = []
    ins = mine[k == 0]
    if len(ins):
        bits = images.insert_columns(t, image, range(len(t.columns)), flavor)
        groups.append(((bits, None), ins, None, nb + np.searchsorted(need_a, ins)))
    dele = mine[k == 2]
    if len(dele):
        bits = images.delete_columns(t, image, flavor)
        groups.append(((bits, None), dele, np.searchsorted(need_b, dele), None))
    upd = mine[k == 1]
    if len(upd):
        sets, set_of = rt.update_sets(ab.key[upd], ab.ver_after[upd], ab.ver_before[upd])
        by_shape: dict[tuple, list[int]] = {}
        for s, given in enumerate(sets):
            by_shape.setdefault(images.update_columns(t, image, given, flavor), []).append(s)
        for (bb, aa), ss in by_shape.items():
            sel = upd[np.isin(set_of, ss)]
            groups.append(((bb, aa), sel, np.searchsorted(need_b, sel), nb + np.searchsorted(need_a, sel)))
    return groups


def _encode_groups(t: Any, descs: tuple, groups: list[_Group], cols: list, src: np.ndarray | None, pad: int,
                   lb: np.ndarray, la: np.ndarray, pieces: list) -> None:
    """One table's images group by group (each group's rows taken from ``cols``): their
    lengths into ``lb`` / ``la`` (before / after image per op), the buffers onto ``pieces``."""
    for sh, ops, rb_, ra_ in groups:
        bbits, abits = sh
        if src is not None:  # row indices into the rows computed
            rb_ = None if rb_ is None else src[rb_]
            ra_ = None if ra_ is None else src[ra_]
        if rb_ is not None:
            buf, lens = _encode_images(t, descs, bbits, [_take(c, rb_) for c in cols], len(ops), pad)
            lb[ops] = lens
            pieces.append((ops, buf, lens, 0))
        if ra_ is not None:
            present = bbits if abits is None else abits
            buf, lens = _encode_images(t, descs, present, [_take(c, ra_) for c in cols], len(ops), pad)
            la[ops] = lens
            pieces.append((ops, buf, lens, 1))


def rows_batch(run: Any, ab: AppliedBatch, now: int) -> RowsBatch:
    """The row changes of ``ab`` with their images encoded (see module docstring)."""
    spec = run.spec
    flavor = spec.flavor
    pad = -1 if flavor.startswith("mariadb") else 0
    nops = len(ab.txn)
    shapes = _Shapes()
    op_shape = np.zeros(nops, dtype=np.int64)
    lb = np.zeros(nops, dtype=np.int64)
    la = np.zeros(nops, dtype=np.int64)
    pieces: list = []  # (op indices, image buffer, image lengths, side)
    tables = [rt.table for rt in run.rows]
    values: dict[int, Any] = {}
    keep = spec.rows_query or getattr(run, "changes", None) is not None
    for tidx in unique_ints(ab.table).tolist():
        rt = run.rows[tidx]
        descs = rt.column_descs(flavor)
        mine = np.flatnonzero(ab.table == tidx)
        k = ab.kind[mine]
        need_b = mine[k != 0]
        need_a = mine[k != 2]
        cols, src, nrows = reuse.compute_rows(rt, ab, mine, need_b, need_a)
        if keep:
            values[tidx] = (cols, need_b, need_a, src)
        groups = _image_groups(rt, ab, mine, need_b, need_a, spec.row_image, flavor)
        for sh, ops, _, _ in groups:
            op_shape[ops] = shapes.number((tidx, sh))
        whole = _encode_whole(descs, groups, cols, nrows, pad)
        if whole is not None:  # every image has the same columns: the rows encoded as computed
            bbuf, blens, abuf, alens = reuse.split_images(*whole, src, len(need_b))
            lb[need_b] = blens
            la[need_a] = alens
            pieces += [(need_b, bbuf, blens, 0), (need_a, abuf, alens, 1)]
        else:
            _encode_groups(rt.table, descs, groups, cols, src, pad, lb, la, pieces)
    stmt_sql = rows_query_texts(run, ab, values) if spec.rows_query else None
    ab.values = values if keep else None
    op_len = lb + la
    start = np.cumsum(op_len) - op_len
    # the images in write order, placed on the encoder's thread (ops ascending: each piece's
    # images land in order)
    data = DeferredImages(int(op_len.sum()),
                          [(start[ops] + (lb[ops] if side else 0), lens, buf) for ops, buf, lens, side in pieces])
    clock = now + np.cumsum(ab.advance)
    # shapes are per table in the engine; the codec wants (before bits, after bits)
    flat_shapes = [sh for _, sh in shapes.shapes]
    return RowsBatch(clock=clock, op_txn=ab.txn, op_table=ab.table, op_kind=ab.kind, op_shape=op_shape,
                     op_len=op_len, data=data, tables=tables, shapes=flat_shapes, stmt_sql=stmt_sql,
                     own_statements=own_statements(spec),
                     stmt_start=statement_starts(run, ab.txn, ab.table, ab.kind, ab.key, ab.ver_before, ab.ver_after))
