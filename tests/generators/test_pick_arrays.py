"""generators/arrow_arrays.py ``_pick_strings`` / ``_pick_lists``: the truth/changes columns
of a few distinct values over many rows (op, database, table, the column lists) built by
numpy are the arrays ``take`` gives, and write the same Parquet bytes."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import given, settings
from hypothesis import strategies as st

from generators.arrow_arrays import _np_array, _pick_lists, _pick_strings, _string_lists, _strings

_TEXT = st.one_of(st.none(), st.text(max_size=12))
_LIST = st.one_of(st.none(), st.lists(st.text(max_size=6), max_size=5))


def _parquet(arr: pa.Array) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table({"x": arr}), buf, compression="zstd")
    return buf.getvalue()


@settings(max_examples=150, deadline=None)
@given(st.lists(_TEXT, min_size=1, max_size=5), st.data())
def test_pick_strings_is_take(vals: list, data: st.DataObject) -> None:
    idx = np.array(data.draw(st.lists(st.integers(0, len(vals) - 1), max_size=60)), dtype=np.int64)
    want = _strings(vals).take(_np_array(idx))
    got = _pick_strings(vals, idx)
    got.validate(full=True)
    assert got.equals(want)
    assert _parquet(got) == _parquet(want)


@settings(max_examples=150, deadline=None)
@given(st.lists(_LIST, min_size=1, max_size=5), st.data())
def test_pick_lists_is_take(lists: list, data: st.DataObject) -> None:
    idx = np.array(data.draw(st.lists(st.integers(0, len(lists) - 1), max_size=60)), dtype=np.int64)
    want = _string_lists(lists).take(_np_array(idx))
    got = _pick_lists(lists, idx)
    got.validate(full=True)
    assert got.equals(want)
    assert _parquet(got) == _parquet(want)
