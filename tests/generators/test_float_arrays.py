"""DOUBLE values as arrays (generators/columns/floating.py): ``round_8g`` gives the bits of
``float(f"{x:.8g}")`` for every row it does not leave out — random doubles over the whole
range and doubles a few ulps from an 8-digit rounding tie or a power of ten — and
``lognormal_8g`` gives the scalar generator's values (``math`` functions, per row) for drawn
stream hashes, including the rows it leaves out. (``_TIE_MARGIN`` itself guards against numpy's
and ``math``'s functions differing by a few ulps at a tie — too rare to draw.)"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generators.columns._common import lognormal_list
from generators.columns.floating import lognormal_8g, round_8g


def _bits(x: np.ndarray) -> list[int]:
    return np.asarray(x, dtype=np.float64).view(np.int64).tolist()


@st.composite
def near_ties(draw) -> float:
    """A double a few ulps from ``(k + 0.5) * 10**e`` (an 8-digit tie) or from ``10**e``."""
    k = draw(st.integers(10**7, 10**8 - 1))
    e = draw(st.integers(-30, 30))
    x = (k + 0.5) * 10.0 ** (e - 7) if draw(st.booleans()) else 10.0 ** e
    for _ in range(draw(st.integers(0, 4))):
        x = math.nextafter(x, math.inf if draw(st.booleans()) else 0.0)
    return x


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(xs=st.lists(st.one_of(st.floats(min_value=5e-324, allow_nan=False, allow_infinity=False), near_ties(),
                             st.floats(min_value=1e-6, max_value=1e12)), min_size=1, max_size=40))
def test_round_8g_equals_the_format(xs: list[float]) -> None:
    v = np.array(xs, dtype=np.float64)
    got, left = round_8g(v)
    want = [float(f"{x:.8g}") for x in xs]
    keep = ~left
    assert _bits(got[keep]) == _bits(np.array(want)[keep])


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 3000), j=st.integers(0, 5))
def test_lognormal_8g_equals_the_scalar_formula(seed: int, n: int, j: int) -> None:
    h = np.random.default_rng(seed).integers(0, 2**64, n, dtype=np.uint64)
    want = [float(f"{x:.8g}") for x in lognormal_list(h, j)]
    assert _bits(lognormal_8g(h, j)) == _bits(np.array(want))


def test_round_8g_rounds_nearly_every_lognormal_value() -> None:
    """The array path is the one taken (few rows left to the scalar formula)."""
    rng = np.random.default_rng(7)
    v = np.exp(3.0 + 1.1 * rng.standard_normal(100_000))
    _, left = round_8g(v)
    assert np.count_nonzero(left) < 100


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(typ=st.sampled_from(["DECIMAL(10,2)", "DECIMAL(14,4)", "DECIMAL(12,6)", "DECIMAL(6,1)", "DECIMAL(9,0)",
                            "DECIMAL(5,2) UNSIGNED", "INT", "SMALLINT UNSIGNED", "DOUBLE", "DOUBLE UNSIGNED"]),
       name=st.sampled_from(["price", "total", "balance"]), seed=st.integers(0, 2**40), n=st.integers(1, 3000))
def test_money_columns_equal_the_scalar_generator(typ: str, name: str, seed: int, n: int) -> None:
    """The log-normal columns (money-named DECIMAL and integers, DOUBLE) made from numpy's
    log-normal with the rows near a cut recomputed (``_lognormal_cut``, ``lognormal_8g``)
    equal the scalar generator value by value, thousands of rows at a time."""
    from binlogwriter.schema import parse_tables
    from generators.values import column_generator, column_vector_generator

    table = parse_tables(f"CREATE TABLE t (k INT PRIMARY KEY, `{name}` {typ} NOT NULL)", "d", "mysql80")[0]
    col = table.columns[1]
    vec = column_vector_generator(table, col, "mysql80", seed)
    one = column_generator(table, col, "mysql80", seed)
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, 2**40, n).astype(np.int64)
    vers = rng.integers(0, 2**40, n).astype(np.int64)
    got = vec(keys, vers)
    got = got if isinstance(got, list) else got.tolist()
    want = [one(int(k), int(v)) for k, v in zip(keys, vers, strict=True)]
    assert [(type(x), repr(x)) for x in got] == [(type(x), repr(x)) for x in want]


@st.composite
def units_near_integers(draw) -> float:
    """A unit ``u`` whose ``-log(1 - u) * mean`` is a few ulps from an integer ``k``."""
    mean = draw(st.sampled_from([1.0, 2.0, 16.0, 200.0, 280.0, 400.0]))
    u = 1.0 - math.exp(-draw(st.integers(0, 5000)) / mean)
    for _ in range(draw(st.integers(0, 4))):
        u = math.nextafter(u, 1.0 if draw(st.booleans()) else 0.0)
    return min(max(u, 0.0), math.nextafter(1.0, 0.0))


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(us=st.lists(st.one_of(st.floats(0.0, 1.0, exclude_max=True), units_near_integers()), min_size=1, max_size=50),
       mean=st.sampled_from([1.0, 2.0, 16.0, 200.0, 280.0, 400.0, 1.7]))
def test_exp_ints_equal_the_scalar_formula(us: list[float], mean: float) -> None:
    """``exp_ints`` (ENUM ranks, text and byte lengths) is ``int(-math.log(1.0 - u) * mean)``."""
    from generators.columns._common import exp_ints

    got = exp_ints(np.array(us, dtype=np.float64), mean).tolist()
    assert got == [int(-math.log(1.0 - u) * mean) for u in us]
