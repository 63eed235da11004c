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
from binlogwriter.values import encode_row_image, row_many
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


def as_column(values: list, col, draw):
    """A column of values as the batch generator may give it: the list itself, or (when the
    values allow) a ColumnArray of int64 / ASCII text with a NULL mask."""
    import numpy as np

    from binlogwriter.values.row import ColumnArray

    nn = [v for v in values if v is not None]
    nulls = np.array([v is None for v in values])
    if len(nn) > 1 and draw(st.integers(0, 3)) == 0:  # some values as edges over an array of the others
        edged = _edged_column(values, nulls, col, draw)
        if edged is not None:
            return edged
    if nn and draw(st.integers(0, 2)) == 0:  # drawn from a pool of values by index
        pos = np.cumsum(~nulls) - 1
        return ColumnArray("pool", np.where(nulls, 0, pos).astype(np.int64), nulls if nulls.any() else None,
                           tuple(nn))
    if nn and all(type(v) is int and -(1 << 63) <= v < (1 << 63) for v in nn) and draw(st.booleans()):
        data = np.array([0 if v is None else v for v in values], dtype=np.int64)
        return ColumnArray("int", data, nulls if nulls.any() else None)
    arr = _typed_array(nn, col) if nn and draw(st.booleans()) else None
    if arr is not None:  # DECIMAL units, microseconds, days, floats: the array encoders
        kind, vals, meta = arr
        data = np.zeros(len(values), dtype=vals.dtype)
        data[~nulls] = vals
        return ColumnArray(kind, data, nulls if nulls.any() else None, None, meta)
    if nn and all(isinstance(v, str) and v.isascii() for v in nn) and len({len(v) for v in nn}) == 1 \
            and draw(st.booleans()):
        w = len(nn[0])
        data = np.zeros((len(values), w), dtype=np.uint8)
        for i, v in enumerate(values):
            if v is not None:
                data[i] = np.frombuffer(v.encode("ascii"), dtype=np.uint8)
        return ColumnArray("ascii", data, nulls if nulls.any() else None)
    return list(values)


def _edged_column(values: list, nulls, col, draw):
    """A ColumnArray "edged" of ``values`` (generators/columns/_vec.py ``_edge_twin`` under edge
    values its base kind cannot hold): the rows drawn as edges index a tuple of those values,
    the other non-NULL rows an int64 or typed base array of every row; None when those others
    fit no array kind."""
    import numpy as np

    from binlogwriter.values.row import ColumnArray

    n = len(values)
    edge = np.array([v is not None and draw(st.booleans()) for v in values], dtype=bool)
    rest = [v for v, z, e in zip(values, nulls.tolist(), edge.tolist(), strict=True) if not z and not e]
    if not rest:
        return None
    if all(type(v) is int and -(1 << 63) <= v < (1 << 63) for v in rest):
        kind, vals, meta = "int", np.array(rest, dtype=np.int64), None
    else:
        got = _typed_array(rest, col)
        if got is None:
            return None
        kind, vals, meta = got
    at = ~nulls & ~edge
    data = np.zeros(n, dtype=vals.dtype)
    data[at] = vals
    edges = tuple(v for v, e in zip(values, edge.tolist(), strict=True) if e)  # one entry per edge row
    which = np.full(n, -1, dtype=np.int64)
    which[edge] = np.arange(len(edges))
    return ColumnArray("edged", which, nulls if nulls.any() else None, None,
                       (edges, ColumnArray(kind, data, None, None, meta)))


