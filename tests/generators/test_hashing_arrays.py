"""``mix64_into`` (generators/hashing.py: mix64 in place, on a scratch array) equals
``mix64_array`` and the scalar ``mix64`` element by element, for any uint64 values."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from generators.hashing import mix64, mix64_array, mix64_into


@settings(max_examples=100, deadline=None)
@given(vals=st.lists(st.integers(0, 2**64 - 1), max_size=60), cols=st.integers(1, 3))
def test_mix64_into_equals_mix64(vals, cols) -> None:
    z = np.array(vals * cols, dtype=np.uint64).reshape(cols, -1).T.copy()
    want = mix64_array(z)
    got = mix64_into(z.copy(), np.empty_like(z))
    assert np.array_equal(got, want)
    assert got.ravel().tolist() == [mix64(int(v)) for v in z.ravel().tolist()]
