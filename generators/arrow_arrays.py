"""Arrow arrays built straight from numpy buffers for the typed change-stream truth
(generators/changes_arrow.py): validity bitmaps from null masks, string / list<string>
arrays from offsets + bytes, fixed-width ASCII rows, and :func:`py_array`, ``pa.array`` for
plain Python values without pyarrow importing pandas. Same arrays as ``pa.array`` gives
(property-tested: tests/generators/test_py_array.py), so the same Parquet bytes.
"""

from __future__ import annotations

import datetime as dt
import operator
from decimal import Decimal
from itertools import compress, repeat

import numpy as np
import pyarrow as pa


# -- arrays from numpy columns (the batch path) ---------------------------------------------
def np_array(data: np.ndarray, nulls: np.ndarray | None = None) -> pa.Array:
    """A numpy array (int64, int32, bool, float) as an Arrow array over the same memory,
    ``nulls`` (True = null) as its validity bitmap."""
    data = np.ascontiguousarray(data)
    typ = pa.from_numpy_dtype(data.dtype)
    validity, count = validity_buffer(nulls)
    if data.dtype == np.bool_:
        return pa.Array.from_buffers(typ, len(data), [validity, pa.py_buffer(np.packbits(data, bitorder="little"))],
                                     null_count=count)
    return pa.Array.from_buffers(typ, len(data), [validity, pa.py_buffer(data)], null_count=count)


def np_bool(mask: np.ndarray) -> pa.Array:
    return np_array(np.asarray(mask, dtype=np.bool_))


def validity_buffer(nulls: np.ndarray | None) -> tuple[pa.Buffer | None, int]:
    if nulls is None:
        return None, 0
    count = int(np.count_nonzero(nulls))
    if not count:
        return None, 0
    return pa.py_buffer(np.packbits(~np.asarray(nulls, dtype=np.bool_), bitorder="little")), count


def string_array(vals: list | tuple) -> pa.Array:
    """Python ``str`` values (None = null) -> an Arrow string array built from its buffers.

    Why not ``pa.array``: pyarrow's conversion of Python or numpy values asks whether they
    are pandas objects, and the first time that imports pandas (about half a CPU-second per
    process). Same values, same type, so the same Parquet bytes.

    The values are joined and encoded once: the UTF-8 of a join is the join of the UTF-8s, so
    the offsets are the running sum of the values' byte lengths — their lengths in characters
    for ASCII values (``str.isascii`` is a flag of the string object), one ``encode`` each
    for the others."""
    n = len(vals)
    try:
        lens = np.fromiter(map(len, vals), dtype=np.int64, count=n)
        nulls, at, live = None, None, vals
    except TypeError:  # a None (len(None) raises): the values that are not None
        nulls = np.fromiter(map(operator.is_, vals, repeat(None)), dtype=np.bool_, count=n)
        at = np.flatnonzero(~nulls)
        live = list(compress(vals, map(operator.is_not, vals, repeat(None))))
        lens = np.zeros(n, dtype=np.int64)
        lens[at] = np.fromiter(map(len, live), dtype=np.int64, count=len(live))
    text = "".join(live)
    data = text.encode("utf-8")
    if len(data) != len(text):  # not ASCII: the byte lengths of the values that are not
        wide = np.flatnonzero(~np.fromiter(map(str.isascii, live), dtype=np.bool_, count=len(live)))
        got = np.fromiter((len(live[i].encode("utf-8")) for i in wide.tolist()), dtype=np.int64, count=len(wide))
        lens[wide if at is None else at[wide]] = got
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lens, out=offsets[1:])
    if len(data) >= 1 << 31:  # over a string array's 32-bit offsets: pyarrow decides (large chunks)
        return pa.array(vals, pa.string())
    validity, count = validity_buffer(nulls)
    return pa.Array.from_buffers(pa.string(), n, [validity, pa.py_buffer(offsets.astype(np.int32)),
                                                  pa.py_buffer(data)], null_count=count)


