"""The typed change-stream truth of text byte runs and of "edged" columns (a base array with a
few edge values among it) built from the arrays (generators/changes_arrow.py ``typed_array``:
``typed_runs``, ``merge_edged``) equals the value-by-value path it stands in for
(``typed_values`` of the Python values): same Arrow array, same canonical texts of the values
the type cannot hold (zero dates), same Parquet bytes.

Drawn: the generator's own columns (``compute_columns``) of every family in tables of a few or
60–300 columns, keyed or keyless, both flavors, with and without edge values and multilingual
(charset-stress) values; and hand-made runs: multibyte UTF-8, runs that overlap or repeat,
NULL rows whose run still has bytes, and bytes that are not UTF-8 (declined).
"""

from __future__ import annotations

import datetime as dt
import io
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.schema import parse_tables
from binlogwriter.values import MysqlDateTime
from binlogwriter.values.column_array import ColumnArray
from generators.arrow_typed import typed_runs
from generators.changes_arrow import column_arrow_type, typed_array, typed_values
from tests.generators.test_speed_twins import FILLER, FLAVORS, table_rows, tables

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))

TARGETS = st.sampled_from([
    "VARCHAR(40) CHARACTER SET utf8mb4 NULL", "VARCHAR(300) CHARACTER SET latin1", "VARCHAR(25) CHARACTER SET ucs2",
    "TEXT CHARACTER SET utf8mb4", "TINYTEXT NULL", "CHAR(10) CHARACTER SET utf8mb4 NULL", "DATETIME(3) NULL",
    "DATETIME", "TIMESTAMP(6)", "DATE NULL", "TIME(4) NULL", "DECIMAL(30,10)", "DECIMAL(65,30) NULL",
    "DECIMAL(8,0)", "INT", "BIGINT UNSIGNED NULL", "TINYINT", "YEAR", "ENUM('a','bé','') NULL",
    "SET('x','y','zé')", "JSON NULL", "BLOB", "BINARY(6) NULL", "BIT(64)", "FLOAT NULL", "DOUBLE",
])


def _parquet(arr: pa.Array) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table({"c": arr}), buf)
    return buf.getvalue()


def _same(col: Any, flavor: str, values: ColumnArray) -> None:
    got, got_texts = typed_array(col, flavor, values)
    want, want_texts = typed_values(col, flavor, values.tolist())
    assert got.type == want.type, (col.name, col.type)
    assert got.equals(want), (col.name, col.type, got.to_pylist()[:4], want.to_pylist()[:4])
    assert got_texts == want_texts, (col.name, col.type)
    assert _parquet(got) == _parquet(want)


@SETTINGS
@given(target=TARGETS, seed=st.integers(0, 2**40), flavor=FLAVORS, edge=st.sampled_from([None, 0.3, 1.0]),
       stress=st.sampled_from([None, 0.0, 0.3, 1.0]), data=st.data())
def test_generated_columns_type_as_their_values(target, seed, flavor, edge, stress, data) -> None:
    """Every column the generator makes for many rows types as its Python values do."""
    ddl = data.draw(tables(target), label="ddl")
    rt = table_rows(ddl, seed, flavor, None, edge, stress)
    n = data.draw(st.integers(1, 60), label="rows")
    keys = np.array(data.draw(st.lists(st.integers(0, 10**9), min_size=n, max_size=n), label="keys"), dtype=np.int64)
    vers = np.array(data.draw(st.lists(st.integers(0, 60), min_size=n, max_size=n), label="versions"), dtype=np.int64)
    cols = rt.compute_columns(keys, vers, np.zeros(n, dtype=np.int64))
    for col, values in zip(rt.table.columns, cols, strict=True):
        if isinstance(values, ColumnArray):
            _same(col, flavor, values)


TEXTS = st.one_of(st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12),
                  st.builds(lambda t, k: t + " " * k, st.text(max_size=4), st.integers(1, 3)))  # trailing spaces


