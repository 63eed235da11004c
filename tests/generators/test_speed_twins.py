"""The numpy twins added for issue #28's speed (generators/columns/decimal.py
``uniform_override_vec``, and the others this module names) give exactly the values of the
scalar row function and exactly its row-image bytes, inside wide tables (60–300 columns),
keyless tables, with multibyte (utf8mb4) text at its columns' maximum length, edge values
and NULLs around them.

Each case builds a table through ``generate --schema``'s own path (``Spec`` → ``Run`` →
``TableRows``), computes rows column by column (``compute_columns``: the twins) and value
by value (``compute_scalar``: the reference), compares them by type and spelling, then
encodes the twins' arrays and the reference's Python values (``encode_column_images``) and
compares the bytes.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.errors import ValueEncodeError
from binlogwriter.values.column_array import ColumnArray
from binlogwriter.values.row import encode_column_images
from generators.columns._vec import ascii_runs, joined_runs
from generators.columns.decimal import units_half_even
from generators.columns.geometry import round6
from generators.edge_values import ValueMode
from generators.engine import Run
from generators.pools import pool
from generators.spec import Spec

# columns around the one under test: every family, multibyte text at its longest
FILLER = ("INT NULL", "BIGINT UNSIGNED", "VARCHAR(12) CHARACTER SET utf8mb4 NULL", "CHAR(4) CHARACTER SET utf8mb4",
          "TEXT CHARACTER SET utf8mb4 NULL", "DECIMAL(10,2) NULL", "DATETIME(6)", "DATE NULL", "TIMESTAMP(3) NULL",
          "TIME(2)", "DOUBLE NULL", "FLOAT", "ENUM('a','bé','c') NULL", "SET('x','y','zé')", "BIT(12)", "YEAR NULL",
          "JSON NULL", "BLOB NULL", "VARBINARY(9)", "TINYINT UNSIGNED")


def _same(got: list, want: list) -> None:
    assert [(type(x), repr(x)) for x in got] == [(type(x), repr(x)) for x in want]


@st.composite
def tables(draw, target: str):
    """(DDL, the target column's index) of a table holding ``target`` (column ``t``) among
    a few or 60–300 filler columns, keyed by an INT or keyless."""
    width = draw(st.one_of(st.integers(0, 6), st.integers(60, 300)), label="filler columns")
    keyless = draw(st.booleans(), label="keyless")
    fillers = [draw(st.sampled_from(FILLER)) for _ in range(width)]
    at = draw(st.integers(0, width), label="target position")
    cols = [f"f{i} {typ}" for i, typ in enumerate(fillers)]
    cols.insert(at, f"t {target}")
    if not keyless:
        cols.insert(0, "id INT NOT NULL PRIMARY KEY")
    return "CREATE TABLE w (\n  " + ",\n  ".join(cols) + "\n) DEFAULT CHARSET=utf8mb4;\n"


def table_rows(ddl: str, seed: int, flavor: str, columns: dict | None = None, edge: float | None = None,
                stress: float | None = None):
    spec = dict(workload=None, schema_sql=ddl, schema_file="w.sql", seed=seed, flavor=flavor)
    if stress is not None:
        spec["charset_stress"] = stress
    if columns:
        spec["columns"] = columns
    if edge is not None:
        spec["edge_values"] = edge
    (rt,) = Run(Spec.from_dict(spec), Path("unused")).rows
    return rt


def check_rows(rt, data, rows: int = 40) -> None:
    """compute_columns equals compute_scalar row by row, and its arrays encode to the bytes
    the Python values encode to (FULL images, both flavors' null padding)."""
    n = data.draw(st.integers(1, rows if len(rt.table.columns) < 20 else 8), label="rows")
    top = data.draw(st.sampled_from([3, 10**9]), label="key range")  # few keys: rows repeat (made once)
    keys = np.array(data.draw(st.lists(st.integers(0, top), min_size=n, max_size=n), label="keys"), dtype=np.int64)
    vers = np.array(data.draw(st.lists(st.integers(0, 60 if top > 3 else 2), min_size=n, max_size=n), label="versions"),
                    dtype=np.int64)
    borns = np.zeros(n, dtype=np.int64)
    cols = rt.compute_columns(keys, vers, borns)
    lists = [c if isinstance(c, list) else c.tolist() for c in cols]
    for r in range(n):
        want = rt.compute_scalar(int(keys[r]), int(vers[r]), 0)
        _same([col[r] for col in lists], list(want))
    descs = tuple(rt.table.column_descs(rt.flavor))
    present = [True] * len(descs)
    pad = -1 if rt.flavor.startswith("mariadb") else 0
    try:
        slow, slow_len = encode_column_images(descs, present, lists, n, pad)
    except ValueEncodeError as exc:  # a value beyond the column (a spec's bounds): the same error
        with pytest.raises(ValueEncodeError) as got:
            encode_column_images(descs, present, cols, n, pad)
        assert str(got.value) == str(exc)
        return
    fast, fast_len = encode_column_images(descs, present, cols, n, pad)
    assert fast_len.tolist() == slow_len.tolist()
    assert bytes(fast) == bytes(slow)


FLAVORS = st.sampled_from(["mysql80", "mariadb1011"])


# -- gen: decimal (a spec file's override; ecommerce's orders.total) ---------------------

DECIMALS = st.sampled_from(["DECIMAL(12,2)", "DECIMAL(12,2) NULL", "DECIMAL(8,0)", "DECIMAL(18,6) UNSIGNED",
                            "DECIMAL(5,5)", "DECIMAL(10,4) NOT NULL"])
BOUNDS = st.one_of(st.tuples(st.integers(0, 10**5), st.integers(0, 10**5)),
                   st.tuples(st.floats(0, 1e3), st.floats(0, 1e3)),
                   st.tuples(st.just(0), st.sampled_from([1e-3, 0.005, 0.015, 0.5, 1]))).map(sorted)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(typ=DECIMALS, bounds=BOUNDS, seed=st.integers(0, 2**40), flavor=FLAVORS,
       null=st.sampled_from([0, 0.3]), data=st.data())
def test_decimal_override_twin_equals_scalar(typ, bounds, seed, flavor, null, data) -> None:
    ddl = data.draw(tables(typ), label="ddl")
    lo, hi = bounds
    rt = table_rows(ddl, seed, flavor, {"w.t": {"gen": "decimal", "min": lo, "max": hi, "null": null}})
    check_rows(rt, data)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**40), flavor=FLAVORS, edge=st.sampled_from([0.0, 0.3, 1.0]), data=st.data())
