"""Sizes only: a batch's row changes with their image *lengths* and nothing encoded.

:func:`rows_sizes` is :func:`generators.batch.rows_batch` for a planner that needs sizes
only (spark_gen's pass 1 places every partition in the binlog files from group sizes;
the bytes are written by pass 2). It groups the changes by image shape the way
``rows_batch`` does (one shape per INSERT / DELETE of a table, one per assigned column set
of its UPDATEs: ``binlogwriter.images``) and takes each image's length from
``binlogwriter.values.row.column_image_lengths`` — the null bitmap's bytes plus each value's
bytes from the per-column encoders, no image assembled, nothing scattered into a batch
buffer. The result is a :class:`~binlogwriter.batch.columnar.RowsBatch` with the same
clocks, shapes and ``op_len`` as ``rows_batch`` and an empty ``data``:
``BinlogWriter.plan_rows`` derives every group size from those by arithmetic.

Rows-query texts need the row values rendered into SQL, so with ``rows_query`` the batch
goes through ``rows_batch`` itself. tests/spark_gen/test_sizes.py checks both against each
other on every workload, flavor and image.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from binlogwriter import images
from binlogwriter.batch.columnar import RowsBatch
from binlogwriter.errors import ValueEncodeError
from binlogwriter.values.row import ColumnArray, column_image_lengths
from generators.batch import AppliedBatch, rows_batch
from generators.length_faces import constant_images
from generators.reuse import op_times
from generators.statements import own_statements, statement_starts

__all__ = ["rows_sizes"]


def _lengths(t: Any, descs, present, cols, n: int) -> np.ndarray:
    try:
        return column_image_lengths(descs, present, cols, n)
    except ValueEncodeError as exc:  # named as rows_batch names it
        raise ValueEncodeError(exc.reason, table=f"{t.database}.{t.name}", column=exc.column,
                               row=exc.row) from None


def _take(col: Any, idx: np.ndarray) -> Any:
    if isinstance(col, ColumnArray):
        return col.take(idx)
    return [col[j] for j in idx.tolist()]


def rows_sizes(run: Any, ab: AppliedBatch, now: int, *, faces: bool = True) -> RowsBatch:
    """The row changes of ``ab`` with image lengths, no images (see module docstring).

    ``faces``: an image whose present columns all have a constant length
    (generators/length_faces.py) takes it without any value being made; a table's values
    are made only when one of its images has a column of varying length. ``faces=False``
    makes every value (the reference the faces are tested against)."""
    spec = run.spec
    if spec.rows_query:
        return rows_batch(run, ab, now)
    flavor = spec.flavor
    image = spec.row_image
    nops = len(ab.txn)
    shapes: list = []
    shape_ix: dict = {}
    op_shape = np.zeros(nops, dtype=np.int64)
    op_len = np.zeros(nops, dtype=np.int64)
    for tidx in np.unique(ab.table).tolist():
        rt = run.rows[tidx]
        t = rt.table
        descs = rt.column_descs()
        mine = np.flatnonzero(ab.table == tidx)
        k = ab.kind[mine]
        need_b = mine[k != 0]
        need_a = mine[k != 2]
        const = constant_images(rt) if faces else None
        cols: list | None = None
        nb = len(need_b)
        groups: list[tuple[tuple, np.ndarray, np.ndarray | None, np.ndarray | None]] = []
        ins = mine[k == 0]
        if len(ins):
            groups.append(((images.insert_columns(t, image, range(len(t.columns)), flavor), None), ins, None,
                           nb + np.searchsorted(need_a, ins)))
        dele = mine[k == 2]
        if len(dele):
            groups.append(((images.delete_columns(t, image, flavor), None), dele, np.searchsorted(need_b, dele), None))
        upd = mine[k == 1]
        if len(upd):
            sets, set_of = rt.update_sets(ab.key[upd], ab.ver_after[upd], ab.ver_before[upd])
            for s, given in enumerate(sets):
                sel = upd[set_of == s]
                groups.append((images.update_columns(t, image, given, flavor), sel, np.searchsorted(need_b, sel),
                               nb + np.searchsorted(need_a, sel)))
        for sh, ops, rb_, ra_ in groups:
            key = (tidx, sh)
            s = shape_ix.get(key)
            if s is None:
                s = shape_ix[key] = len(shapes)
                shapes.append(sh)
            op_shape[ops] = s
            bbits, abits = sh
            for rows_, bits in ((rb_, bbits), (ra_, bbits if abits is None else abits)):
                if rows_ is None:
                    continue
                if const is not None and const.covers(bits):
                    op_len[ops] += const.length(bits)
                    continue
                if cols is None:
                    cols = rt.compute_columns(np.concatenate([ab.key[need_b], ab.key[need_a]]),
                                              np.concatenate([ab.ver_before[need_b], ab.ver_after[need_a]]),
                                              np.concatenate([ab.born[need_b], ab.born[need_a]]),
                                              **op_times(ab, need_b, need_a))
                op_len[ops] += _lengths(t, descs, bits, [_take(c, rows_) for c in cols], len(ops))
    return RowsBatch(clock=now + np.cumsum(ab.advance), op_txn=ab.txn, op_table=ab.table, op_kind=ab.kind,
                     op_shape=op_shape, op_len=op_len, data=np.zeros(0, dtype=np.uint8),
                     tables=[rt.table for rt in run.rows], shapes=shapes, own_statements=own_statements(spec),
                     stmt_start=statement_starts(run, ab.txn, ab.table, ab.kind, ab.key, ab.ver_before, ab.ver_after))
