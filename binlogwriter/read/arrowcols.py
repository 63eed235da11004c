"""Arrow-ready column decoders for the columnar export (issue 11): row images of many rows
read at once with numpy, each column turned straight into an Arrow array's buffers
(validity bitmap, int/float data, decimal128 from unscaled integers, date32 days,
timestamp/duration microseconds, offsets + bytes for strings), never into Python values.

The reference is the per-row path of :mod:`binlogwriter.read.export` (the compiled row
decoders, property-tested equal to the declarative codecs, then ``pa.array`` of the Python
values through :func:`converter`). Here:

* :func:`walk_image` reads one row image (format.md §13: null bitmap over the present
  columns, then the non-NULL values in column order) at many positions at once, giving per
  column the start, size and validity of every row's value;
* :class:`~binlogwriter.read.arrowfamilies.ColumnBuilder` turns those spans into the
  column's Arrow array, one section per type family (see that module).

Anything the fast path cannot vouch for raises :class:`Fallback`; the caller then decodes
the batch through the reference, which raises the located error for malformed input.
``tests/read/test_export_columnar_props.py`` asserts both give the same Arrow table.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa

from binlogwriter.read.arrowbuild import strings
from binlogwriter.values._strings import (
    parse_string_meta,
    string_real_type,
)
from binlogwriter.values.base import ColumnDesc
from binlogwriter.values.families import family_of_column
from binlogwriter.values.registry import bind_column
from binlogwriter.values.types import MysqlDate, MysqlDateTime, MysqlTime

__all__ = ["Fallback", "arrow_type", "converter", "safe_array", "column_layout", "walk_image", "PAD"]

PAD = 64
"""Zero bytes after a batch's rows bytes: fixed-width gathers at a NULL's position stay in
bounds (the widest fixed value, DECIMAL(65,30), is 30 bytes)."""


class Fallback(Exception):  # noqa: N818 - a signal, not an error
    """The columnar path declines this batch; the reference path decodes it."""


# -- the reference conversion (Python value -> Arrow) ------------------------------------------

def arrow_type(col: ColumnDesc) -> pa.DataType:
    """The Arrow type of a column's values (read/export.py module docstring): its type
    family's ``arrow_type`` (binlogwriter/values/families.py); string for a type no family
    reads."""
    fam = family_of_column(col)
    return pa.string() if fam is None else fam.arrow_type(col)


_TEMPORAL = frozenset((7, 10, 11, 12, 14, 17, 18, 19))
_LENIENT = (MysqlDate, MysqlDateTime, MysqlTime)


def converter(col: ColumnDesc, typ: pa.DataType) -> Callable[[Any], Any] | None:
    """Per-value conversion to what ``pa.array`` takes for ``typ`` (None: the value as is)."""
    t = col.type_code
    if t in _TEMPORAL:  # the lenient values (zero dates, …) Arrow cannot hold: null
        return lambda v: None if type(v) in _LENIENT else v
    if t == 245:
        return lambda v: json.dumps(v, ensure_ascii=False, default=str)
    if t == 246 and pa.types.is_string(typ):  # a DECIMAL no Arrow decimal holds (values/decimal.py)
        return lambda v: format(v, "f") if isinstance(v, Decimal) else str(v)
    if t == 255:
        return lambda v: v.to_bytes() if hasattr(v, "to_bytes") else v
    if pa.types.is_string(typ) and string_real_type(col) == 247:  # index 0 read as int 0 ('' a member too)
        return lambda v: "" if v == 0 and isinstance(v, int) else v
    if pa.types.is_string(typ) and string_real_type(col) == 248:
        members = col.set_values or ()
        return lambda v: ",".join(m for m in members if m in v) if isinstance(v, frozenset) else str(v)
    return None


def safe_array(vals: list | tuple, typ: pa.DataType) -> pa.Array:
    """``pa.array(vals, type=typ)`` with each value Arrow cannot hold as ``typ`` made null,
    found by halving (a few bad values among many cost a few conversions each). Text of
    str values is laid out by :func:`~binlogwriter.read.arrowbuild.strings` (no pandas
    import: that module's docstring)."""
    if typ == pa.string():
        try:
            return strings(vals)
        except (TypeError, UnicodeEncodeError):  # bytes or a lone surrogate: pa.array's rules below
            pass
    try:
        return pa.array(vals, type=typ)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError, ValueError):
        if len(vals) <= 1:
            return pa.nulls(len(vals), type=typ)
        mid = len(vals) // 2
        return pa.concat_arrays([safe_array(vals[:mid], typ), safe_array(vals[mid:], typ)])


# -- walking row images -----------------------------------------------------------------------

def column_layout(col: ColumnDesc) -> tuple[bool, int] | None:
    """``(fixed, n)``: a fixed-size value of ``n`` bytes, or an ``n``-byte little-endian length
    then that many bytes (values.md §2–§9); None when neither (the batch falls back)."""
    try:
        bound = bind_column(col)
    except Exception:  # noqa: BLE001 - metadata no codec takes: the reference reports it
        return None
    if bound.fixed_size:
        return True, bound.fixed_size
    t, meta = col.type_code, bytes(col.meta)
    if t == 15 and len(meta) == 2:
        return False, 2 if int.from_bytes(meta, "little") > 255 else 1
    if t in (253, 254) and len(meta) == 2:
        real, length = parse_string_meta(meta)
        return (False, 2 if length > 255 else 1) if real == 254 else None
    if t in (252, 245, 255) and len(meta) == 1 and 1 <= meta[0] <= 4:
        return False, meta[0]
    return None


Spans = tuple[np.ndarray, np.ndarray, np.ndarray]
"""(start, size, valid) of one column's value in each row (size 0 and valid False: NULL)."""


def walk_image(buf: np.ndarray, starts: np.ndarray, limits: np.ndarray, idx: Sequence[int],
               layouts: Sequence[tuple[bool, int]]) -> tuple[np.ndarray, dict[int, Spans]]:
    """Read one row image at each of ``starts`` (an image may not pass its ``limits``) over
    the present columns ``idx``: (positions after the images, {column: spans}). Runs of
    fixed-size columns are placed with one cumulative sum; positions only grow, so one check
    at the end finds an image that runs past its limit (a read past the buffer raises)."""
    k = len(idx)
    nb = (k + 7) >> 3
    pos = starts + nb
    if (pos > limits).any():
        raise Fallback
    out: dict[int, Spans] = {}
    if not k:
        return pos, out
    valid_all = np.unpackbits(buf[starts[:, None] + np.arange(nb)], axis=1, bitorder="little")[:, :k] == 0
    j = 0
    while j < k:
        fixed, w = layouts[idx[j]]
        if fixed:
            e = j + 1
            while e < k and layouts[idx[e]][0]:
                e += 1
            valid = valid_all[:, j:e]
            sizes = valid * np.array([layouts[idx[r]][1] for r in range(j, e)], dtype=np.int64)
            ends = np.cumsum(sizes, axis=1)
            ends += pos[:, None]
            begins = ends - sizes
            for r in range(j, e):
                out[idx[r]] = (begins[:, r - j], sizes[:, r - j], valid[:, r - j])
            pos = ends[:, -1]
            j = e
            continue
        valid = valid_all[:, j]
        size = buf[pos].astype(np.int64)
        for q in range(1, w):
            size |= buf[pos + q].astype(np.int64) << (8 * q)
        size *= valid
        start = pos + valid * w
        pos = start + size
        out[idx[j]] = (start, size, valid)
        j += 1
    if (pos > limits).any():
        raise Fallback
    return pos, out
