"""``generators.changes_arrow.py_array`` (Arrow arrays of Python values built from numpy
buffers, so that pyarrow does not import pandas) makes exactly the array ``pa.array`` makes:
same type, same values, same nulls — property tests over text (any Unicode), integers of
every width, float64, lists of text, all-null columns and the fall-back cases (values
beyond int64, mixed classes) — and the Parquet bytes written from either are equal."""

from __future__ import annotations

import io

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import given, settings
from hypothesis import strategies as st

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
    _same([1.5, None], pa.float32())  # float32 rounding: pyarrow's
    _same([[("a", "b")], None], pa.map_(pa.string(), pa.string()))
