"""Vectorised row images (``RowImageCodec.encode_many``: ``Bound.encode_many`` per column type,
null bitmaps by ``np.packbits``, scalar fallback per column) write exactly the bytes of the
scalar codecs row by row (docs/design.md principle 5), and fail the same way.

Hypothesis draws random tables over every column type family and charsets (the strategies of
tests/test_rows_roundtrip_props.py), many rows of them with NULLs, random present-column
bitmaps and both null-bitmap paddings; sometimes a value that does not fit is planted (an
integer out of range, a float NaN, a string too long, a wrong Python type): then both paths
must raise the same ValueEncodeError for the same row.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.errors import ValueEncodeError
from binlogwriter.values import encode_row_image
from binlogwriter.values.row import encode_row_images
from tests.test_rows_roundtrip_props import FLAVORS, row_values, tables

BAD = (1 << 70, -(1 << 70), math.nan, math.inf, 1e300, "x" * 70000, b"\xff" * 300, object(), 1.5, "12")


def scalar(cols, present, rows, pad):
    parts = []
    for r, row in enumerate(rows):
        try:
            parts.append(encode_row_image(cols, present, row, pad))
        except ValueEncodeError as exc:
            raise exc.located(row=r) from None
    return b"".join(parts), [len(p) for p in parts]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_vectorised_row_images_equal_scalar(data) -> None:
    flavor = data.draw(st.sampled_from(FLAVORS), label="flavor")
    gt = data.draw(tables(flavor), label="table")
    cols = tuple(gt.table.column_descs(flavor))
    width = len(cols)
    rows = [list(data.draw(row_values(gt))[0]) for _ in range(data.draw(st.integers(1, 25), label="rows"))]
    present = data.draw(st.lists(st.booleans(), min_size=width, max_size=width), label="present")
    pad = data.draw(st.sampled_from([0, -1]), label="pad")
    if data.draw(st.integers(0, 3), label="plant") == 0:
        r = data.draw(st.integers(0, len(rows) - 1))
        c = data.draw(st.integers(0, width - 1))
        rows[r][c] = data.draw(st.sampled_from(BAD), label="bad value")
    rows = [tuple(r) for r in rows]
    try:
        want = scalar(cols, present, rows, pad)
    except ValueEncodeError as exc:
        with pytest.raises(ValueEncodeError) as got:
            encode_row_images(cols, present, rows, pad)
        assert str(got.value) == str(exc)
        return
    buf, lens = encode_row_images(cols, present, rows, pad)
    assert lens.tolist() == want[1]
    assert buf == want[0]


def test_integer_and_float_columns_take_the_vectorised_path() -> None:
    """The vectorised encoders are used (not only the fallback) for these families."""
    from binlogwriter.values import ColumnDesc
    from binlogwriter.values.registry import bind_column

    for code, meta in ((3, b""), (9, b""), (8, b""), (4, b"\x04"), (5, b"\x08"), (15, b"\x20\x00"), (252, b"\x02")):
        b = bind_column(ColumnDesc(code, meta, collation=45))
        assert b.encode_many is not None
        vals = [1, 2, 3] if code in (3, 9, 8) else ([1.5, -2.25] if code in (4, 5) else ["ab", "é"])
        assert b.encode_many(vals) is not None
    assert bind_column(ColumnDesc(3)).encode_many([1, 1 << 40]) is None  # out of range: scalar raises


def _as_column(values: list, col, draw):
    """A column of values as the batch generator may give it: the list itself, or (when the
    values allow) a ColumnArray of int64 / ASCII text with a NULL mask."""
    import numpy as np

    from binlogwriter.values.row import ColumnArray

    nn = [v for v in values if v is not None]
    nulls = np.array([v is None for v in values])
    if nn and draw(st.integers(0, 2)) == 0:  # drawn from a pool of values by index
        pos = np.cumsum(~nulls) - 1
        return ColumnArray("pool", np.where(nulls, 0, pos).astype(np.int64), nulls if nulls.any() else None,
                           tuple(nn))
    if nn and all(type(v) is int and -(1 << 63) <= v < (1 << 63) for v in nn) and draw(st.booleans()):
        data = np.array([0 if v is None else v for v in values], dtype=np.int64)
        return ColumnArray("int", data, nulls if nulls.any() else None)
    if nn and all(isinstance(v, str) and v.isascii() for v in nn) and len({len(v) for v in nn}) == 1 \
            and draw(st.booleans()):
        w = len(nn[0])
        data = np.zeros((len(values), w), dtype=np.uint8)
        for i, v in enumerate(values):
            if v is not None:
                data[i] = np.frombuffer(v.encode("ascii"), dtype=np.uint8)
        return ColumnArray("ascii", data, nulls if nulls.any() else None)
    return list(values)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_row_images_from_columns_equal_scalar(data) -> None:
    """``encode_column_images`` (column lists, int64 arrays, ASCII text arrays, value pools,
    NULL masks)
    writes the scalar codec's bytes row by row, and raises its error for a bad value."""
    from binlogwriter.values.row import encode_column_images

    flavor = data.draw(st.sampled_from(FLAVORS), label="flavor")
    gt = data.draw(tables(flavor), label="table")
    cols = tuple(gt.table.column_descs(flavor))
    width = len(cols)
    n = data.draw(st.integers(1, 20), label="rows")
    rows = [list(data.draw(row_values(gt))[0]) for _ in range(n)]
    for c in range(width):  # sometimes one fixed ASCII text in a whole column (the ascii path)
        if isinstance(rows[0][c], str) and data.draw(st.integers(0, 2)) == 0:
            text = data.draw(st.text(alphabet="abc -0123456789", min_size=0, max_size=12), label="ascii")
            for r in rows:
                if r[c] is not None:
                    r[c] = text
    present = data.draw(st.lists(st.booleans(), min_size=width, max_size=width), label="present")
    pad = data.draw(st.sampled_from([0, -1]), label="pad")
    if data.draw(st.integers(0, 4), label="plant") == 0:
        rows[data.draw(st.integers(0, n - 1))][data.draw(st.integers(0, width - 1))] = \
            data.draw(st.sampled_from(BAD), label="bad value")
    rows = [tuple(r) for r in rows]
    columns = [_as_column([r[c] for r in rows], cols[c], data.draw) for c in range(width)]
    try:
        want = scalar(cols, present, rows, pad)
    except ValueEncodeError as exc:
        with pytest.raises(ValueEncodeError) as got:
            encode_column_images(cols, present, columns, n, pad)
        assert str(got.value) == str(exc)
        return
    buf, lens = encode_column_images(cols, present, columns, n, pad)
    assert lens.tolist() == want[1]
    assert buf.tobytes() == want[0]
