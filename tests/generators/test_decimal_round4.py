"""The money DECIMAL twin's rounding (``generators/columns/decimal.py`` ``_round4_units``:
``rint(v * 1e4)`` with values near a half done as Python does them) equals the scalar
generator's ``Decimal(repr(round(v, 4))).scaleb(4)`` for any float: log-normal prices,
exact halves and near-halves of 1e-4, tiny and large values."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generators.columns.decimal import round4_units

FLOATS = st.one_of(st.floats(0, 1e11, exclude_max=True, allow_nan=False),
                   st.integers(0, 10**14).map(lambda u: (u + 0.5) / 1e4),
                   st.integers(0, 10**14).map(lambda u: u / 1e4 + 5e-5),
                   st.floats(-1e6, 1e6, allow_nan=False), st.floats(0, 1e-3))


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(xs=st.lists(FLOATS, max_size=50))
def test_round4_units_equal_python(xs) -> None:
    got = round4_units(np.array(xs, dtype=np.float64))
    assert got is not None
    assert got.tolist() == [int(Decimal(repr(round(v, 4))).scaleb(4)) for v in xs]


def test_round4_refuses_what_it_cannot_tell() -> None:
    assert round4_units(np.array([1e11])) is None
    assert round4_units(np.array([float("inf")])) is None