def var_binary(vals: list | tuple, enc: list[bytes], typ: pa.DataType) -> pa.Array:
    """A string or binary array of ``vals`` (None = null), ``enc`` their bytes (b"" for null)."""
    n = len(vals)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, enc), dtype=np.int64, count=n), out=offsets[1:])
    if offsets[-1] >= 1 << 31:  # over a string array's 32-bit offsets: pyarrow decides (large chunks)
        return pa.array(vals, typ)
    nulls = np.fromiter((v is None for v in vals), dtype=np.bool_, count=n)
    validity, count = validity_buffer(nulls)
    return pa.Array.from_buffers(typ, n, [validity, pa.py_buffer(offsets.astype(np.int32)),
                                          pa.py_buffer(b"".join(enc))], null_count=count)


def string_lists(lists: list) -> pa.Array:
    """Lists of ``str`` (None = null) -> an Arrow ``list<string>`` array (no pandas, see
    :func:`string_array`)."""
    n = len(lists)
    nulls = np.fromiter((v is None for v in lists), dtype=np.bool_, count=n)
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.fromiter((0 if v is None else len(v) for v in lists), dtype=np.int32, count=n), out=offsets[1:])
    flat = string_array([x for v in lists if v is not None for x in v])
    mask = np_bool(nulls) if nulls.any() else None
    return pa.ListArray.from_arrays(np_array(offsets), flat, type=pa.list_(pa.string()), mask=mask)


def _picked_bytes(pats: list[bytes], idx: np.ndarray) -> np.ndarray:
    """``b"".join(pats[i] for i in idx)`` as a uint8 array: picks of an empty pattern dropped,
    the others as rows of a zero-padded matrix, one row ``take`` per pick (a copy of whole
    rows, no per-byte index), then — when the patterns left differ in length — one boolean
    mask of the rows' real bytes."""
    lens = np.fromiter(map(len, pats), dtype=np.int64, count=len(pats))
    width = int(lens.max()) if len(pats) else 0
    if not width or not len(idx):
        return np.zeros(0, dtype=np.uint8)
    if not lens.all():
        idx = idx[lens[idx] > 0]
    if len(pats) == 1:  # bytes repetition: a doubling memcpy
        return np.frombuffer(pats[0] * len(idx), dtype=np.uint8)
    mat = np.zeros((len(pats), width), dtype=np.uint8)
    for k, e in enumerate(pats):
        mat[k, :len(e)] = np.frombuffer(e, dtype=np.uint8)
    rows = np.take(mat, idx, axis=0)
    if ((lens == width) | (lens == 0)).all():
        return rows.reshape(-1)
    return rows[np.take(np.arange(width) < lens[:, None], idx, axis=0)]


