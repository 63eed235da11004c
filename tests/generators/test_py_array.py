"""``generators.changes_arrow.py_array`` (Arrow arrays of Python values built from numpy
buffers, so that pyarrow does not import pandas) makes exactly the array ``pa.array`` makes:
same type, same values, same nulls — property tests over text (any Unicode), integers of
every width, float64 and float32, DECIMAL, temporal values, binary, the text maps, lists of
text, all-null columns and the fall-back cases (values beyond int64, mixed classes) — and the
Parquet bytes written from either are equal; none of them imports pandas. The batch
recorder's own builders likewise: ``_numbered`` (GTIDs) equals ``string_array``, and an
image's struct taken whole equals its children taken one by one."""

from __future__ import annotations

import datetime as dt
import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generators.arrow_arrays import numbered, string_array, take_rows
from generators.changes_arrow import py_array

TEXT = st.text(max_size=12)
_INTS = {pa.int8(): (-(1 << 7), (1 << 7) - 1), pa.int16(): (-(1 << 15), (1 << 15) - 1),
         pa.int32(): (-(1 << 31), (1 << 31) - 1), pa.int64(): (-(1 << 63), (1 << 63) - 1),
         pa.uint8(): (0, 255), pa.uint32(): (0, (1 << 32) - 1), pa.uint64(): (0, (1 << 64) - 1)}


def _same(vals: list, typ: pa.DataType) -> None:
    got, want = py_array(vals, typ), pa.array(vals, type=typ)
    assert got.type == want.type
    assert got.null_count == want.null_count
    assert got.equals(want), (got, want)
    assert got.to_pylist() == want.to_pylist()
    bufs = []
    for arr in (got, want):
        sink = io.BytesIO()
        pq.write_table(pa.table({"x": arr}), sink, compression="zstd", compression_level=1)
        bufs.append(sink.getvalue())
    assert bufs[0] == bufs[1]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.none() | TEXT, max_size=40))
def test_text(vals: list) -> None:
    _same(vals, pa.string())


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(_INTS, key=str)).flatmap(
    lambda t: st.tuples(st.just(t), st.lists(st.none() | st.integers(*_INTS[t]), max_size=40))))
def test_integers(case: tuple) -> None:
    typ, vals = case
    _same(vals, typ)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.none() | st.floats(allow_nan=False), max_size=40))
def test_float64(vals: list) -> None:
    _same(vals, pa.float64())


@settings(max_examples=40, deadline=None)
@given(st.lists(st.none() | st.lists(TEXT, max_size=5), max_size=30))
def test_text_lists(vals: list) -> None:
    _same(vals, pa.list_(pa.string()))


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 20), st.sampled_from([pa.string(), pa.int32(), pa.decimal128(10, 2),
                                            pa.map_(pa.string(), pa.string()), pa.timestamp("us")]))
def test_all_null(n: int, typ: pa.DataType) -> None:
    _same([None] * n, typ)


def test_fall_back_cases() -> None:
    _same([1 << 63, None, 5], pa.uint64())  # beyond int64: pyarrow converts it
    _same([True, None, False], pa.bool_())  # bool is not int here
    _same([[("a", "b")], None], pa.map_(pa.string(), pa.string()))


def _parquet(arr: pa.Array) -> bytes:
    sink = io.BytesIO()
    pq.write_table(pa.table({"x": arr}), sink, compression="zstd", compression_level=1)
    return sink.getvalue()


_CHILD = st.sampled_from([pa.string(), pa.binary(), pa.int32()]).flatmap(lambda t: st.tuples(
    st.just(t), st.lists(st.none() | (st.binary(max_size=6) if t == pa.binary() else
                                      st.integers(-5, 5) if t == pa.int32() else TEXT), min_size=12, max_size=12)))


@settings(max_examples=120, deadline=None)
@given(st.lists(_CHILD, min_size=1, max_size=5), st.lists(st.booleans(), max_size=30), st.integers(0, 3),
       st.booleans())
def test_image_struct_take_equals_child_takes(children: list, has: list, cut: int, shuffle: bool) -> None:
    """A change image's struct (``_record_table``: one ``take`` of the struct of a table's
    typed columns, null where the change has no such image) is the struct the recorder built
    before, child by child (each child taken, the struct's own mask), Parquet bytes included:
    string / binary / int children with nulls, sliced children, consecutive, reversed and no
    rows taken."""
    typed = [pa.array(vals, type=typ).slice(cut) for typ, vals in children]
    fields = [pa.field(f"c{i}", a.type) for i, a in enumerate(typed)]
    has = np.array(has, dtype=np.bool_)
    k = int(has.sum())
    if k > len(typed[0]):
        has[np.flatnonzero(has)[len(typed[0]):]] = False
        k = len(typed[0])
    idx = np.zeros(len(has), dtype=np.int64)
    rows = np.arange(k)
    idx[has] = rows[::-1] if shuffle else rows
    take = pa.array(idx, mask=~has)
    got = take_rows(pa.StructArray.from_arrays(typed, fields=fields), idx, has)
    want = pa.StructArray.from_arrays([a.take(take) for a in typed], fields=fields,
                                      mask=pa.array(~has, type=pa.bool_()))
    assert got.type == want.type and got.null_count == want.null_count
    assert got.equals(want), (got, want)
    assert _parquet(got) == _parquet(want)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.text(max_size=8), min_size=1, max_size=3).flatmap(lambda heads: st.tuples(
    st.just(heads), st.lists(st.tuples(st.integers(-1, len(heads) - 1), st.integers(0, (1 << 63) - 1)
                                       | st.integers(0, 12_345)), max_size=30))))