@SETTINGS
@given(texts=st.lists(TEXTS, min_size=1, max_size=8), picks=st.lists(st.integers(0, 7), min_size=0, max_size=30),
       nulls=st.one_of(st.none(), st.lists(st.booleans(), min_size=30, max_size=30)),
       target=st.sampled_from(["VARCHAR(50) CHARACTER SET utf8mb4", "TEXT", "ENUM('x')", "CHAR(20) CHARACTER SET utf8mb4"]),
       edges=st.lists(st.one_of(TEXTS, st.just("")), max_size=3), data=st.data())
def test_runs_and_edges_type_as_their_texts(texts, picks, nulls, target, edges, data) -> None:
    """Hand-made runs (multibyte, repeated, overlapping, NULL rows that still point at bytes),
    alone and as the base of an edged column, type as the texts they hold."""
    buf = "".join(texts).encode()
    bounds = np.cumsum([0] + [len(t.encode()) for t in texts])
    runs = np.array([(bounds[p % len(texts)], bounds[p % len(texts) + 1] - bounds[p % len(texts)]) for p in picks],
                    dtype=np.int64).reshape(-1, 2)
    mask = None if nulls is None else np.array(nulls[:len(picks)], dtype=np.bool_)
    col = parse_tables(f"CREATE TABLE t (c {target} NULL)", "db", "mysql80")[0].columns[0]
    values = ColumnArray("runs", runs, mask, meta=np.frombuffer(buf, dtype=np.uint8))
    _same(col, "mysql80", values)
    if edges and len(picks):
        pick = np.array(data.draw(st.lists(st.integers(-1, len(edges) - 1), min_size=len(picks), max_size=len(picks))),
                        dtype=np.int64)
        base = ColumnArray("runs", runs, None, meta=np.frombuffer(buf, dtype=np.uint8))
        _same(col, "mysql80", ColumnArray("edged", pick, mask, meta=(tuple(edges), base)))


def test_edged_zero_dates_keep_their_texts() -> None:
    """Edges the type cannot hold (a zero date) keep their canonical text on the rows that
    hold them, NULL rows hold none; the base's rows type as their units."""
    col = parse_tables("CREATE TABLE t (d DATETIME(2) NULL)", "db", "mysql80")[0].columns[0]
    base = ColumnArray("dt", np.array([0, 10**12, 5 * 10**15, 7, 9], dtype=np.int64))
    edges = (MysqlDateTime(0, 0, 0, 0, 0, 0, 0), dt.datetime(2024, 2, 29, 12, 0, 0, 990000))
    values = ColumnArray("edged", np.array([-1, 0, 0, -1, 1]), np.array([False, False, True, False, False]),
                         meta=(edges, base))
    _same(col, "mysql80", values)
    _, texts = typed_array(col, "mysql80", values)
    assert list(texts) == [1]


def test_runs_decline_what_is_not_utf8() -> None:
    typ = column_arrow_type(parse_tables("CREATE TABLE t (c TEXT)", "db", "mysql80")[0].columns[0], "mysql80")
    bad = ColumnArray("runs", np.array([[0, 2]], dtype=np.int64), None, meta=np.array([0xC3, 0x28], dtype=np.uint8))
    assert typed_runs(typ, bad) is None
    good = ColumnArray("runs", np.array([[0, 2], [0, 0]], dtype=np.int64), None,
                       meta=np.array([0xC3, 0xA9], dtype=np.uint8))
    assert typed_runs(typ, good).to_pylist() == ["é", ""]


@pytest.mark.parametrize("flavor", ["mysql80", "mariadb1011"])
def test_a_thousand_column_table_types_as_its_values(flavor: str) -> None:
    """A 1,000-column keyless table of every filler type, with edge and multilingual values:
    each column types as its Python values."""
    cols = ",\n  ".join(f"c{i} {FILLER[i % len(FILLER)]}" for i in range(1000))
    rt = table_rows(f"CREATE TABLE w (\n  {cols}\n) DEFAULT CHARSET=utf8mb4;\n", 11, flavor, None, 0.5, 0.5)
    keys = np.arange(12, dtype=np.int64)
    for col, values in zip(rt.table.columns, rt.compute_columns(keys, keys % 4, keys * 0), strict=True):
        if isinstance(values, ColumnArray):
            _same(col, flavor, values)
