"""``mix64_into`` (generators/hashing.py: mix64 in place, on a scratch array) equals
``mix64_array`` and the scalar ``mix64`` element by element, for any uint64 values."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from generators.hashing import draw_array, hash64, hash64_array, mix64, mix64_array, mix64_into


@settings(max_examples=100, deadline=None)
@given(vals=st.lists(st.integers(0, 2**64 - 1), max_size=60), cols=st.integers(1, 3))
def test_mix64_into_equals_mix64(vals, cols) -> None:
    z = np.array(vals * cols, dtype=np.uint64).reshape(cols, -1).T.copy()
    want = mix64_array(z)
    got = mix64_into(z.copy(), np.empty_like(z))
    assert np.array_equal(got, want)
    assert got.ravel().tolist() == [mix64(int(v)) for v in z.ravel().tolist()]


@settings(max_examples=100, deadline=None)
@given(base=st.integers(0, 2**64 - 1), a=st.lists(st.integers(0, 2**63 - 1), max_size=40), nints=st.integers(1, 3),
       j=st.integers(0, 2**40))
def test_hash64_array_and_draw_array_equal_the_scalars(base, a, nints, j) -> None:
    """``hash64_array`` (mixed in place on one scratch array) and ``draw_array`` give the
    scalar ``hash64`` and ``Stream.next`` of every element."""
    arrs = [np.array(a, dtype=np.int64) + k for k in range(nints)]
    got = hash64_array(base, *arrs)
    want = [hash64(base, *(int(x[i]) for x in arrs)) for i in range(len(a))]
    assert got.tolist() == want
    h = np.array(want, dtype=np.uint64)
    assert draw_array(h, j).tolist() == [mix64(w ^ j) for w in want]
