"""Typed Arrow arrays for the truth without a canonical text per value (part of the typed
truth, generators/changes_arrow.py): DECIMAL / DATETIME / TIMESTAMP / DATE / TIME columns
straight from their integer units (:func:`typed_units`), and canonical DECIMAL / DATE /
DATETIME / TIMESTAMP texts by one Arrow cast (:func:`cast_texts`). Each gives what the
value-by-value path gives (the family's ``truth_renderer``, then
``changes_arrow.typed_converter``), or None where it would not (the caller then goes value
by value); property-tested in tests/generators/test_typed_units.py and
tests/generators/test_cast_texts.py.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from binlogwriter.batch.scatter import run_indices
from binlogwriter.schema import Column
from binlogwriter.values.row import ColumnArray
from generators.arrow_arrays import np_array, string_array, validity_buffer

__all__ = ["typed_units", "typed_runs", "merge_edged", "int_array", "cast_texts"]

_US_MIN = -62_135_596_800_000_000  # 0001-01-01 00:00:00 in microseconds since 1970-01-01
_US_MAX = 253_402_300_799_999_999  # 9999-12-31 23:59:59.999999
_DAY_MIN, _DAY_MAX = -719_162, 2_932_896  # 0001-01-01 and 9999-12-31 in days since 1970-01-01


def typed_units(col: Column, typ: pa.DataType, values: ColumnArray) -> pa.Array | None:
    """The typed array of a "dec" / "dt" / "ts" / "date" / "time" column straight from its
    integer units, without the canonical text in between: what :func:`_typed_values` makes of
    the same values (the text keeps the first fsp digits of the microseconds — a truncation —
    and DECIMAL's exactly ``scale`` digits; parsing it back gives these units). None (the
    caller renders value by value) where that path would not give a plain typed value: a
    DECIMAL with more fraction digits than its scale (rounded) or beyond its precision, a
    temporal outside years 1-9999."""
    kind = values.kind
    if kind not in ("dec", "dt", "ts", "date", "time"):
        return None
    nulls = values.nulls
    data = np.asarray(values.data, dtype=np.int64)
    live = data if nulls is None else data[~np.asarray(nulls, dtype=np.bool_)]
    if kind == "dec" and pa.types.is_decimal(typ):
        shift = typ.scale - int(values.meta)
        if shift < 0 or shift > 18 or not len(live):
            return None
        big = int(np.abs(live).max()) * 10 ** shift
        if big >= 10 ** typ.precision or big >= 1 << 63:
            return None
        units = np.where(nulls, 0, data) if nulls is not None else data
        units = units * np.int64(10 ** shift)
        words = np.empty((len(units), typ.bit_width // 64), dtype=np.int64)
        words[:, 0] = units
        words[:, 1:] = (units >> 63)[:, None]  # two's complement: the sign in every higher word
        return _from_units(typ, words, nulls)
    if kind in ("dt", "ts") and pa.types.is_timestamp(typ) and typ.unit == "us" \
            and typ.tz == ("UTC" if kind == "ts" else None):
        if len(live) and (int(live.min()) < _US_MIN or int(live.max()) > _US_MAX):
            return None
        q = np.int64(10 ** (6 - (col.fsp or 0)))
        return _from_units(typ, data - data % q, nulls)
    if kind == "date" and pa.types.is_date32(typ):
        if len(live) and (int(live.min()) < _DAY_MIN or int(live.max()) > _DAY_MAX):
            return None
        return _from_units(typ, data.astype(np.int32), nulls)
    if kind == "time" and pa.types.is_duration(typ) and typ.unit == "us":
        q = np.int64(10 ** (6 - (col.fsp or 0)))
        mag = np.abs(data)
        return _from_units(typ, np.sign(data) * (mag - mag % q), nulls)
    return None


def typed_runs(typ: pa.DataType, values: ColumnArray, strip_spaces: bool = False) -> pa.Array | None:
    """The string array of a "runs" column (UTF-8 byte runs, see ColumnArray) straight from
    its bytes: what decoding each run and building the array of those ``str`` gives (the
    UTF-8 of the texts is the runs' bytes, NULL rows hold no bytes). For a column whose
    canonical value is its text, or (``strip_spaces``: CHAR) the text without trailing
    spaces (Arrow's ``utf8_rtrim`` of U+0020, as ``str.rstrip(" ")``). None (the caller goes
    value by value) when the type is not a string, the bytes are not valid UTF-8 or the
    texts exceed 32-bit offsets."""
    if values.kind != "runs" or not pa.types.is_string(typ):
        return None
    runs = np.asarray(values.data, dtype=np.int64).reshape(-1, 2)
    nulls = values.nulls
    lens = runs[:, 1] if nulls is None else np.where(np.asarray(nulls, dtype=np.bool_), 0, runs[:, 1])
    offsets = np.zeros(len(lens) + 1, dtype=np.int64)
    np.cumsum(lens, out=offsets[1:])
    if int(offsets[-1]) >= 1 << 31:
        return None
    buf = np.asarray(values.meta, dtype=np.uint8)
    data = buf[run_indices(runs[:, 0], lens)]
    validity, count = validity_buffer(nulls)
    arr = pa.Array.from_buffers(pa.string(), len(lens), [validity, pa.py_buffer(offsets.astype(np.int32)),
                                                         pa.py_buffer(data)], null_count=count)
    if len(data) and int(data.max()) >= 0x80:  # not all ASCII: Arrow checks the UTF-8
        try:
            arr.validate(full=True)
        except pa.ArrowInvalid:
            return None
    return pc.utf8_rtrim(arr, characters=" ") if strip_spaces else arr


def merge_edged(typ: pa.DataType, values: ColumnArray, base: tuple[pa.Array, dict[int, str]],
                edges: tuple[pa.Array, dict[int, str]]) -> tuple[pa.Array, dict[int, str]] | None:
    """An "edged" column (a base array of every row, a few edge values among them; see
    ColumnArray) from its base typed (array, {row: canonical text}) and its edges typed
    ({edge: text}): each row taken from one of the two, the canonical texts of the rows that
    hold theirs (none on NULL rows). What typing the rows' values one by one gives; None (the
    caller goes value by value) when a typed array is not of type ``typ``."""
    (b_arr, b_texts), (e_arr, e_texts) = base, edges
    if b_arr.type != typ or e_arr.type != typ:
        return None
    pick = np.asarray(values.data, dtype=np.int64)
    n = len(pick)
    idx = np.where(pick >= 0, pick + n, np.arange(n, dtype=np.int64))
    nulls = None if values.nulls is None else np.asarray(values.nulls, dtype=np.bool_)
    arr = pa.concat_arrays([b_arr, e_arr]).take(np_array(idx, nulls))
    texts: dict[int, str] = {}
    live = pick if nulls is None else np.where(nulls, -2, pick)  # -2: NULL, no text
    for r, t in b_texts.items():
        if live[r] == -1:
            texts[r] = t
    for e, t in e_texts.items():
        for r in np.flatnonzero(live == e).tolist():
            texts[r] = t
    return arr, dict(sorted(texts.items()))


def int_array(data: np.ndarray, nulls: np.ndarray | None, typ: pa.DataType) -> pa.Array:
    """int64 values as an integer array of type ``typ``: narrowed by numpy when every value
    that is not NULL fits (what Arrow's checked cast gives, without a kernel call per column
    and batch), else by Arrow's cast (which raises)."""
    dtype = np.dtype(typ.to_pandas_dtype())
    info = np.iinfo(dtype)
    live = data if nulls is None else data[~np.asarray(nulls, dtype=np.bool_)]
    if not len(live) or (int(live.min()) >= info.min and int(live.max()) <= info.max):
        return np_array(data.astype(dtype), nulls)
    return np_array(data, nulls).cast(typ)


