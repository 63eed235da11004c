"""The ``digits`` generator's array twin (computed in cache-sized blocks of rows, with a
``%05d`` table) equals the scalar generator value for value, for any group count and for
row counts on both sides of a block boundary."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.schema import parse_tables
from generators.spec import ColumnGen
from generators.values import column_generator, column_vector_generator


@settings(max_examples=12, deadline=None)
@given(groups=st.integers(1, 12), n=st.sampled_from([1, 7, 2047, 2048, 2049, 4100]), seed=st.integers(0, 2**40),
       start=st.integers(0, 2**40))
def test_digits_twin_equals_scalar(groups: int, n: int, seed: int, start: int) -> None:
    table = parse_tables("CREATE TABLE t (k INT NOT NULL PRIMARY KEY, c VARCHAR(200) NOT NULL)", "d", "mysql80")[0]
    cg = ColumnGen("t.c", "digits", (("groups", groups),))
    vec = column_vector_generator(table, table.columns[1], "mysql80", seed, override=cg)
    one = column_generator(table, table.columns[1], "mysql80", seed, override=cg)
    keys = start + np.arange(n, dtype=np.int64) * 3
    vers = np.arange(n, dtype=np.int64) % 5
    got = vec(keys, vers)
    got = got if isinstance(got, list) else got.tolist()
    assert got == [one(int(k), int(v)) for k, v in zip(keys, vers, strict=True)]
