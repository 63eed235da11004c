"""Arrow arrays built from their buffers, without ``pa.array`` (issue 30: the export command's
start-up).

``pa.array`` asks pyarrow's pandas shim whether its input is a pandas object before it looks
at it, and that shim imports pandas (about 0.3 CPU-s, more than the export of a 10 MB file)
whenever pandas is installed — for a numpy array or a plain list too. The export's meta
columns, validity masks and take indices are numpy arrays and lists of strings: this module
lays them out as Arrow does (validity bitmap LSB first, 32-bit string offsets) and hands the
buffers to ``pa.Array.from_buffers``, which asks nobody. The arrays are equal to what
``pa.array`` gives (``tests/read/test_export_no_pandas.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

__all__ = ["bitmap", "numbers", "optional_uint64", "booleans", "strings", "string_lists", "indices", "take",
           "span_bytes"]


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


def optional_uint64(values: list[int | None]) -> pa.Array:
    """A uint64 column of ``values`` where None is null (a transaction without an Xid event,
    or an event outside any transaction), built from numpy without ``pa.array``'s pandas shim."""
    try:  # the usual case, no None: one conversion in C
        return numbers(np.array(values, dtype=np.uint64), pa.uint64())
    except TypeError:
        pass
    missing = np.fromiter((v is None for v in values), dtype=bool, count=len(values))
    data = np.fromiter((0 if v is None else v for v in values), dtype=np.uint64, count=len(values))
    return numbers(data, pa.uint64(), missing)


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
    return take(_string_lists([values[i] for i in first.tolist()]), inv.reshape(-1))


def _string_lists(values: Sequence[Sequence[str] | None]) -> pa.Array:
    flat = [s for v in values if v is not None for s in v]
    lens = np.fromiter((0 if v is None else len(v) for v in values), dtype=np.int64, count=len(values))
    off = np.zeros(len(values) + 1, dtype=np.int32)
    np.cumsum(lens, out=off[1:])
    valid = bitmap(np.fromiter((v is not None for v in values), dtype=bool, count=len(values)))
    return pa.Array.from_buffers(pa.list_(pa.string()), len(values), [valid, pa.py_buffer(off)],
                                 children=[strings(flat)])


def take(arr: pa.Array, idx: np.ndarray, valid: np.ndarray | None = None) -> pa.Array:
    """``arr.take(indices(idx, valid))`` (null where ``valid`` is False or the value taken is
    null) without ``pyarrow.compute``, whose import alone costs the export command more than
    the gathers: byte-wide fixed-width types (integers, floats, temporal, decimals), string /
    binary and lists of those are gathered with numpy from ``arr``'s buffers; other types, and
    text of 2 GiB or more, go through ``arr.take``. ``idx`` must be within ``arr`` where valid."""
    idx = np.asarray(idx, dtype=np.int64)
    n, typ = len(idx), arr.type
    if valid is not None:
        valid = np.asarray(valid, dtype=bool)
        if not valid.all():
            idx = np.where(valid, idx, 0)
    if not len(arr):
        if n and (valid is None or valid.any()):
            raise IndexError(f"index out of bounds: {n} indices into an empty array")
        return pa.nulls(n, type=typ)
    src_valid = _validity(arr)
    ok = src_valid[idx] if src_valid is not None else None
    if valid is not None:
        ok = valid if ok is None else ok & valid
    vbuf = None if ok is None else bitmap(ok)
    if _fixed_bytes(typ):
        width = typ.bit_width // 8
        values = np.frombuffer(arr.buffers()[1], dtype=f"V{width}", count=arr.offset + len(arr))[arr.offset:]
        return pa.Array.from_buffers(typ, n, [vbuf, pa.py_buffer(np.ascontiguousarray(values[idx]))])
    if pa.types.is_string(typ) or pa.types.is_binary(typ):
        bufs = arr.buffers()
        off = np.frombuffer(bufs[1], dtype=np.int32, count=arr.offset + len(arr) + 1)[arr.offset:].astype(np.int64)
        lens = off[1:] - off[:-1]
        w = int(lens[0]) if len(lens) else 0
        if ok is None and w and (lens == w).all() and n * w < 1 << 31:  # values of one width (op,
            # database, table): gathered a value at a time
            data = np.frombuffer(bufs[2], dtype=np.uint8)[off[0]:off[0] + len(lens) * w].reshape(-1, w)
            return pa.Array.from_buffers(typ, n, [vbuf, pa.py_buffer(np.arange(0, (n + 1) * w, w, dtype=np.int32)),
                                                  pa.py_buffer(np.ascontiguousarray(data[idx]))])
        if len(arr) * 4 <= n:  # few values taken many times (file): joined value by value
            joined = _joined(off, bufs[2], idx, ok)
            if joined is not None:
                return pa.Array.from_buffers(typ, n, [vbuf, pa.py_buffer(joined[0]), pa.py_buffer(joined[1])])
        new_off, pos = _ranges(off, idx, ok)
        if new_off is None:
            return arr.take(indices(idx, valid))
        data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.zeros(0, dtype=np.uint8)
        return pa.Array.from_buffers(typ, n, [vbuf, pa.py_buffer(new_off), pa.py_buffer(data[pos])])
    if pa.types.is_list(typ) and (pa.types.is_string(typ.value_type) or pa.types.is_binary(typ.value_type)):
        # offsets into the whole child (arr.values: the slice's offset is in the offsets)
        off = np.frombuffer(arr.buffers()[1], dtype=np.int32, count=arr.offset + len(arr) + 1)[arr.offset:]
        off = off.astype(np.int64)
        new_off, pos = _ranges(off, idx, ok)
        if new_off is None:
            return arr.take(indices(idx, valid))
        if len(arr) * 4 <= n and arr.values.null_count == 0:  # few lists taken many times: each list's
            # strings joined list by list, their offsets from the elements' lengths
            child = arr.values
            c_off = np.frombuffer(child.buffers()[1], dtype=np.int32,
                                  count=child.offset + len(child) + 1)[child.offset:].astype(np.int64)
            joined = _joined(c_off[off], child.buffers()[2], idx, ok)
            if joined is not None:
                c_new = np.zeros(len(pos) + 1, dtype=np.int64)
                np.cumsum(c_off[pos + 1] - c_off[pos], out=c_new[1:])
                kid = pa.Array.from_buffers(child.type, len(pos), [None, pa.py_buffer(c_new.astype(np.int32)),
                                                                   pa.py_buffer(joined[1])])
                return pa.Array.from_buffers(typ, n, [vbuf, pa.py_buffer(new_off)], children=[kid])
        return pa.Array.from_buffers(typ, n, [vbuf, pa.py_buffer(new_off)], children=[take(arr.values, pos)])
    return arr.take(indices(idx, valid))


