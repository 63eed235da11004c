"""generators/arrow_arrays.py ``pick_strings`` / ``_pick_lists``: the truth/changes columns
of a few distinct values over many rows (op, database, table, the column lists) built by
numpy are the arrays ``take`` gives, and write the same Parquet bytes."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import given, settings
from hypothesis import strategies as st

from generators.arrow_arrays import np_array, pick_lists, pick_strings, string_array, string_lists

_TEXT = st.one_of(st.none(), st.text(max_size=12))
_LIST = st.one_of(st.none(), st.lists(st.text(max_size=6), max_size=5))


def _parquet(arr: pa.Array) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table({"x": arr}), buf, compression="zstd")
    return buf.getvalue()


_CASES = {"strings": (_TEXT, pick_strings, string_array), "lists": (_LIST, pick_lists, string_lists)}


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(_CASES)), st.data())
def test_pick_is_take(case: str, data: st.DataObject) -> None:
    values, pick, build = _CASES[case]
    vals = data.draw(st.lists(values, min_size=1, max_size=5))
    idx = np.array(data.draw(st.lists(st.integers(0, len(vals) - 1), max_size=60)), dtype=np.int64)
    want = build(vals).take(np_array(idx))
    got = pick(vals, idx)
    got.validate(full=True)
    assert got.equals(want)
    assert _parquet(got) == _parquet(want)
