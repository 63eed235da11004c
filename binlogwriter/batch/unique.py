"""``np.unique`` of the small-integer arrays the batch path groups by (tables, kinds, shapes,
templates, image masks, lengths and clocks of one batch) by counting instead of sorting.

:func:`unique_ints` gives what ``np.unique(a, return_inverse=..., return_counts=...)`` gives —
the sorted distinct values in ``a``'s dtype, the index of each element's value in them, how
many times each occurs — from one ``np.bincount`` over ``a - a.min()`` when the values span
a range not much wider than the array; otherwise it is ``np.unique``. A sort of the tens of
thousands of events of a batch costs ten to twenty times the count
(tests/batch/test_unique.py checks both against ``np.unique``).

:func:`lexsort_ints` gives what ``np.lexsort(keys)`` gives for integer keys of small ranges
from one ``argsort`` of a single int64 key: the keys (primary last) and then the element's
own index are packed into one number per element, so every number is distinct and the
order of the numbers is ``np.lexsort``'s stable order; keys whose packed range would not fit
in 63 bits go to ``np.lexsort``. One sort instead of one merge sort per key: for keys in
random order (a batch's ops by table and key: about a third of the 3-key lexsort); keys
nearly sorted already are ``np.lexsort``'s good case (its merge sort finds the runs).

:func:`unique_rows` gives the distinct rows of a boolean matrix (a batch's assigned column
sets, one row per UPDATE, one column per mutable column: any number of columns, never a
64-bit mask) and each row's index in them: the rows packed to bytes (``np.packbits``); rows of
at most 7 bytes are read as one integer each and counted by :func:`unique_ints`, wider ones
are sorted as byte strings (``np.unique`` of a ``void`` view).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["unique_ints", "lexsort_ints", "unique_rows"]

_SLACK = 4096  # a range this much wider than the array still counts


def unique_ints(a: Any, return_inverse: bool = False, return_counts: bool = False) -> Any:
    """``np.unique(a, return_inverse=return_inverse, return_counts=return_counts)`` for a 1-D
    integer array ``a`` (any other input goes to ``np.unique``)."""
    a = np.asarray(a)
    n = len(a) if a.ndim == 1 else 0
    if not n or a.dtype.kind not in "iu":
        return np.unique(a, return_inverse=return_inverse, return_counts=return_counts)
    lo, hi = int(a.min()), int(a.max())
    span = hi - lo + 1
    if span > 2 * n + _SLACK or hi > np.iinfo(np.intp).max or lo < np.iinfo(np.intp).min:
        return np.unique(a, return_inverse=return_inverse, return_counts=return_counts)
    b = a.astype(np.intp)  # values within ``span`` of ``lo``: no overflow after the shift
    if lo:
        b -= lo
    counts = np.bincount(b, minlength=span)
    present = np.flatnonzero(counts)
    uniq = (present + lo).astype(a.dtype)
    if not return_inverse and not return_counts:
        return uniq
    out: list[np.ndarray] = [uniq]
    if return_inverse:
        lut = np.zeros(span, dtype=np.intp)
        lut[present] = np.arange(len(present), dtype=np.intp)
        out.append(lut[b])
    if return_counts:
        out.append(counts[present])
    return tuple(out)


def lexsort_ints(keys: Any) -> np.ndarray:
    """``np.lexsort(keys)`` for a sequence of 1-D integer arrays of one length (the last
    key is the primary one), as an intp array (see module docstring)."""
    arrs = [np.asarray(k) for k in keys]
    n = len(arrs[0]) if arrs else 0
    if not n or any(a.ndim != 1 or a.dtype.kind not in "iu" for a in arrs):
        return np.lexsort(keys)
    comp = np.arange(n, dtype=np.int64)  # the index: the lowest "key", makes every number distinct
    scale = n
    for a in arrs:
        lo, hi = int(a.min()), int(a.max())
        span = hi - lo + 1
        if scale * span >= 1 << 63 or hi >= 1 << 63:
            return np.lexsort(keys)
        comp += (a.astype(np.int64, copy=False) - lo) * scale
        scale *= span
    return np.argsort(comp).astype(np.intp, copy=False)


def unique_rows(mat: Any) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a 2-D boolean matrix and each row's index in them:
    the rows of ``np.unique(mat, axis=0, return_inverse=True)`` (in an order of their own) for
    any number of columns (see module docstring)."""
    mat = np.asarray(mat, dtype=np.bool_)
    n, m = mat.shape
    if not n or not m:
        return np.zeros((min(n, 1), m), dtype=np.bool_), np.zeros(n, dtype=np.intp)
    packed = np.packbits(mat, axis=1, bitorder="little")
    w = packed.shape[1]
    if w <= 7:  # below 2**56: one int64 per row, counted
        code = np.zeros((n, 8), dtype=np.uint8)
        code[:, :w] = packed
        uniq, inv = unique_ints(code.view("<i8").ravel(), return_inverse=True)
        ub = uniq.astype("<i8").view(np.uint8).reshape(-1, 8)[:, :w]
    else:
        uniq, inv = np.unique(np.ascontiguousarray(packed).view(np.dtype((np.void, w))).ravel(), return_inverse=True)
        ub = np.frombuffer(uniq.tobytes(), dtype=np.uint8).reshape(-1, w)
    out = np.unpackbits(ub, axis=1, count=m, bitorder="little").astype(np.bool_)
    return out, np.asarray(inv, dtype=np.intp).reshape(-1)
