"""Length faces (generators/length_faces.py) equal the lengths of the real values.

* every column a face calls constant encodes, for random keys, versions and births, to
  exactly the length the face gives (the codec's lengths of the values the row function
  makes) — random custom tables of every type family, NULL / NOT NULL, charsets, and the
  ``digits`` / ``const`` / ``int`` generators, on the three flavors;
* ``rows_sizes`` with faces gives the image lengths, shapes and clocks it gives when every
  value is made, batch by batch, on random runs (workloads, flavors, row images, mixes,
  DDL), and raises the same error for a value that does not fit its column.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.errors import ValueEncodeError
from binlogwriter.values.row import column_image_lengths
from generators.api import apply_batch, batch_bounds, ddl_after, do_ddl, make_run, rows_sizes
from generators.length_faces import constant_images, has_constant_length
from generators.spec import Spec, resolve
from spark_gen.writer import SinkWriter

FLAVORS = ("mysql80", "mysql84", "mariadb1011")
TYPES = ("TINYINT", "SMALLINT UNSIGNED", "MEDIUMINT", "INT", "BIGINT UNSIGNED", "FLOAT", "DOUBLE",
         "DECIMAL(10,2)", "DECIMAL(30,9)", "DECIMAL(65,30)", "DATE", "TIME(3)", "DATETIME", "DATETIME(6)",
         "TIMESTAMP(2)", "YEAR", "ENUM('a','bb','ccc')", "SET('x','y','z')", "BIT(5)", "BIT(64)", "CHAR(120)",
         "VARCHAR(300)", "CHAR(20) CHARACTER SET latin1", "VARCHAR(70) CHARACTER SET utf16", "CHAR(60)",
         "TEXT", "BLOB", "JSON", "VARBINARY(20)", "BINARY(16)")
TEXT = ("CHAR(120)", "VARCHAR(300)", "CHAR(20) CHARACTER SET latin1", "VARCHAR(70) CHARACTER SET utf16", "CHAR(60)")


@st.composite
def custom_specs(draw) -> Spec:
    """A one-table custom schema (INT key + random columns) and spec-file generators."""
    n = draw(st.integers(1, 7))
    cols, gens = [], {}
    for j in range(n):
        typ = draw(st.sampled_from(TYPES))
        null = draw(st.sampled_from(["NOT NULL", "NULL"]))
        cols.append(f"c{j} {typ} {null}")
        g = draw(st.integers(0, 4))
        if typ in TEXT and g == 0:
            gens[f"t.c{j}"] = {"gen": "digits", "groups": draw(st.integers(1, 12))}
        elif g == 1 and typ.split("(")[0] in ("CHAR", "VARCHAR"):
            gens[f"t.c{j}"] = {"gen": "const", "value": draw(st.sampled_from(["x", "abc ", "", "dé"]))}
        elif g == 1 and typ in ("INT", "TINYINT", "BIGINT UNSIGNED"):
            gens[f"t.c{j}"] = {"gen": "int", "min": 0, "max": draw(st.integers(0, 100))}
    sql = f"CREATE TABLE t (id INT NOT NULL PRIMARY KEY, {', '.join(cols)})"
    return resolve(Spec.from_dict({"workload": None, "schema_sql": sql, "flavor": draw(st.sampled_from(FLAVORS)),
                                   "transactions": 40, "initial_rows": 10, "seed": draw(st.integers(0, 99)),
                                   "mix": "insert=0.4,update=0.4,delete=0.2", "rows_per_txn": "1-5",
                                   "row_image": draw(st.sampled_from(["FULL", "MINIMAL", "NOBLOB"])),
                                   "columns": gens}))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=custom_specs(), data=st.data())
def test_constant_columns_encode_to_the_face_length(spec: Spec, data) -> None:
    run = make_run(spec, 0)
    rt = run.rows[0]
    descs = tuple(rt.table.column_descs(spec.flavor))
    m = data.draw(st.integers(1, 40), label="rows")
    keys = np.array(data.draw(st.lists(st.integers(0, 10**6), min_size=m, max_size=m), label="keys"), dtype=np.int64)
    gens = data.draw(st.lists(st.integers(0, 3), min_size=m, max_size=m), label="gens")
    ups = data.draw(st.lists(st.integers(0, 50), min_size=m, max_size=m), label="updates")
    vers = np.array([g << 32 | u for g, u in zip(gens, ups, strict=True)], dtype=np.int64)
    cols = rt.compute_columns(keys, vers, np.zeros(m, dtype=np.int64))
    const = constant_images(rt)
    for ci in range(len(descs)):
        one = [j == ci for j in range(len(descs))]
        if not const.covers(one):
            continue
        assert has_constant_length(rt, ci, descs[ci])
        real = column_image_lengths(descs, one, cols, m)
        assert real.tolist() == [const.length(one)] * m, rt.table.columns[ci]
    if const.covers([True] * len(descs)):
        assert column_image_lengths(descs, [True] * len(descs), cols, m).tolist() == \
            [const.length([True] * len(descs))] * m


def test_faces_cover_the_sysbench_tables() -> None:
    """sysbench's columns (INT key, INT k, ``digits`` c and pad) all have a face: pass 1
    makes no value there."""
    for flavor in FLAVORS:
        run = make_run(resolve(Spec.from_dict({"workload": "sysbench", "flavor": flavor, "transactions": 1})))
        for rt in run.rows:
            assert all(constant_images(rt).constant)
    run = make_run(resolve(Spec.from_dict({"workload": "ecommerce", "transactions": 1})))
    assert not all(all(constant_images(rt).constant) for rt in run.rows)  # text columns: values made


def _walk(spec: Spec) -> int:
    """rows_sizes with and without faces, batch by batch; returns the operations seen."""
    run = make_run(spec, 0)
    for rt in run.rows:
        rt.load_initial(run.initial_keys(rt))
    w = SinkWriter(run.fmt, basename=spec.basename, server_id=spec.server_id, start_time=spec.start_time,
                   settings=run.session_settings())
    seen = 0
    for lo, hi in batch_bounds(spec, 0, spec.transactions, size=16):
        ab = apply_batch(run, lo, hi)
        got = rows_sizes(run, ab, w.now)
        want = rows_sizes(run, ab, w.now, faces=False)
        assert got.op_len.tolist() == want.op_len.tolist()
        assert got.op_shape.tolist() == want.op_shape.tolist()
        assert got.shapes == want.shapes
        assert got.clock.tolist() == want.clock.tolist()
        seen += len(ab.txn)
        w.now += int(ab.advance.sum())
        d = ddl_after(spec, hi - 1)
        if d is not None:
            do_ddl(run, w, d)
    return seen


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workload=st.sampled_from(["sysbench", "ecommerce", "alltypes"]), flavor=st.sampled_from(FLAVORS),
       image=st.sampled_from(["FULL", "MINIMAL", "NOBLOB"]), mix=st.sampled_from([None, "insert=0.5,update=0.3,delete=0.2"]),
       ddl=st.sampled_from([0, 7]), seed=st.integers(0, 50))
def test_rows_sizes_with_faces_equal_the_values_lengths(workload, flavor, image, mix, ddl, seed) -> None:
    d = {"workload": workload, "flavor": flavor, "row_image": image, "ddl_every": ddl, "seed": seed,
         "transactions": 50, "initial_rows": 8}
    if mix:
        d.update(mix=mix, rows_per_txn="1-6")
    assert _walk(resolve(Spec.from_dict(d))) > 0


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=custom_specs())
def test_rows_sizes_with_faces_on_custom_tables(spec: Spec) -> None:
    try:
        _walk(spec)
    except ValueEncodeError as exc:  # a value too long for its column: the same error without faces
        run = make_run(spec, 0)
        for rt in run.rows:
            rt.load_initial(run.initial_keys(rt))
        with pytest.raises(ValueEncodeError) as want:
            for lo, hi in batch_bounds(spec, 0, spec.transactions, size=16):
                rows_sizes(run, apply_batch(run, lo, hi), 0, faces=False)
        assert str(want.value) == str(exc)


def test_a_digits_value_too_long_for_its_column_raises_as_without_faces() -> None:
    spec = resolve(Spec.from_dict({"workload": None, "schema_sql": "CREATE TABLE t (id INT PRIMARY KEY, c CHAR(20) NOT NULL)",
                                   "transactions": 5, "initial_rows": 2, "mix": "insert=1",
                                   "columns": {"t.c": {"gen": "digits", "groups": 5}}}))
    run = make_run(spec, 0)
    assert not constant_images(run.rows[0]).constant[1]
    errors = []
    for faces in (True, False):
        run = make_run(spec, 0)
        with pytest.raises(ValueEncodeError) as got:
            rows_sizes(run, apply_batch(run, 0, 5), 0, faces=faces)
        errors.append(str(got.value))
    assert errors[0] == errors[1] and "t" in errors[0]