def span_bytes(buf: np.ndarray, raw: bytes, starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """The bytes ``raw[s:s + l]`` of each span, joined in order (uint8; ``buf``: ``raw``'s
    bytes as a numpy array, possibly longer). Spans of one width (a CHAR column's values, a
    fixed layout) are rows of a sliding window over ``buf``, gathered a row at a time (a
    copy of ``l`` bytes each, no per-byte index: about 8x faster than joining slices);
    others are sliced and joined one by one in C."""
    n = len(starts)
    if not n:
        return np.zeros(0, dtype=np.uint8)
    w = int(lens[0])
    if w and bool((lens == w).all()) and int(starts.max()) + w <= len(buf):
        return np.lib.stride_tricks.sliding_window_view(buf, w)[starts].reshape(-1)
    return np.frombuffer(b"".join([raw[a:a + b] for a, b in zip(starts.tolist(), lens.tolist(), strict=True)]),
                         dtype=np.uint8)


def _fixed_bytes(typ: pa.DataType) -> bool:
    """A fixed-width type of whole bytes (no bit-packed booleans, no nested or dictionary types)."""
    t = pa.types
    if not (t.is_integer(typ) or t.is_floating(typ) or t.is_temporal(typ) or t.is_decimal(typ)
            or t.is_fixed_size_binary(typ)):
        return False
    return typ.bit_width % 8 == 0


def _validity(arr: pa.Array) -> np.ndarray | None:
    """Each value's validity (None: no nulls) from ``arr``'s bitmap, its slice offset applied."""
    if arr.null_count == 0:
        return None
    if pa.types.is_null(arr.type):
        return np.zeros(len(arr), dtype=bool)
    bits = np.unpackbits(np.frombuffer(arr.buffers()[0], dtype=np.uint8), bitorder="little")
    return bits[arr.offset:arr.offset + len(arr)].astype(bool)


def _joined(off: np.ndarray, data: pa.Buffer | None, idx: np.ndarray,
            ok: np.ndarray | None) -> tuple[np.ndarray, bytes] | None:
    """The int32 offsets and the bytes of the byte ranges ``off[i]:off[i + 1]`` of ``data``
    picked by ``idx`` (empty where ``ok`` is False), the ranges joined one by one in C (few
    ranges, many rows: no per-byte index). None when they hold less than :data:`_JOIN_BYTES`
    on average (a gather of short values per byte is cheaper) or 2 GiB or more."""
    lens = off[1:] - off[:-1]
    if ok is not None:
        lens = np.append(lens, 0)
        idx = np.where(ok, idx, len(off) - 1)
    new_off = np.zeros(len(idx) + 1, dtype=np.int64)
    np.cumsum(lens[idx], out=new_off[1:])
    if new_off[-1] >= 1 << 31 or new_off[-1] < _JOIN_BYTES * len(idx):
        return None
    raw = data.to_pybytes() if data is not None else b""
    parts = [raw[a:b] for a, b in zip(off[:-1].tolist(), off[1:].tolist(), strict=True)]
    parts.append(b"")
    return new_off.astype(np.int32), b"".join(map(parts.__getitem__, idx.tolist()))


_JOIN_BYTES = 16
"""Average bytes per value from which :func:`take` joins few distinct values row by row
rather than gathering their bytes one by one (measured: 6-byte values gather 2x faster,
30-byte ones join 30x faster)."""


def _ranges(off: np.ndarray, idx: np.ndarray, ok: np.ndarray | None) -> tuple[np.ndarray | None, np.ndarray]:
    """The int32 offsets of the values ``idx`` picks out of those ``off`` bounds (empty where
    ``ok`` is False), and the positions of their elements in order; (None, …) past 2 GiB."""
    starts = off[idx]
    lens = off[idx + 1] - starts
    if ok is not None:
        lens = np.where(ok, lens, 0)
    new_off = np.zeros(len(idx) + 1, dtype=np.int64)
    np.cumsum(lens, out=new_off[1:])
    if new_off[-1] >= 1 << 31:
        return None, starts
    pos = np.repeat(starts - new_off[:-1], lens) + np.arange(new_off[-1], dtype=np.int64)
    return new_off.astype(np.int32), pos

