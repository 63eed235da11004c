"""Arrow arrays built from their buffers, without ``pa.array`` (issue 30: the export command's
start-up).

``pa.array`` asks pyarrow's pandas shim whether its input is a pandas object before it looks
at it, and that shim imports pandas (about 0.3 CPU-s, more than the export of a 10 MB file)
whenever pandas is installed — for a numpy array or a plain list too. The export's meta
columns, validity masks and take indices are numpy arrays and lists of strings: this module
lays them out as Arrow does (validity bitmap LSB first, 32-bit string offsets) and hands the
buffers to ``pa.Array.from_buffers``, which asks nobody. The arrays are equal to what
``pa.array`` gives (``tests/test_export_no_pandas.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

__all__ = ["bitmap", "numbers", "booleans", "strings", "string_lists", "indices"]


def bitmap(valid: np.ndarray) -> pa.Buffer | None:
    """Arrow's validity bitmap of a boolean array (bit i of byte i//8, LSB first); None when
    every value is valid (Arrow's form of "no nulls")."""
    return None if valid.all() else pa.py_buffer(np.packbits(valid, bitorder="little"))


def numbers(values: np.ndarray, typ: pa.DataType, mask: np.ndarray | None = None) -> pa.Array:
    """``pa.array(values, type=typ, mask=mask)`` for a fixed-width numeric ``typ`` whose numpy
    form ``values`` already has (``mask``: True where null, as ``pa.array`` takes it)."""
    data = np.ascontiguousarray(values)
    if data.dtype.itemsize * 8 != typ.bit_width:
        raise TypeError(f"{data.dtype} values for {typ}")
    valid = None if mask is None else bitmap(~np.asarray(mask, dtype=bool))
    return pa.Array.from_buffers(typ, len(data), [valid, pa.py_buffer(data)])


def indices(idx: np.ndarray, valid: np.ndarray | None = None) -> pa.Array:
    """int64 take indices, null where ``valid`` is False."""
    return numbers(idx, pa.int64(), None if valid is None else ~valid)


def booleans(values: np.ndarray) -> pa.Array:
    """``pa.array(values, type=pa.bool_())`` for a numpy boolean array."""
    v = np.asarray(values, dtype=bool)
    return pa.Array.from_buffers(pa.bool_(), len(v), [None, pa.py_buffer(np.packbits(v, bitorder="little"))])


def strings(values: Sequence[str | None]) -> pa.Array:
    """``pa.array(values, type=pa.string())``; raises UnicodeEncodeError for a str holding
    surrogates, as ``pa.array`` does (callers escape those), and TypeError for a value that is
    not a str. The bytes are encoded in one piece; an ASCII batch's offsets are the str
    lengths (both C loops: as fast as ``pa.array``)."""
    vals = values
    try:
        text = "".join(vals)
        has_null = False
    except TypeError:  # a None (or a value that is not a str: raised again below)
        vals = [("" if v is None else v) for v in values]
        text = "".join(vals)
        has_null = True
    data = text.encode("utf-8")
    n = len(vals)
    if len(data) == len(text):
        lens = np.fromiter(map(len, vals), dtype=np.int64, count=n)
    else:
        lens = np.fromiter((len(v.encode("utf-8")) for v in vals), dtype=np.int64, count=n)
    off = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lens, out=off[1:])
    if off[-1] >= 1 << 31:
        return pa.array(values, type=pa.string())  # large: pyarrow splits it (pandas or not)
    valid = bitmap(np.fromiter((v is not None for v in values), dtype=bool, count=n)) if has_null else None
    return pa.Array.from_buffers(pa.string(), n, [valid, pa.py_buffer(off.astype(np.int32)), pa.py_buffer(data)])


def string_lists(values: Sequence[Sequence[str] | None]) -> pa.Array:
    """``pa.array(values, type=pa.list_(pa.string()))``. The export's name lists are a few
    shared list objects (one per column bitmap): each distinct object is laid out once, then
    taken per value."""
    ids = np.fromiter(map(id, values), dtype=np.uint64, count=len(values))
    _, first, inv = np.unique(ids, return_index=True, return_inverse=True)
    if len(first) == len(values):
        return _string_lists(values)
    return _string_lists([values[i] for i in first.tolist()]).take(indices(inv.reshape(-1).astype(np.int64)))


def _string_lists(values: Sequence[Sequence[str] | None]) -> pa.Array:
    flat = [s for v in values if v is not None for s in v]
    lens = np.fromiter((0 if v is None else len(v) for v in values), dtype=np.int64, count=len(values))
    off = np.zeros(len(values) + 1, dtype=np.int32)
    np.cumsum(lens, out=off[1:])
    valid = bitmap(np.fromiter((v is not None for v in values), dtype=bool, count=len(values)))
    return pa.Array.from_buffers(pa.list_(pa.string()), len(values), [valid, pa.py_buffer(off)],
                                 children=[strings(flat)])
