"""``snapshot.sql``'s literals made column by column (generators/columns/__init__.py
``column_sql_literals``: a value pool's entries once each, the families' ``sql_literals``
from the arrays) are exactly :func:`generators.columns.sql_literal` of each value; and the
INSERTs ``snapshot_inserts`` writes from blocks of columns are the ones made row by row from
the scalar row function. Drawn over every type family, wide tables (60–300, 1,000+ columns),
keyless ones, multibyte (utf8mb4) text at its longest, edge values and NULLs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generators.columns import column_sql_literals, sql_literal
from generators.engine import Run
from generators.run_snapshot import qi
from generators.spec import Spec

TYPES = ("INT NULL", "BIGINT UNSIGNED", "TINYINT", "VARCHAR(12) CHARACTER SET utf8mb4 NULL",
         "CHAR(4) CHARACTER SET utf8mb4", "TEXT CHARACTER SET utf8mb4 NULL", "DECIMAL(10,2) NULL", "DECIMAL(30,8)",
         "DATETIME(6)", "DATETIME NULL", "DATE NULL", "TIMESTAMP(3) NULL", "TIME(2)", "TIME NULL", "DOUBLE NULL",
         "FLOAT", "ENUM('a','bé','c') NULL", "SET('x','y','zé')", "SET(" + ",".join(f"'m{i}'" for i in range(20)) + ")",
         "BIT(12)", "YEAR NULL", "JSON NULL", "JSON", "BLOB NULL", "VARBINARY(9)", "BINARY(3)", "POINT NULL",
         "GEOMETRY")

FLAVORS = st.sampled_from(["mysql80", "mariadb1011"])


@st.composite
def tables(draw) -> str:
    """A CREATE TABLE of a few, 60–300 or over 1,000 columns of any family, keyed by an INT or
    keyless."""
    width = draw(st.one_of(st.integers(1, 8), st.integers(60, 300), st.integers(1000, 1030)), label="columns")
    cols = [f"c{i} {draw(st.sampled_from(TYPES))}" for i in range(width)]
    if not draw(st.booleans(), label="keyless"):
        cols.insert(0, "id INT NOT NULL PRIMARY KEY")
    return "CREATE TABLE w (\n  " + ",\n  ".join(cols) + "\n) DEFAULT CHARSET=utf8mb4;\n"


def _rows(draw, flavor: str):
    ddl = draw(tables())
    spec = dict(workload=None, schema_sql=ddl, schema_file="w.sql", seed=draw(st.integers(0, 2**31), label="seed"),
                flavor=flavor, initial_rows=draw(st.integers(0, 250), label="initial rows"))
    edge = draw(st.sampled_from([None, 0.3, 1.0]), label="edge values")
    if edge is not None:
        spec["edge_values"] = edge
    stress = draw(st.sampled_from([None, 0.5]), label="charset stress")
    if stress is not None:
        spec["charset_stress"] = stress
    (rt,) = Run(Spec.from_dict(spec), Path("unused")).rows
    return rt


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data(), FLAVORS)
def test_column_literals_are_sql_literal_of_each_value(data, flavor: str) -> None:
    rt = _rows(data.draw, flavor)
    n = data.draw(st.integers(1, 300 if len(rt.table.columns) < 20 else 40), label="rows")
    top = data.draw(st.sampled_from([3, 10**6]), label="key range")  # few keys: pooled values repeat
    keys = np.array(data.draw(st.lists(st.integers(0, top), min_size=n, max_size=n), label="keys"), dtype=np.int64)
    vers = np.array(data.draw(st.lists(st.integers(0, 40), min_size=n, max_size=n), label="versions"), dtype=np.int64)
    cols = rt.compute_columns(keys, vers, np.zeros(n, dtype=np.int64))
    for col, vs in zip(rt.table.columns, cols, strict=True):
        vals = vs if isinstance(vs, list) else vs.tolist()
        assert column_sql_literals(col, vs, flavor) == [sql_literal(col, v, flavor) for v in vals], col.name


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data(), FLAVORS)
def test_snapshot_inserts_are_the_rows_made_one_by_one(data, flavor: str) -> None:
    """``snapshot_inserts`` (blocks of columns) against INSERTs of 100 rows built here from
    ``compute_scalar`` and ``sql_literal``, value by value."""
    rt = _rows(data.draw, flavor)
    run = Run.__new__(Run)  # only snapshot_inserts' own state: the spec
    run.spec = rt.spec
    most = 450 if len(rt.table.columns) < 500 else 120  # a 1,000-column table: still more than one INSERT
    keys = sorted(set(data.draw(st.lists(st.integers(0, 5000), max_size=most), label="initial keys")))
    t = rt.table
    head = f"INSERT INTO {qi(t.database)}.{qi(t.name)} ({', '.join(qi(c.name) for c in t.columns)}) VALUES\n"
    want = []
    for s in range(0, len(keys), 100):
        rows = [rt.compute_scalar(k, 0, 0) for k in keys[s:s + 100]]
        vals = ",\n".join("(" + ", ".join(sql_literal(c, v, flavor) for c, v in zip(t.columns, r, strict=True)) + ")"
                          for r in rows)
        want.append(head + vals + ";\n")
    assert list(run.snapshot_inserts(rt, keys)) == want