def test_numbered_equals_strings(case: tuple) -> None:
    """``_numbered`` (the GTIDs of a batch: head + decimal number) is ``string_array`` of the
    Python strings, over numbers of every width up to 2^63 - 1 and Unicode heads."""
    heads, rows = case
    head = np.array([h for h, _ in rows], dtype=np.int64)
    num = np.array([g for _, g in rows], dtype=np.int64)
    got = numbered(heads, head, num)
    want = string_array([heads[h] + str(g) if h >= 0 else None for h, g in rows])
    assert got.equals(want), (got, want)
    assert _parquet(got) == _parquet(want)


_DECIMALS = st.decimals(allow_nan=False, allow_infinity=False, places=None, min_value=-10**12, max_value=10**12)


@settings(max_examples=120, deadline=None)
@given(st.sampled_from([pa.decimal128(10, 2), pa.decimal128(38, 10), pa.decimal128(5, 0), pa.decimal256(50, 4)]),
       st.lists(st.none() | _DECIMALS | st.decimals(places=2, min_value=-999, max_value=999), max_size=20))
def test_decimals(typ: pa.DataType, vals: list) -> None:
    """DECIMAL: exact values as pyarrow converts them; a value needing more digits or places
    than the type raises as pyarrow does."""
    try:
        pa.array(vals, type=typ)
    except (pa.ArrowInvalid, ValueError):
        with pytest.raises((pa.ArrowInvalid, ValueError)):
            py_array(vals, typ)
        return
    _same(vals, typ)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.none() | st.datetimes(), max_size=20), st.lists(st.none() | st.dates(), max_size=20),
       st.lists(st.none() | st.timedeltas(min_value=dt.timedelta(days=-10**5), max_value=dt.timedelta(days=10**5)),
                max_size=20))
def test_temporal(stamps: list, dates: list, spans: list) -> None:
    """DATETIME (naive), TIMESTAMP (UTC), DATE and TIME values."""
    _same(stamps, pa.timestamp("us"))
    _same([None if v is None else v.replace(tzinfo=dt.UTC) for v in stamps], pa.timestamp("us", tz="UTC"))
    _same(dates, pa.date32())
    _same(spans, pa.duration("us"))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.none() | st.binary(max_size=10), max_size=20),
       st.lists(st.none() | st.floats(width=32, allow_nan=False) | st.floats(allow_nan=False), max_size=20),
       st.lists(st.none() | st.lists(st.tuples(TEXT, st.none() | TEXT), max_size=3), max_size=20))
def test_binary_float32_text_maps(blobs: list, floats: list, maps: list) -> None:
    """Binary data, FLOAT (float32: rounded as pyarrow rounds; beyond its range pyarrow
    decides; no NaN: a column cannot hold one, and Arrow's ``equals`` finds NaN unequal to
    itself) and the ``_text`` maps (column -> canonical text)."""
    _same(blobs, pa.binary())
    _same(maps, pa.map_(pa.string(), pa.string()))
    try:
        want = pa.array(floats, type=pa.float32())
    except (pa.ArrowInvalid, OverflowError):
        return
    got = py_array(floats, pa.float32())
    assert got.equals(want) and _parquet(got) == _parquet(want)


def test_typed_values_do_not_import_pandas() -> None:
    """py_array of every kind of typed truth value builds its buffers itself (run in a fresh
    interpreter: pandas is imported by pyarrow's conversion of Python values)."""
    import subprocess
    import sys

    code = ("import sys, datetime as dt, decimal, pyarrow as pa\n"
            "from generators.arrow_arrays import py_array\n"
            "py_array([decimal.Decimal('1.5'), None], pa.decimal128(5, 2))\n"
            "py_array([dt.datetime(2020, 1, 1, tzinfo=dt.UTC)], pa.timestamp('us', tz='UTC'))\n"
            "py_array([dt.datetime(2020, 1, 1)], pa.timestamp('us'))\n"
            "py_array([dt.date(2020, 1, 1)], pa.date32())\n"
            "py_array([dt.timedelta(hours=-1)], pa.duration('us'))\n"
            "py_array([b'x', None], pa.binary())\n"
            "py_array([1.5, None], pa.float32())\n"
            "py_array([[('a', '0000-00-00')], None], pa.map_(pa.string(), pa.string()))\n"
            "assert 'pandas' not in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("typ", [pa.decimal128(10, 2), pa.decimal128(5, 0), pa.decimal256(50, 4)], ids=str)
def test_decimal_limits(typ: pa.DataType) -> None:
    """The largest DECIMAL values fit; one unit of the last place more raises, as pyarrow."""
    from decimal import Decimal

    whole, places = typ.precision - typ.scale, typ.scale
    top = Decimal("9" * whole + ("." + "9" * places if places else ""))
    big = Decimal("1" + "0" * whole)
    _same([top, top.copy_negate(), None, Decimal(f"0E-{places + 3}")], typ)
    for over in (big, big.copy_negate(), Decimal(f"1E-{places + 1}")):
        with pytest.raises(pa.ArrowInvalid):
            pa.array([over], type=typ)
        with pytest.raises(pa.ArrowInvalid):
            py_array([over], typ)