def test_wide_tables_with_edge_values(seed, flavor, edge, data) -> None:
    """The twins among every filler family under ``--edge-values`` (limits, zero dates,
    empty and longest strings, NULLs)."""
    ddl = data.draw(tables("DECIMAL(12,2) NULL"), label="ddl")
    rt = table_rows(ddl, seed, flavor, {"w.t": {"gen": "decimal", "min": 5, "max": 2000}}, edge)
    check_rows(rt, data, rows=20)


TIES = st.one_of(st.floats(0, 1e9, allow_nan=False),
                 st.tuples(st.integers(0, 10**9), st.integers(0, 6)).map(lambda p: (p[0] + 0.5) / 10 ** p[1]),
                 st.tuples(st.integers(0, 10**9), st.integers(0, 6)).map(lambda p: p[0] / 10 ** p[1] + 5e-7))


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(xs=st.lists(TIES, max_size=40), s=st.integers(0, 6))
def test_units_half_even_equal_python(xs, s) -> None:
    """``_units_half_even`` equals ``Decimal(repr(v))`` quantized half-even, ties included."""
    xs = [x for x in xs if abs(x) * 10 ** s < 2**52]
    got = units_half_even(np.array(xs, dtype=np.float64), s)
    step = Decimal(1).scaleb(-s)
    assert got.tolist() == [int(Decimal(repr(x)).quantize(step, ROUND_HALF_EVEN).scaleb(s)) for x in xs]


def test_decimal_override_is_an_array() -> None:
    """The twin is used (a "dec" array, not the replayed Python values) where it applies,
    and not where it cannot hold every value (a negative minimum: ``-0.00``)."""
    ddl = "CREATE TABLE w (id INT PRIMARY KEY, t DECIMAL(12,2) NOT NULL);"
    keys = np.arange(50, dtype=np.int64)
    rt = table_rows(ddl, 1, "mysql80", {"w.t": {"gen": "decimal", "min": 5, "max": 2000}})
    got = rt.column_at(1, keys, keys)
    assert isinstance(got, ColumnArray) and got.kind == "dec"
    rt = table_rows(ddl, 1, "mysql80", {"w.t": {"gen": "decimal", "min": -5, "max": 2000}})
    assert isinstance(rt.column_at(1, keys, keys), list)


def test_edge_mode_is_drawn() -> None:
    """ValueMode is what --edge-values gives a --schema run (the edge test above uses it)."""
    ddl = "CREATE TABLE w (id INT PRIMARY KEY, t INT NULL);"
    rt = table_rows(ddl, 1, "mysql80", None, 0.5)
    assert isinstance(rt.tdef.edge, ValueMode) and rt.tdef.edge.edge_share == 0.5