def _typed_array(nn: list, col):
    """(kind, array, meta) of non-NULL values that a ColumnArray kind gives back exactly
    (``tolist`` returns equal values of the same types and spellings), else None. The kind
    follows the values, not the column: a kind the column's codec does not take goes
    through the values' scalar encoder (the fallback)."""
    import datetime as dt
    from decimal import Decimal

    import numpy as np

    one = 1 << 63
    types = set(map(type, nn))
    if types == {Decimal}:
        exps = {v.as_tuple().exponent for v in nn if v.is_finite()}
        if len(exps) != 1 or not all(v.is_finite() for v in nn) or next(iter(exps)) > 0:
            return None
        e = next(iter(exps))
        units = [int(v.scaleb(-e)) for v in nn]
        if any(u == 0 and v.is_signed() for u, v in zip(units, nn, strict=True)) or \
                not all(-one < u < one for u in units):
            return None  # -0 has no int units
        return "dec", np.array(units, dtype=np.int64), -e
    if types == {float}:
        return "float", np.array(nn, dtype=np.float64), None
    if types == {dt.datetime}:
        tz = {v.tzinfo for v in nn}
        if tz == {None}:
            return "dt", np.array([(v - dt.datetime(1970, 1, 1)) // dt.timedelta(microseconds=1) for v in nn]), None
        if tz == {dt.UTC}:
            epoch = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
            return "ts", np.array([(v - epoch) // dt.timedelta(microseconds=1) for v in nn]), None
        return None
    if types == {dt.date}:
        return "date", np.array([v.toordinal() - 719163 for v in nn], dtype=np.int64), None
    if types == {dt.timedelta}:
        return "time", np.array([v // dt.timedelta(microseconds=1) for v in nn], dtype=np.int64), None
    return None


def test_array_encoders_are_used() -> None:
    """DECIMAL and the temporal types take their array encoders (not only the fallback)."""
    import numpy as np

    from binlogwriter.values import ColumnDesc
    from binlogwriter.values.registry import bind_column

    cases = [(246, b"\x0a\x02", "dec", np.array([1234, -5, 0]), 2), (18, b"\x03", "dt", np.array([0, 10**15]), None),
             (17, b"\x06", "ts", np.array([10**6, 2 * 10**15 + 7]), None), (10, b"", "date", np.array([-5, 0, 9000]), None),
             (19, b"\x04", "time", np.array([-3_600_000_100, 0, 700]), None), (4, b"\x04", "float", np.array([0.5, -2.0]), None)]
    for code, meta, kind, data, m in cases:
        b = bind_column(ColumnDesc(code, meta))
        assert b.encode_array is not None and b.encode_array(kind, data, m) is not None
        if kind == "time":
            assert b.encode_array(kind, data * 0 + 10**7 + 1, m) is None  # a fraction fsp 4 does not keep
    assert bind_column(ColumnDesc(246, b"\x03\x00")).encode_array("dec", np.array([1000]), 0) is None  # 4 digits


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
    columns = [as_column([r[c] for r in rows], cols[c], data.draw) for c in range(width)]
    # the variable-length pieces placed a few bytes at a time too (row_many.SCATTER_BYTES: a
    # call's runs in chunks, a run never split)
    chunk = data.draw(st.sampled_from([row_many.SCATTER_BYTES, 1, 5, 64]), label="scatter chunk")
    saved, row_many.SCATTER_BYTES = row_many.SCATTER_BYTES, chunk
    try:
        try:
            want = scalar(cols, present, rows, pad)
        except ValueEncodeError as exc:
            with pytest.raises(ValueEncodeError) as got:
                encode_column_images(cols, present, columns, n, pad)
            assert str(got.value) == str(exc)
            return
        buf, lens = encode_column_images(cols, present, columns, n, pad)
    finally:
        row_many.SCATTER_BYTES = saved
    assert lens.tolist() == want[1]
    assert buf.tobytes() == want[0]


_TIME_MAX = ((838 * 60 + 59) * 60 + 59) * 1_000_000 + 999_999


@st.composite
def _array_case(draw):
    """(type code, metadata, kind, int/float array, meta) of values that mostly fit."""
    import datetime as dt

    import numpy as np

    kind = draw(st.sampled_from(["dec", "dt", "ts", "date", "time", "float", "double"]), label="kind")
    n = draw(st.integers(1, 30), label="rows")
    fsp = draw(st.integers(0, 6), label="fsp")
    keep = draw(st.integers(0, 4)) > 0  # mostly fractions the fsp keeps

    def cut(us):
        return us - us % 10 ** (6 - fsp) if keep else us
    if kind == "dec":
        p = draw(st.integers(1, 65), label="precision")
        s = draw(st.integers(0, min(p, 30)), label="scale")
        top = 10 ** min(p + draw(st.integers(0, 1)), 18)  # sometimes a digit too many
        units = draw(st.lists(st.integers(-top + 1, top - 1), min_size=n, max_size=n))
        return 246, bytes((p, s)), "dec", np.array(units, dtype=np.int64), draw(st.sampled_from([s, s, s + 1]))
    if kind == "dt":
        vals = draw(st.lists(st.datetimes(dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59, 999999)),
                             min_size=n, max_size=n))
        us = [cut((v - dt.datetime(1970, 1, 1)) // dt.timedelta(microseconds=1)) for v in vals]
        return 18, bytes((fsp,)), "dt", np.array(us, dtype=np.int64), None
    if kind == "ts":
        us = draw(st.lists(st.integers(0, ((1 << 31) + 5) * 10**6), min_size=n, max_size=n))
        return 17, bytes((fsp,)), "ts", np.array([cut(u) for u in us], dtype=np.int64), None
    if kind == "date":
        d = draw(st.lists(st.dates(), min_size=n, max_size=n))
        return 10, b"", "date", np.array([x.toordinal() - 719163 for x in d], dtype=np.int64), None
    if kind == "time":
        us = draw(st.lists(st.integers(-_TIME_MAX - 2, _TIME_MAX + 2), min_size=n, max_size=n))
        return 19, bytes((fsp,)), "time", np.array([(-1 if u < 0 else 1) * cut(abs(u)) for u in us]), None
    f = draw(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=32 if kind == "float" else 64),
                      min_size=n, max_size=n))
    return (4, b"\x04", "float", np.array(f), None) if kind == "float" else (5, b"\x08", "float", np.array(f), None)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=_array_case(), unsigned=st.booleans())
def test_array_encoders_equal_scalar(case, unsigned: bool) -> None:
    """Every array encoder (``Bound.encode_array``: DECIMAL units, DATETIME2 / TIMESTAMP2 /
    TIME2 microseconds at every fsp, DATE days, FLOAT / DOUBLE) writes the scalar codec's
    bytes for each value of the array, and declines (None) exactly when some value does
    not fit — the scalar codec then raises for it."""
    from binlogwriter.values import ColumnDesc
    from binlogwriter.values.registry import bind_column
    from binlogwriter.values.row import ColumnArray

    code, meta, kind, data, m = case
    b = bind_column(ColumnDesc(code, meta, unsigned=unsigned and code in (246, 4, 5)))
    values = ColumnArray(kind, data, None, None, m).tolist()
    try:
        want = [b.encode(v) for v in values]
    except ValueEncodeError:
        want = None
    got = b.encode_array(kind, data, m)
    if want is None:
        assert got is None
        return
    if m is not None and (m != meta[1] or m > 18):
        assert got is None  # units at another scale, or beyond int64 digits: the caller encodes the Decimals
        return
    assert got is not None
    import numpy as np

    assert [bytes(r) for r in np.concatenate([p.data for p in got], axis=1)] == want


@settings(max_examples=200, deadline=None)
@given(bits=st.integers(1, 64), data=st.data(), as_array=st.booleans())
def test_bit_and_year_encoders_equal_scalar(bits: int, data, as_array: bool) -> None:
    """BIT(M) and YEAR ``encode_many`` (from a list of ints or an int64 array) writes the
    scalar codec's bytes, and declines exactly when some value does not fit."""
    import numpy as np

    from binlogwriter.values import ColumnDesc
    from binlogwriter.values.registry import bind_column

    year = data.draw(st.booleans(), label="year")
    b = bind_column(ColumnDesc(13, b"") if year else ColumnDesc(16, bytes((bits % 8, bits // 8))))
    ok = st.sampled_from([0, 1901, 1999, 2155]) | st.integers(1901, 2155) if year else st.integers(0, (1 << bits) - 1)
    vals = data.draw(st.lists(ok | st.integers(-3, (1 << 64) + 2), min_size=1, max_size=20)
                     if data.draw(st.booleans()) else st.lists(ok, min_size=1, max_size=20), label="values")
    if as_array and all(-(1 << 63) <= v < 1 << 63 for v in vals):
        vals_in = np.array(vals, dtype=np.int64)
    else:
        vals_in = vals
    try:
        want = [b.encode(v) for v in vals]
    except ValueEncodeError:
        want = None
    got = b.encode_many(vals_in)
    if want is None:
        assert got is None
        return
    assert got is not None and [bytes(r) for r in got[0].data] == want
