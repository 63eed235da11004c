"""Typed change-truth arrays of a column's Python values without a canonical text per value
(part of the typed truth, generators/changes_arrow.py): the value-by-value path renders each
value (the family's ``truth_renderer``) and parses the text back (``typed_converter``);
where the typed value follows from the Python value alone it is built straight from it:

* text whose canonical form is the value (VARCHAR, TEXT types, ENUM: ``str``) as it is, CHAR
  without trailing spaces by Arrow's ``utf8_rtrim`` of U+0020 (``str.rstrip(" ")``);
* binary data (BINARY padded with 0x00 to its length, VARBINARY, BLOB types) and GEOMETRY
  (SRID + WKB) as their bytes: the ``0x`` hex text is those bytes;
* DATETIME / TIMESTAMP ``datetime`` values as microseconds cut to the column's fsp (the text
  keeps the first fsp digits, a truncation; a TIMESTAMP in UTC), TIME ``timedelta`` values
  likewise on the magnitude; any other value of the column (the zero date
  ``MysqlDateTime``, …) goes value by value, only those rows;
* DOUBLE arrays (``float`` kind) as they are, FLOAT arrays rounded to float32 once (the
  value path rounds, widens, and rounds again: the same float32).

Each gives what the value-by-value path gives or None (the caller then goes value by value);
property-tested against it in tests/generators/test_changes_lists.py.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from binlogwriter.schema import Column
from binlogwriter.values.row import ColumnArray
from binlogwriter.values.types import Geometry
from generators.arrow_arrays import np_array, string_array, var_binary

__all__ = ["typed_list", "typed_floats", "IDENTITY_TEXT"]

IDENTITY_TEXT = frozenset(("VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT", "ENUM"))
"""Text types whose canonical value is the text itself (no trailing-space rule, unlike CHAR)."""
_BYTES = frozenset(("VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB"))
_GEOMETRY = frozenset(("GEOMETRY", "POINT", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING",
                       "MULTIPOLYGON", "GEOMETRYCOLLECTION"))
_EPOCH = dt.datetime(1970, 1, 1)
_EPOCH_UTC = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_US = dt.timedelta(microseconds=1)
_F32_MAX = float(np.finfo(np.float32).max)

Fallback = Callable[[list], tuple[pa.Array, dict[int, str]]]


def typed_floats(col: Column, typ: pa.DataType, values: ColumnArray) -> pa.Array | None:
    """A "float" ColumnArray of a DOUBLE (float64) or FLOAT (float32) column as its typed
    array; None for anything else, or a FLOAT value beyond float32's range (the value path
    raises or lets pyarrow decide)."""
    if values.kind != "float":
        return None
    data = np.asarray(values.data, dtype=np.float64)
    nulls = values.nulls
    if nulls is not None:
        nulls = np.asarray(nulls, dtype=np.bool_)
        data = np.where(nulls, 0.0, data)
    if col.type == "DOUBLE" and typ == pa.float64():
        return np_array(data, nulls)
    if col.type == "FLOAT" and typ == pa.float32():
        finite = np.isfinite(data)
        if np.any(np.abs(data[finite]) > _F32_MAX):
            return None
        return np_array(data.astype(np.float32), nulls)
    return None


def typed_list(col: Column, typ: pa.DataType, vals: list, by_value: Fallback) -> tuple[pa.Array, dict[int, str]] | None:
    """Python values (None = NULL) of one column -> (typed array, {row: canonical text the type
    cannot hold}) as :func:`~generators.changes_arrow.typed_values` gives them, without the
    text per value; ``by_value`` is that path, for the rows of a temporal column whose values
    are not plain ``datetime`` / ``timedelta``. None where this has no rule for the column or
    its values."""
    t = col.type
    kinds = set(map(type, vals))
    kinds.discard(type(None))
    if pa.types.is_string(typ) and kinds <= {str}:
        if t in IDENTITY_TEXT:
            return string_array(vals), {}
        if t == "CHAR":
            return pc.utf8_rtrim(string_array(vals), characters=" "), {}
        return None
    if pa.types.is_binary(typ):
        if (t in _BYTES or t == "BINARY") and kinds <= {bytes}:
            if t == "BINARY":
                n = col.char_length() or 1
                return var_binary(vals, [b"" if v is None else v.ljust(n, b"\0") for v in vals], typ), {}
            return var_binary(vals, [b"" if v is None else v for v in vals], typ), {}
        if t in _GEOMETRY and kinds <= {Geometry, bytes}:
            return var_binary(vals, [b"" if v is None else v.to_bytes() if type(v) is Geometry else v
                                     for v in vals], typ), {}
        return None
    if t in ("DATETIME", "TIMESTAMP") and pa.types.is_timestamp(typ) and typ.unit == "us":
        return _temporal(vals, typ, col.fsp or 0, dt.datetime, _datetime_us(t), by_value)
    if t == "TIME" and pa.types.is_duration(typ) and typ.unit == "us":
        return _temporal(vals, typ, col.fsp or 0, dt.timedelta, _time_us, by_value)
    return None


def _datetime_us(t: str) -> Callable[[list], np.ndarray]:
    """Microseconds since 1970 of ``datetime`` values as their text prints them: a DATETIME's
    fields as they are (naive), a TIMESTAMP's in UTC (an aware value converted, a naive one as
    its fields); truncated to the fsp by the caller."""
    def us(vals: list) -> np.ndarray:
        if t == "DATETIME":
            return np.fromiter(((v - _EPOCH) // _US for v in vals), dtype=np.int64, count=len(vals))
        return np.fromiter(((v - (_EPOCH if v.tzinfo is None else _EPOCH_UTC)) // _US for v in vals),
                           dtype=np.int64, count=len(vals))
    return us


def _time_us(vals: list) -> np.ndarray:
    return np.fromiter((v // _US for v in vals), dtype=np.int64, count=len(vals))


def _temporal(vals: list, typ: pa.DataType, fsp: int, plain: type, to_us: Callable[[list], np.ndarray],
              by_value: Fallback) -> tuple[pa.Array, dict[int, str]] | None:
    n = len(vals)
    is_plain = np.fromiter((type(v) is plain for v in vals), dtype=np.bool_, count=n)
    if plain is dt.datetime and typ.tz is None \
            and any(v.tzinfo is not None for v, p in zip(vals, is_plain.tolist(), strict=True) if p):
        return None  # an aware value in a DATETIME: value by value
    rows = np.flatnonzero(is_plain)
    units = np.zeros(n, dtype=np.int64)
    us = to_us([vals[r] for r in rows.tolist()])
    q = np.int64(10 ** (6 - fsp))
    if plain is dt.timedelta:  # the text keeps the magnitude's first fsp digits, then the sign
        mag = np.abs(us)
        units[rows] = np.sign(us) * (mag - mag % q)
    else:  # years 1-9999, fields >= 0: the fraction's first fsp digits are a floor
        units[rows] = us - us % q
    nulls = ~is_plain
    texts: dict[int, str] = {}
    other = np.flatnonzero(nulls & np.fromiter((v is not None for v in vals), dtype=np.bool_, count=n))
    if len(other):  # zero dates and other representations: the value path, those rows only
        arr, sub = by_value([vals[r] for r in other.tolist()])
        typed = arr.to_pylist()
        held = [k for k, v in enumerate(typed) if v is not None]
        if held:
            at = other[held]
            units[at] = to_us([typed[k] for k in held])
            nulls[at] = False
        texts = {int(other[k]): x for k, x in sub.items()}
    out = np_array(units, nulls)
    return out.cast(typ) if out.type != typ else out, texts
