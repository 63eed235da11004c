"""FLOAT(M,D) / DOUBLE(M,D) columns (the deprecated fixed-point display form, generators/columns/
floating.py ``_fixed_gen``): every value generated — drawn, edge or key — is one the column holds
as given (at most D decimals, within ±(10^M - 1) / 10^D, FLOAT values exact in float32, none
negative when UNSIGNED), so the server's rounding of snapshot.sql's INSERTs leaves what the row
events carry (a DOUBLE(M,D) value is what that rounding gives back: not always the double
nearest its decimals, which a keyless table's UPDATE would then not find); and the array twin gives the scalar generator's values, in tables of a few or
60–300 columns, keyed or keyless. The replay into MariaDB is
tests/conformance/test_real_world_schemas.py ``float-double-m-d``."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.values.column_array import ColumnArray
from tests.generators.test_speed_twins import FLAVORS, check_rows, table_rows, tables

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


@st.composite
def fixed_type(draw) -> tuple[str, str, int, int, bool]:
    typ = draw(st.sampled_from(["FLOAT", "DOUBLE", "REAL", "DOUBLE PRECISION"]))
    m = draw(st.one_of(st.integers(1, 12), st.integers(13, 40)) if typ == "FLOAT" else
             st.one_of(st.integers(1, 16), st.integers(17, 60)))
    d = draw(st.integers(0, min(m, 30)))
    unsigned = draw(st.booleans())
    return f"{typ}({m},{d}){' UNSIGNED' if unsigned else ''}", "FLOAT" if typ == "FLOAT" else "DOUBLE", m, d, unsigned


def _server_round(v: float, d: int) -> float:
    """What MySQL / MariaDB store for a double given to a FLOAT(M,D) / DOUBLE(M,D) column
    (``Field_real::truncate``: the whole part, plus the fraction rounded to ``d`` decimals,
    in double arithmetic)."""
    whole = math.floor(v)
    return whole + float(np.rint((v - whole) * 10.0 ** d)) / 10.0 ** d


def _held(v: float, kind: str, m: int, d: int, unsigned: bool) -> bool:
    """The column holds ``v`` as given: the server's rounding gives ``v`` back (and a FLOAT
    value's text, what snapshot.sql writes, has at most ``d`` decimals, exact in float32),
    within the column's range."""
    text = Decimal(repr(v))
    if kind == "FLOAT" and float(np.float32(v)) != v:
        return False
    with localcontext() as ctx:
        ctx.prec = 400
        rounded = text == round(text, d) if kind == "FLOAT" or m - d > 15 else _server_round(v, d) == v
        return (abs(round(text, d)) <= (Decimal(10) ** m - 1) / Decimal(10) ** d and rounded
                and not (unsigned and v < 0))


@SETTINGS
@given(t=fixed_type(), null=st.sampled_from(["", " NULL", " NOT NULL"]), seed=st.integers(0, 2**40), flavor=FLAVORS,
       edge=st.sampled_from([None, 0.0, 0.5]), data=st.data())
def test_fixed_values_are_held_and_twins_agree(t, null, seed, flavor, edge, data) -> None:
    sql, kind, m, d, unsigned = t
    ddl = data.draw(tables(sql + null), label="ddl")
    rt = table_rows(ddl, seed, flavor, None, edge)
    check_rows(rt, data)
    at = [c.name for c in rt.table.columns].index("t")
    keys = np.arange(400, dtype=np.int64)
    vers = np.array(data.draw(st.lists(st.integers(0, 5), min_size=400, max_size=400)), dtype=np.int64)
    col = rt.compute_columns(keys, vers, np.zeros(400, dtype=np.int64))[at]
    vals = col.tolist() if isinstance(col, ColumnArray) else col
    bad = [v for v in vals if v is not None and not _held(v, kind, m, d, unsigned)]
    assert not bad, (sql, bad[:5])


def test_fixed_key_column_is_held() -> None:
    rt = table_rows("CREATE TABLE w (t DOUBLE(4,2) NOT NULL PRIMARY KEY, x INT);", 1, "mysql80")
    from generators.columns.floating import key_capacity

    assert key_capacity(rt.table.columns[0], "mysql80") == 99  # keys 0..98 give 1.0..99.0
    keys = np.arange(99, dtype=np.int64)
    vals = rt.compute_columns(keys, keys * 0, keys * 0)[0]
    vals = vals.tolist() if isinstance(vals, ColumnArray) else vals
    assert all(_held(v, "DOUBLE", 4, 2, False) for v in vals)