# -- short CHAR / VARCHAR: one word (generators/columns/_strings.py ``one_word``) ---------

SHORT_TEXT = st.builds(lambda t, n, cs: f"{t}({n}){cs}", st.sampled_from(["CHAR", "VARCHAR"]), st.integers(1, 11),
                       st.sampled_from(["", " CHARACTER SET utf8mb4", " CHARACTER SET latin1", " CHARACTER SET ascii",
                                        " CHARACTER SET ucs2", " CHARACTER SET utf32", " CHARACTER SET gbk",
                                        " CHARACTER SET utf8mb3"]))


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(typ=SHORT_TEXT, null=st.sampled_from(["", " NULL", " NOT NULL"]), seed=st.integers(0, 2**40), flavor=FLAVORS,
       edge=st.sampled_from([None, 0.0, 0.5]), stress=st.sampled_from([None, 0.0, 0.3, 1.0]), data=st.data())
def test_one_word_text_twin_equals_scalar(typ, null, seed, flavor, edge, stress, data) -> None:
    ddl = data.draw(tables(typ + null), label="ddl")
    rt = table_rows(ddl, seed, flavor, None, edge, stress)
    check_rows(rt, data)


def test_one_word_text_is_a_pool() -> None:
    ddl = "CREATE TABLE w (id INT PRIMARY KEY, t CHAR(8) CHARACTER SET utf8mb4 NOT NULL, u VARCHAR(12) NOT NULL);"
    keys = np.arange(50, dtype=np.int64)
    rt = table_rows(ddl, 1, "mysql80")
    got = rt.column_at(1, keys, keys)
    assert isinstance(got, ColumnArray) and got.kind == "pool"
    two = rt.column_at(2, keys, keys)  # two words or more: not a pool (texts as byte runs)
    assert isinstance(two, ColumnArray) and (two.kind == "runs" or two.kind == "edged" and two.meta[1].kind == "runs")


# -- spatial columns (generators/columns/geometry.py ``_wkb_many``) ----------------------

GEOMETRIES = st.sampled_from(["POINT", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON",
                              "GEOMETRYCOLLECTION", "GEOMETRY"])


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(typ=GEOMETRIES, null=st.sampled_from([" NULL", " NOT NULL"]), seed=st.integers(0, 2**40), flavor=FLAVORS,
       edge=st.sampled_from([None, 0.0, 0.5]), data=st.data())
def test_geometry_many_equals_scalar(typ, null, seed, flavor, edge, data) -> None:
    ddl = data.draw(tables(typ + null), label="ddl")
    rt = table_rows(ddl, seed, flavor, None, edge)
    check_rows(rt, data)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(xs=st.lists(st.one_of(st.floats(-200, 200, allow_nan=False),
                             st.tuples(st.integers(-180_000_000, 180_000_000), st.sampled_from([0.5, 0.4999999, 0.5000001]))
                             .map(lambda p: (p[0] + p[1]) / 1e6)), max_size=40))
def test_round6_equals_python(xs) -> None:
    assert round6(np.array(xs, dtype=np.float64)).tolist() == [round(x, 6) for x in xs]


# -- paragraph text (generators/columns/_vec.py ``_joined_runs``, long entries) -------------

@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(rows=st.lists(st.tuples(st.lists(st.integers(0, 1023), max_size=18), st.integers(0, 3000)), max_size=30))
def test_joined_paragraphs_equal_the_join(rows) -> None:
    """Rows grouped by their count of picks give each row's own join, cut to its length."""
    runs = ascii_runs(pool("paragraph"))
    assert runs is not None and runs.long
    picks = np.full((len(rows), 18), -1, dtype=np.int64)
    for r, (p, _) in enumerate(rows):
        picks[r, :len(p)] = p
    cut = np.array([c for _, c in rows], dtype=np.int64)
    ent = runs.entries
    assert joined_runs(runs, picks, cut) == [" ".join(ent[x] for x in p)[:c] for p, c in rows]


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(typ=st.sampled_from(["TEXT CHARACTER SET utf8mb4", "TINYTEXT", "MEDIUMTEXT NULL", "VARCHAR(700)"]),
       name=st.sampled_from(["t", "description"]), seed=st.integers(0, 2**40), flavor=FLAVORS,
       stress=st.sampled_from([None, 0.0, 1.0]), data=st.data())
def test_paragraph_columns_equal_scalar(typ, name, seed, flavor, stress, data) -> None:
    ddl = data.draw(tables(typ), label="ddl").replace("  t ", f"  {name} ", 1)
    rt = table_rows(ddl, seed, flavor, None, None, stress)
    check_rows(rt, data)
