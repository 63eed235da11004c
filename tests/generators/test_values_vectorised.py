"""The vectorised value generators (``column_vector_generator``: numpy twins, replayed
draws, edge twins, key twins) give exactly the values of the scalar row function
(``column_generator`` / ``key_generator``) — same Python types, same spellings (a
Decimal's exponent, an aware or naive datetime) — for random columns of every type
family, names that pick the realistic generators, edge mode (alltypes' and --edge-values'
with the integers' whole range), NULL rates, spec-file
overrides, flavors, seeds, keys and versions. And ``mysql_json_text`` prints what the
element-by-element printer prints."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.schema import parse_tables
from binlogwriter.values.json_text import mysql_json_slow
from generators.edge_values import ValueMode
from generators.spec import ColumnGen
from generators.values import (
    column_generator,
    column_vector_generator,
    key_generator,
    mysql_json_text,
)
from generators.workloads.ecommerce import ecommerce

TYPES = ["TINYINT", "SMALLINT UNSIGNED", "MEDIUMINT", "INT", "BIGINT", "BIGINT UNSIGNED", "BIT(5)", "YEAR",
         "DECIMAL(10,2)", "DECIMAL(5,5)", "DECIMAL(18,4) UNSIGNED", "DECIMAL(30,10)", "DECIMAL(65,30)", "DECIMAL(3,0)",
         "FLOAT", "FLOAT UNSIGNED", "DOUBLE", "DOUBLE UNSIGNED",
         "DATE", "DATETIME", "DATETIME(3)", "DATETIME(6)", "TIMESTAMP", "TIMESTAMP(2)", "TIME", "TIME(4)", "TIME(6)",
         "CHAR(3)", "CHAR(20) CHARACTER SET latin1", "VARCHAR(64)", "VARCHAR(10) CHARACTER SET ascii", "TINYTEXT",
         "TEXT", "BINARY(11)", "VARBINARY(40)", "BLOB", "TINYBLOB",
         "ENUM('a','b','c','d','e','f')", "SET('x','y','z')", "SET('one')", "SET('a','b','c','d','e','f','g','h','i','j')",
         "SET('a','b','c','d','e','f','g','h','i','j','k')", "JSON"]
NAMES = ["c", "price", "total", "qty", "stock", "age", "email", "first_name", "city", "country_code", "name",
         "sku", "description", "note", "phone", "url", "status"]


def _same(got: list, want: list) -> None:
    assert [(type(x), repr(x)) for x in got] == [(type(x), repr(x)) for x in want]


@pytest.mark.parametrize("typ", TYPES)
@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(name=st.sampled_from(NAMES), nullable=st.booleans(),
       edge=st.one_of(st.booleans(), st.builds(ValueMode, st.sampled_from([0.0, 0.2, 1.0]), st.booleans())),
       flavor=st.sampled_from(["mysql80", "mariadb1011"]), seed=st.integers(0, 2**40), data=st.data())
def test_vectorised_column_equals_scalar(typ, name, nullable, edge, flavor, seed, data) -> None:
    ddl = f"CREATE TABLE products (k INT NOT NULL PRIMARY KEY, `{name}` {typ} {'NULL' if nullable else 'NOT NULL'})"
    table = parse_tables(ddl, "d", flavor)[0]
    col = table.columns[1]
    null_p = data.draw(st.sampled_from([None, 0.0, 0.5]), label="null_p")
    start = data.draw(st.sampled_from([1767225600, 946684800, 2_000_000_000]), label="start_time")
    vec = column_vector_generator(table, col, flavor, seed, edge=edge, null_p=null_p, start_time=start)
    one = column_generator(table, col, flavor, seed, edge=edge, null_p=null_p, start_time=start)
    n = data.draw(st.integers(1, 60), label="rows")
    keys = np.array(data.draw(st.lists(st.integers(0, 2**40), min_size=n, max_size=n)), dtype=np.int64)
    vers = np.array(data.draw(st.lists(st.integers(0, 2**40), min_size=n, max_size=n)), dtype=np.int64)
    got = vec(keys, vers)
    got = got if isinstance(got, list) else got.tolist()
    _same(got, [one(int(k), int(v)) for k, v in zip(keys, vers, strict=True)])


OVERRIDES = [("INT", ColumnGen("t.c", "int", (("min", -5), ("max", 70)))),
             ("VARCHAR(200)", ColumnGen("t.c", "digits", (("groups", 3),))),
             ("VARCHAR(30)", ColumnGen("t.c", "faker", (("provider", "city"),))),
             ("VARCHAR(30)", ColumnGen("t.c", "choice", (("values", ("a", "bb", "ccc")), ("weights", (1, 2, 0.5))))),
             ("DECIMAL(8,2)", ColumnGen("t.c", "decimal", (("min", 5), ("max", 2000), ("dist", "lognormal")))),
             ("DATETIME(3)", ColumnGen("t.c", "datetime", ())),
             ("TEXT", ColumnGen("t.c", "text", (("min_len", 0), ("max_len", 900)))),
             ("BIGINT", ColumnGen("t.c", "sequence", (("start", 7), ("step", 3)))),
             ("JSON", ColumnGen("t.c", "json", ()))]


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=st.sampled_from(OVERRIDES), seed=st.integers(0, 2**40), flavor=st.sampled_from(["mysql80", "mariadb1011"]),
       keys=st.lists(st.integers(0, 10**6), min_size=1, max_size=40))
def test_vectorised_override_equals_scalar(case, seed, flavor, keys) -> None:
    typ, cg = case
    table = parse_tables(f"CREATE TABLE t (k INT NOT NULL PRIMARY KEY, c {typ} NULL)", "d", flavor)[0]
    col = table.columns[1]
    vec = column_vector_generator(table, col, flavor, seed, override=cg)
    one = column_generator(table, col, flavor, seed, override=cg)
    k = np.array(keys, dtype=np.int64)
    v = (k * 7) % 5
    got = vec(k, v)
    got = got if isinstance(got, list) else got.tolist()
    _same(got, [one(a, b) for a, b in zip(k.tolist(), v.tolist(), strict=True)])


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(typ=st.sampled_from(["VARCHAR(40)", "CHAR(6)", "VARCHAR(255)", "TEXT"]), name=st.sampled_from(["tag", "email"]),
       keys=st.lists(st.integers(0, 10**9), min_size=1, max_size=40))
def test_text_key_twins_equal_scalar(typ, name, keys) -> None:
    table = parse_tables(f"CREATE TABLE t ({name} {typ} NOT NULL)", "d", "mysql80")[0]
    fn = key_generator(table.columns[0], "mysql80", "t", False)
    k = np.array(keys, dtype=np.int64)
    _same(fn.vec(k), [fn(x) for x in keys])


def test_workload_key_twins_equal_scalar() -> None:
    from generators.spec import Spec

    wd = ecommerce(Spec(workload="ecommerce", seed=3, initial_rows=50))
    keys = np.arange(0, 3000, 7, dtype=np.int64)
    seen = 0
    for td in wd.tables:
        for fn in td.key_fns.values():
            got = fn.vec(keys)
            got = got if isinstance(got, list) else got.tolist()
            _same(got, [fn(int(k)) for k in keys])
            seen += 1
    assert seen == 5


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(),
    lambda c: st.lists(c, max_size=4) | st.tuples(c, c) | st.dictionaries(st.text(max_size=5), c, max_size=4),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(v=json_values)
def test_mysql_json_text_equals_the_element_printer(v) -> None:
    assert mysql_json_text(v) == mysql_json_slow(v)