def _picked_lengths(ks: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``ks[idx]`` summed up: the int64 offsets (``n + 1``, from 0) of the picked runs."""
    offsets = np.zeros(len(idx) + 1, dtype=np.int64)
    if len(ks) == 1:
        offsets[1:] = np.arange(1, len(idx) + 1, dtype=np.int64) * int(ks[0])
    else:
        np.cumsum(ks[idx], out=offsets[1:])
    return offsets


def pick_strings(vals: list | tuple, idx: np.ndarray) -> pa.Array:
    """``string_array(vals).take(idx)`` (a few distinct strings, None = null, repeated over many
    rows: an op name, a database) built by numpy: offsets from the picked lengths, bytes by
    :func:`_picked_bytes`."""
    idx = np.asarray(idx, dtype=np.int64)
    n = len(idx)
    enc = [b"" if v is None else v.encode("utf-8") for v in vals]
    offsets = _picked_lengths(np.fromiter(map(len, enc), dtype=np.int64, count=len(enc)), idx)
    if offsets[-1] >= 1 << 31:  # over a string array's 32-bit offsets: Arrow's take decides
        return string_array(vals).take(np_array(idx))
    nulls = np.array([v is None for v in vals], dtype=np.bool_)
    validity, count = validity_buffer(nulls[idx] if nulls.any() else None)
    return pa.Array.from_buffers(pa.string(), n, [validity, pa.py_buffer(offsets.astype(np.int32)),
                                                  pa.py_buffer(_picked_bytes(enc, idx))], null_count=count)


def pick_lists(lists: list, idx: np.ndarray) -> pa.Array:
    """``_string_lists(lists).take(idx)`` (a few distinct column lists, None = null, over many
    rows: the columns of a change and of its images) built by numpy: the list offsets from
    the picked lengths; the strings' bytes are each list's items joined, picked by
    :func:`_picked_bytes`, and each string's offset is where its list's bytes start plus
    where it starts among them (those picked the same way): no running sum over strings."""
    idx = np.asarray(idx, dtype=np.int64)
    lists_ = [() if v is None else v for v in lists]
    ks = np.fromiter(map(len, lists_), dtype=np.int64, count=len(lists_))
    offsets = _picked_lengths(ks, idx)
    enc = [[x.encode("utf-8") for x in v] for v in lists_]
    pats = [b"".join(e) for e in enc]
    data = _picked_bytes(pats, idx)
    if len(data) >= 1 << 31 or offsets[-1] >= 1 << 31:  # over 32-bit offsets: Arrow's take decides
        return string_lists(lists).take(np_array(idx))
    # each string's offset: its list's start in the bytes + its start inside its list's pattern
    inner = _picked_bytes([np.cumsum([0] + [len(x) for x in e[:-1]], dtype=np.int32).tobytes() if e else b""
                           for e in enc], idx).view(np.int32)
    plens = np.fromiter(map(len, pats), dtype=np.int64, count=len(pats))
    starts = _picked_lengths(plens, idx)[:-1].astype(np.int32)
    str_offsets = np.empty(len(inner) + 1, dtype=np.int32)
    if len(ks) == 1 and ks[0]:
        str_offsets[:-1].reshape(-1, int(ks[0]))[:] = starts[:, None] + inner.reshape(-1, int(ks[0]))
    else:
        np.add(np.repeat(starts, ks[idx]), inner, out=str_offsets[:-1])
    str_offsets[-1] = len(data)
    flat = pa.Array.from_buffers(pa.string(), len(inner), [None, pa.py_buffer(str_offsets), pa.py_buffer(data)])
    nulls = np.array([v is None for v in lists], dtype=np.bool_)
    mask = np_bool(nulls[idx]) if nulls.any() and nulls[idx].any() else None
    return pa.ListArray.from_arrays(np_array(offsets.astype(np.int32)), flat, type=pa.list_(pa.string()),
                                    mask=mask)


def py_array(vals: list | tuple, typ: pa.DataType) -> pa.Array:
    """``pa.array(vals, type=typ)`` for Python values, built from numpy buffers when every
    value is None or of the type's plain Python class (str for text, bytes for binary, int
    for integers, float for float64, Decimal for DECIMAL, date / datetime / timedelta for
    date32 / timestamp[us] / duration[us], lists of (str, str) pairs for the text maps): the
    same array without pyarrow importing pandas (:func:`string_array`). Anything else (and a value
    the type cannot hold: pyarrow raises) goes through ``pa.array``."""
    kinds = set(map(type, vals))
    kinds.discard(type(None))
    if not kinds:
        return pa.nulls(len(vals), typ)
    if pa.types.is_string(typ) and kinds == {str}:
        return string_array(vals)
    if pa.types.is_binary(typ) and kinds == {bytes}:
        return var_binary(vals, [b"" if v is None else v for v in vals], typ)
    if pa.types.is_list(typ) and typ.value_type == pa.string() and kinds <= {list, tuple} \
            and all(type(x) is str for v in vals if v is not None for x in v):
        return string_lists(vals)
    if (pa.types.is_integer(typ) and kinds == {int}) or (typ == pa.float64() and kinds == {float}):
        nulls = np.fromiter((v is None for v in vals), dtype=np.bool_, count=len(vals))
        zero = 0 if kinds == {int} else 0.0
        try:
            data = np.array([zero if v is None else v for v in vals],
                            dtype=np.int64 if kinds == {int} else np.float64)
        except OverflowError:  # beyond int64 (BIGINT UNSIGNED): as uint64, or pyarrow decides
            if typ != pa.uint64():
                return pa.array(vals, type=typ)
            try:
                data = np.array([0 if v is None else v for v in vals], dtype=np.uint64)
            except OverflowError:
                return pa.array(vals, type=typ)
        arr = np_array(data, nulls)
        return arr if arr.type == typ else arr.cast(typ)
    got = _py_typed(vals, typ, kinds)
    return pa.array(vals, type=typ) if got is None else got


_EPOCH = dt.datetime(1970, 1, 1)
_EPOCH_UTC = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_US = dt.timedelta(microseconds=1)
_EPOCH_DAY = dt.date(1970, 1, 1).toordinal()


def _py_typed(vals: list | tuple, typ: pa.DataType, kinds: set) -> pa.Array | None:
    """:func:`py_array` of DECIMAL, temporal and text-map values (None: not one of these)."""
    nulls = np.fromiter((v is None for v in vals), dtype=np.bool_, count=len(vals))
    if pa.types.is_decimal(typ) and kinds == {Decimal}:
        unscaled = [0 if v is None else _unscaled(v, typ.scale, typ.precision) for v in vals]
        if None in unscaled:
            return None
        width = typ.bit_width // 8
        data = b"".join(u.to_bytes(width, "little", signed=True) for u in unscaled)
        validity, count = validity_buffer(nulls)
        return pa.Array.from_buffers(typ, len(vals), [validity, pa.py_buffer(data)], null_count=count)
    if pa.types.is_timestamp(typ) and typ.unit == "us" and kinds == {dt.datetime}:
        epoch = _EPOCH_UTC if typ.tz == "UTC" else _EPOCH if typ.tz is None else None
        if epoch is None or any(v.tzinfo is not epoch.tzinfo for v in vals if v is not None):
            return None
        data = np.array([0 if v is None else (v - epoch) // _US for v in vals], dtype=np.int64)
    elif pa.types.is_date32(typ) and kinds == {dt.date}:
        data = np.array([0 if v is None else v.toordinal() - _EPOCH_DAY for v in vals], dtype=np.int32)
    elif pa.types.is_duration(typ) and typ.unit == "us" and kinds == {dt.timedelta}:
        data = np.array([0 if v is None else v // _US for v in vals], dtype=np.int64)
    elif typ == pa.float32() and kinds == {float}:
        wide = np.array([0.0 if v is None else v for v in vals], dtype=np.float64)
        with np.errstate(over="ignore"):
            data = wide.astype(np.float32)
        if not np.array_equal(np.isfinite(data), np.isfinite(wide)):  # beyond float32: pyarrow decides
            return None
    elif typ == pa.map_(pa.string(), pa.string()) and kinds <= {list, tuple}:
        return _text_map(vals, typ, nulls)
    else:
        return None
    validity, count = validity_buffer(nulls)
    return pa.Array.from_buffers(typ, len(vals), [validity, pa.py_buffer(data)], null_count=count)


def _unscaled(v: Decimal, scale: int, precision: int) -> int | None:
    """``v`` times 10^scale as an int, None when that is not exact or needs more than
    ``precision`` digits (pyarrow raises; :func:`py_array` lets it)."""
    if not v.is_finite():
        return None
    sign, digits, exp = v.as_tuple()
    u = int("".join(map(str, digits)) or "0")
    shift = exp + scale
    if shift >= 0:
        u *= 10 ** shift
    else:
        u, rest = divmod(u, 10 ** -shift)
        if rest:
            return None
    if u >= 10 ** precision:
        return None
    return -u if sign else u


def _text_map(vals: list | tuple, typ: pa.MapType, nulls: np.ndarray) -> pa.Array | None:
    """``map<string, string>`` of lists of (key, value) pairs of ``str`` (value may be None)."""
    pairs = [p for v in vals if v is not None for p in v]
    if any(type(p) is not tuple or len(p) != 2 or type(p[0]) is not str
           or (p[1] is not None and type(p[1]) is not str) for p in pairs):
        return None
    n = len(vals)
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.fromiter((0 if v is None else len(v) for v in vals), dtype=np.int32, count=n), out=offsets[1:])
    entries = pa.Array.from_buffers(pa.struct([typ.key_field, typ.item_field]), len(pairs),
                                    [None], null_count=0,
                                    children=[string_array([k for k, _ in pairs]), string_array([x for _, x in pairs])])
    validity, count = validity_buffer(nulls)
    return pa.Array.from_buffers(typ, n, [validity, pa.py_buffer(offsets)], null_count=count, children=[entries])


OP_NAMES = ("insert", "update", "delete")


def ascii_strings(data: np.ndarray, nulls: np.ndarray | None, strip_spaces: bool) -> pa.Array:
    """Fixed-width ASCII rows (an (n, w) uint8 array) -> an Arrow string array of what
    :meth:`ColumnArray.tolist` decodes (trailing NULs dropped, as numpy's ``S`` dtype does),
    then, for CHAR, without trailing spaces (the canonical form)."""
    n, w = data.shape
    validity, count = validity_buffer(nulls)
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


def take_rows(rows: pa.Array, idx: np.ndarray, has: np.ndarray) -> pa.Array:
    """``rows[idx[i]]`` where ``has[i]``, null elsewhere (``idx`` there is not read): a change
    image's struct from the struct of a table's typed columns, all children in one ``take``
    (the same array as taking each child and masking the struct: tests/generators/test_py_array.py)."""
    return rows.take(np_array(idx, ~np.asarray(has, dtype=np.bool_)))


def numbered(heads: list[str], head: np.ndarray, num: np.ndarray) -> pa.Array:
    """String array of ``heads[head[i]] + str(num[i])`` (a GTID: ``uuid:GNO``, MariaDB
    ``domain-server-seq``), null where ``head[i] < 0``; built from numpy buffers, the same
    array as :func:`string_array` of those Python strings. ``num`` is non-negative int64."""
    n = len(head)
    enc = [np.frombuffer(h.encode("utf-8"), dtype=np.uint8) for h in heads]
    null = head < 0
    hlen = np.array([len(e) for e in enc] or [0], dtype=np.int64)[np.where(null, 0, head)]
    num = np.where(null, 0, num).astype(np.int64)
    digits = np.ones(n, dtype=np.int64)
    for p in range(1, 19):  # int64 has at most 19 digits
        more = num >= 10 ** p
        if not more.any():
            break
        digits += more
    lengths = np.where(null, 0, hlen + digits)
    width = max([int(lengths.max()) if n else 0, *map(len, enc)])
    rows = np.zeros((n, width), dtype=np.uint8)  # one value per row, left-aligned, then packed
    for k, e in enumerate(enc):
        if len(enc) == 1:
            rows[:, :len(e)] = e
        else:
            rows[head == k, :len(e)] = e
    live = digits[~null]
    for d in np.unique(live).tolist() if len(live) else ():  # rows of d digits: a (rows, d) block
        sel = np.flatnonzero((digits == d) & ~null)
        block = (num[sel, None] // 10 ** np.arange(d - 1, -1, -1, dtype=np.int64) % 10 + 48).astype(np.uint8)
        if len(enc) == 1:  # one head: the digits start in one column
            rows[sel, len(enc[0]):len(enc[0]) + d] = block
        else:
            rows[sel[:, None], hlen[sel][:, None] + np.arange(d)] = block
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    validity, count = validity_buffer(null)
    return pa.Array.from_buffers(pa.string(), n, [validity, pa.py_buffer(offsets),
                                                  pa.py_buffer(rows[np.arange(width) < lengths[:, None]])],
                                 null_count=count)