def _from_units(typ: pa.DataType, data: np.ndarray, nulls: np.ndarray | None) -> pa.Array:
    """An Arrow array of type ``typ`` over fixed-width ``data`` (zeros where null, as
    :func:`~generators.arrow_arrays.py_array` writes them)."""
    if nulls is not None:
        data = np.where(np.asarray(nulls, dtype=np.bool_).reshape((-1,) + (1,) * (data.ndim - 1)), 0, data)
    validity, count = validity_buffer(nulls)
    return pa.Array.from_buffers(typ, len(data), [validity, pa.py_buffer(np.ascontiguousarray(data))],
                                 null_count=count)


def cast_texts(typ: pa.DataType, vals: list | tuple) -> pa.Array | None:
    """DECIMAL, DATE and DATETIME / TIMESTAMP canonical texts as a typed array by Arrow's
    own parsing (one cast of the column): what :func:`typed_converter` gives value by value
    (exact decimal digits; calendar dates and times in years 1-9999), when every text is one
    (None otherwise — a zero date, a zero part, a year 0000, a value the type cannot hold
    — and the caller converts value by value)."""
    if not (pa.types.is_decimal(typ) or pa.types.is_date32(typ) or pa.types.is_timestamp(typ)):
        return None
    if any(type(v) is not str for v in vals if v is not None):
        return None
    if pa.types.is_date32(typ) and not all(len(v) == 10 and v[:4] != "0000" for v in vals if v is not None):
        return None  # year 0: Arrow's calendar has it, Python's (the value-by-value path) has not
    if pa.types.is_timestamp(typ) and not all(
            v[:4] != "0000" and v[10:11] == " " and (len(v) == 19 or (20 < len(v) <= 26 and v[19] == "."))
            for v in vals if v is not None):
        return None  # only the canonical shape: Arrow's parser also takes "T", zones, a date alone
    try:
        if pa.types.is_timestamp(typ) and typ.tz is not None:  # the texts are UTC: same units, zone attached
            return string_array(vals).cast(pa.timestamp(typ.unit)).cast(typ)
        return string_array(vals).cast(typ)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
