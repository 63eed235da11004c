"""``unique_ints`` (binlogwriter/batch/unique.py) returns what ``np.unique`` returns — values
(and their dtype), inverse indices, counts — for integer arrays of every width and sign,
small ranges (the counting branch) and wide ones (``np.unique`` itself); ``unique_rows`` finds
the distinct rows of boolean matrices of any width."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.batch.unique import lexsort_ints, unique_ints, unique_rows

_DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


@settings(max_examples=400, deadline=None)
@given(dtype=st.sampled_from(_DTYPES), n=st.integers(0, 300), base=st.integers(-(1 << 64), 1 << 64),
       span=st.sampled_from([1, 2, 5, 50, 1000, 10_000, 1 << 40]), inverse=st.booleans(), counts=st.booleans(),
       seed=st.integers(0, 2**32 - 1))
def test_unique_ints_equals_np_unique(dtype, n, base, span, inverse, counts, seed) -> None:
    info = np.iinfo(dtype)
    lo = min(max(base, int(info.min)), int(info.max))
    hi = min(lo + span - 1, int(info.max))
    rng = np.random.default_rng(seed)
    a = np.array([int(x) for x in rng.integers(0, hi - lo + 1, n, dtype=np.uint64)], dtype=object)
    a = (a + lo).astype(dtype) if n else np.zeros(0, dtype=dtype)
    want = np.unique(a, return_inverse=inverse, return_counts=counts)
    got = unique_ints(a, return_inverse=inverse, return_counts=counts)
    if not (inverse or counts):
        want, got = (want,), (got,)
    assert len(got) == len(want)
    for w, g in zip(want, got, strict=True):
        assert g.dtype == w.dtype
        assert g.shape == w.shape
        assert np.array_equal(g, w)


@settings(max_examples=400, deadline=None)
@given(nkeys=st.integers(1, 4), n=st.integers(0, 300), dtype=st.sampled_from(_DTYPES),
       span=st.sampled_from([1, 2, 7, 1000, 1 << 20, 1 << 40, 1 << 62]), seed=st.integers(0, 2**32 - 1))
def test_lexsort_ints_equals_np_lexsort(nkeys, n, dtype, span, seed) -> None:
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    keys = []
    for _ in range(nkeys):
        lo = int(rng.integers(int(info.min), int(info.max), endpoint=True, dtype=np.int64 if info.min < 0 else np.uint64))
        hi = min(lo + span - 1, int(info.max))
        vals = [lo + int(x) % (hi - lo + 1) for x in rng.integers(0, 1 << 62, n)]
        keys.append(np.array(vals, dtype=dtype))
    want = np.lexsort(keys)
    got = lexsort_ints(keys)
    assert np.array_equal(got, want)


@settings(max_examples=300, deadline=None)
@given(n=st.integers(0, 200), m=st.sampled_from([0, 1, 7, 8, 55, 56, 57, 63, 64, 65, 257, 4096]),
       distinct=st.integers(1, 6), seed=st.integers(0, 2**32 - 1))
def test_unique_rows_equals_np_unique_of_the_rows(n, m, distinct, seed) -> None:
    """Boolean matrices of any width (one int per row up to 56 columns, byte strings beyond):
    the same distinct rows as ``np.unique(axis=0)``, and each row found at its index."""
    rng = np.random.default_rng(seed)
    pool = rng.random((distinct, m)) < 0.3
    mat = pool[rng.integers(0, distinct, n)] if n else np.zeros((0, m), dtype=bool)
    rows, inv = unique_rows(mat)
    assert rows.dtype == np.bool_ and rows.shape[1] == m
    assert inv.shape == (n,)
    assert np.array_equal(rows[inv], mat)
    if n:
        assert len(rows) == len(np.unique(mat, axis=0))
