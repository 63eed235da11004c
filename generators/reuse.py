"""Rows computed once for two images: in a batch where a key changes more than once (a
small table, hot keys), the row an op leaves is the row the next op on that key starts
from, so its after image and the next op's before image hold the same values — and, when
the images carry the same columns, the same bytes. :func:`compute_rows` computes such a
before row only once (a row is a function of its key, version and born:
:meth:`generators.rows.TableRows.compute_columns`); :func:`split_images` gives the encoded
images back in the order the batch asks for. Used by generators/batch.py ``rows_batch``;
tests/generators/test_row_reuse.py holds runs with and without the reuse to the same bytes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from binlogwriter.batch.scatter import take_runs
from binlogwriter.batch.unique import lexsort_ints

__all__ = ["REUSE_SHARE", "compute_rows", "split_images", "op_times"]

REUSE_SHARE = 8
""":func:`compute_rows` reuses after rows as before rows when at least 1 before row in this many
repeats one (below that the bookkeeping costs more than the rows it saves)."""


def compute_rows(rt: Any, ab: Any, mine: np.ndarray, need_b: np.ndarray,
                 need_a: np.ndarray) -> tuple[list, np.ndarray | None, int]:
    """``rt.compute_columns`` of the before rows of ops ``need_b`` then the after rows of ops
    ``need_a`` (ops ``mine`` of one table, ascending): (columns, ``src``, rows computed).

    A before row that is the after row of the op before it on the same key in this batch
    (the same key, version and born: a row is a function of those alone,
    :meth:`~generators.rows.TableRows.compute_columns`) is not computed again: then the rows
    computed are the other before rows, then the after rows, and row ``r`` of the list asked
    for is computed row ``src[r]``. ``src`` is None when every row is computed (few repeats:
    a key is seldom changed twice in a batch of a large table)."""
    na, nb = len(need_a), len(need_b)
    own = None
    if nb and na:
        keys = ab.key[mine]
        order = lexsort_ints((keys,))  # each key's ops in batch order
        ks = keys[order]
        same = np.flatnonzero(ks[1:] == ks[:-1])
        prev = np.full(len(mine), -1, dtype=np.int64)
        prev[order[same + 1]] = mine[order[same]]  # the op before on the same key
        pb = prev[np.searchsorted(mine, need_b)]
        pp = np.maximum(pb, 0)
        ok = (pb >= 0) & (ab.kind[pp] != 2) & (ab.ver_after[pp] == ab.ver_before[need_b]) \
            & (ab.born[pp] == ab.born[need_b])
        if ab.stamps is not None:  # and the same times (generators/stamps.py)
            ti, tu_b, tu_a = ab.stamps
            ok &= (ti[pp] == ti[need_b]) & (tu_a[pp] == tu_b[need_b])
        if np.count_nonzero(ok) * REUSE_SHARE >= nb:
            own = np.flatnonzero(~ok)
            src = np.empty(nb + na, dtype=np.int64)
            src[own] = np.arange(len(own))
            src[:nb][ok] = len(own) + np.searchsorted(need_a, pp[ok])  # those ops are after ops of the table
            src[nb:] = len(own) + np.arange(na)
    ob = need_b if own is None else need_b[own]
    cols = rt.compute_columns(np.concatenate([ab.key[ob], ab.key[need_a]]),
                              np.concatenate([ab.ver_before[ob], ab.ver_after[need_a]]),
                              np.concatenate([ab.born[ob], ab.born[need_a]]), **op_times(ab, ob, need_a))
    return cols, (None if own is None else src), len(ob) + na


def op_times(ab: Any, need_b: np.ndarray, need_a: np.ndarray) -> dict[str, Any]:
    """``compute_columns``' ``ti`` / ``tu`` for the before rows of ops ``need_b`` then the after
    rows of ops ``need_a`` (generators/stamps.py), or nothing."""
    if getattr(ab, "stamps", None) is None:
        return {}
    ti, tu_b, tu_a = ab.stamps
    return dict(ti=np.concatenate([ti[need_b], ti[need_a]]), tu=np.concatenate([tu_b[need_b], tu_a[need_a]]))


def split_images(buf: np.ndarray, lens: np.ndarray, src: np.ndarray | None, nb: int) -> tuple:
    """The images of the computed rows (``buf``: back to back, ``lens``; :func:`compute_rows`) as
    (before images, their lengths, after images, their lengths) of the rows asked for: the
    before images ``src[:nb]`` gathered (one row take when they share a width), the after
    images the last computed rows, in order (a view). ``src`` None: the first ``nb``
    images are the before images."""
    na = len(lens) - nb if src is None else len(src) - nb
    first_a = len(lens) - na
    cut = int(lens[:first_a].sum())
    if src is None:
        return buf[:cut], lens[:nb], buf[cut:], lens[nb:]
    pick = src[:nb]
    w = int(lens[0]) if len(lens) else 0
    if w and (lens == w).all():
        before = np.take(buf.reshape(-1, w), pick, axis=0).reshape(-1)
    else:
        before = take_runs(buf, lens, pick)
    return before, lens[pick], buf[cut:], lens[first_a:]
