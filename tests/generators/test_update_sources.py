"""The vectorised row function's walk over a row's updates (``TableRows.sources`` /
``assigned_pairs``, generators/rows.py) and the unchanged-UPDATE rule built on it
(``generators.noop.unchanged_updates``) against the scalar reference (``compute_scalar`` and
``update_columns``: one row at a time, column sets, no matrix), over drawn schemas: wide
tables (60-300 columns, ≥ 1,000 now and then), utf8mb4 text under charset stress, edge
values, keyless tables, a ``--ddl-every`` column added mid-stream (rows born before it hold
NULL), NULLs, and the built-in workloads' update groups (ecommerce, alltypes) and counted
table (sysbench)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generators.engine import Run
from generators.noop import same_value, unchanged_updates
from generators.run_ddl import DDL_TYPES
from generators.spec import Spec

_TYPES = ("INT NULL", "BIGINT UNSIGNED NOT NULL", "VARCHAR(30) CHARACTER SET utf8mb4 NULL", "DECIMAL(8,2) NULL",
          "DATETIME(6) NOT NULL", "TEXT CHARACTER SET utf8mb4", "DOUBLE NULL", "BLOB", "DATE NULL",
          "ENUM('a','b','c') NOT NULL", "SET('x','y','z') NULL", "JSON NULL", "CHAR(3) CHARACTER SET utf8mb3 NULL",
          "BIT(5) NULL", "TIME(2) NULL", "TINYINT NOT NULL", "BOOLEAN NOT NULL", "ENUM('only') NOT NULL")


@st.composite
def _case(draw: Any) -> dict[str, Any]:
    kind = draw(st.sampled_from(["schema", "schema", "schema", "ecommerce", "alltypes", "sysbench"]), label="kind")
    spec: dict[str, Any] = dict(seed=draw(st.integers(0, 2**31)), initial_rows=5,
                                flavor=draw(st.sampled_from(["mysql80", "mariadb1011"])))
    if draw(st.booleans(), label="edge values"):
        spec["edge_values"] = draw(st.sampled_from([0.05, 0.3, 1.0]))
    spec["charset_stress"] = draw(st.sampled_from([0.0, 0.1, 1.0]))
    if kind != "schema":
        return dict(spec, workload=kind)
    width = draw(st.one_of(st.integers(1, 12), st.integers(60, 300), st.just(1000)), label="columns")
    key = draw(st.sampled_from(["pk", "none", "composite"]), label="key")
    start = draw(st.integers(0, len(_TYPES) - 1))
    cols = ", ".join(f"c{i} {_TYPES[(start + i) % len(_TYPES)]}" for i in range(width))
    pk = {"pk": "id INT NOT NULL PRIMARY KEY, ", "none": "",
          "composite": "a SMALLINT NOT NULL, b VARCHAR(8) NOT NULL, "}[key]
    tail = ", PRIMARY KEY (a, b)" if key == "composite" else ""
    ddl = f"CREATE TABLE t ({pk}{cols}{tail}) DEFAULT CHARSET=utf8mb4;\n"
    return dict(spec, workload=None, schema_sql=ddl, schema_file="s.sql")


def _rows(case: dict[str, Any], data: Any) -> Any:
    run = Run(Spec.from_dict(case), Path("unused"))
    rt = run.rows[data.draw(st.integers(0, len(run.rows) - 1), label="table")]
    if case.get("workload") is None and data.draw(st.booleans(), label="ddl column"):
        rt.add_column("ddl_1", DDL_TYPES[data.draw(st.integers(0, len(DDL_TYPES) - 1))], 3)
    return rt


def _draws(data: Any, wide: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="rng"))
    n = data.draw(st.integers(1, 12 if wide else 80), label="rows")
    keys = rng.integers(0, 300, n).astype(np.int64)
    vers = (rng.integers(0, 3, n).astype(np.int64) << 32) | rng.integers(0, 60, n).astype(np.int64)
    born = rng.integers(0, 6, n).astype(np.int64)
    return keys, vers, born


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=_case(), data=st.data())
def test_vectorised_rows_and_update_sets_equal_the_scalar_rows(case: dict[str, Any], data: Any) -> None:
    rt = _rows(case, data)
    keys, vers, born = _draws(data, rt.ncols > 300)
    cols = rt.compute_columns(keys, vers, born)
    lists = [c if isinstance(c, list) else c.tolist() for c in cols]
    for r, (k, v, b) in enumerate(zip(keys.tolist(), vers.tolist(), born.tolist(), strict=True)):
        assert tuple(c[r] for c in lists) == rt.compute_scalar(k, v, b), (k, v, b)
    if rt.counted is None:
        rows, pos = rt.assigned_pairs(keys, vers)
        pairs = list(zip(rows.tolist(), pos.tolist(), strict=True))
        assert len(pairs) == len(set(pairs))
        want = {(r, rt.mpos[c]) for r, (k, v) in enumerate(zip(keys.tolist(), vers.tolist(), strict=True))
                for c in rt.update_columns(k, v)}
        assert set(pairs) == want


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=_case(), data=st.data())
def test_unchanged_updates_equal_comparing_the_scalar_rows(case: dict[str, Any], data: Any) -> None:
    """The UPDATE from ``vb`` to ``va = vb + 1`` leaves its row unchanged exactly when the
    scalar rows at both versions are the same record (every column, assigned or not)."""
    rt = _rows(case, data)
    keys, vb, born = _draws(data, rt.ncols > 300)
    va = vb + (1 << 16 if rt.counted is not None and data.draw(st.booleans()) else 1)
    got = unchanged_updates(rt, keys, vb, va, born)
    want = [all(same_value(c, x, y) for c, x, y in zip(rt.table.columns, rt.compute_scalar(k, b, n),
                                                          rt.compute_scalar(k, a, n), strict=True))
            for k, b, a, n in zip(keys.tolist(), vb.tolist(), va.tolist(), born.tolist(), strict=True)]
    assert got.tolist() == want


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=_case(), data=st.data())
def test_rows_sharing_key_and_version_equal_the_scalar_rows(case: dict[str, Any], data: Any) -> None:
    """Rows that repeat a (key, version) or follow one another (an UPDATE's before and after
    rows: version and version + 1; a chain of them; a row asked twice) — the rows whose
    columns ``TableRows._column_once`` makes once and shares — equal the scalar rows."""
    rt = _rows(case, data)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="rng"))
    m = data.draw(st.integers(1, 6 if rt.ncols > 300 else 30), label="chains")
    keys = rng.integers(0, 50, m).astype(np.int64)
    start = (rng.integers(0, 3, m).astype(np.int64) << 32) | rng.integers(0, 40, m).astype(np.int64)
    born = rng.integers(0, 6, m).astype(np.int64)
    steps = rng.integers(1, 4, m)
    rows = [(k, v + d, b) for k, v, b, s in zip(keys.tolist(), start.tolist(), born.tolist(), steps.tolist(),
                                                 strict=True) for d in range(s)]
    rows += [rows[j] for j in rng.integers(0, len(rows), len(rows) // 3).tolist()]  # asked twice
    rows = [rows[j] for j in rng.permutation(len(rows)).tolist()]
    k, v, b = (np.array(x, dtype=np.int64) for x in zip(*rows, strict=True))
    lists = [c if isinstance(c, list) else c.tolist() for c in rt.compute_columns(k, v, b)]
    for r, row in enumerate(rows):
        assert tuple(c[r] for c in lists) == rt.compute_scalar(*row), row
