"""The rows a partitioned table takes (generators/partitions.py ``partition_checks``): the
condition read from each partitioning clause as MySQL 8.0 / 8.4 and MariaDB 10.11 write it
(versioned comments, LINEAR, SUBPARTITION BY, MAXVALUE bare or in parentheses, NULL in a
list), and the generated rows of a keyless table meeting it. The replay into MariaDB is
tests/conformance/test_real_world_schemas.py (``partition-*``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.schema import parse_tables
from generators.partitions import PARTITIONING, partition_checks
from tests.generators.test_speed_twins import table_rows

CASES = [
    ("PARTITION BY HASH (a) PARTITIONS 4", None),
    ("PARTITION BY LINEAR KEY (a) PARTITIONS 3", None),
    ("PARTITION BY RANGE (a) (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN MAXVALUE)", None),
    ("PARTITION BY RANGE COLUMNS (a, b) (PARTITION p0 VALUES LESS THAN (10, 5), "
     "PARTITION p1 VALUES LESS THAN (MAXVALUE, MAXVALUE))", None),
    ("PARTITION BY RANGE (a) (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (20))", "a < 20"),
    ("/*!50100 PARTITION BY RANGE (`a`) SUBPARTITION BY HASH (a) SUBPARTITIONS 2 "
     "(PARTITION p0 VALUES LESS THAN (7) ENGINE = InnoDB) */", "`a` < 7"),
    ("PARTITION BY RANGE COLUMNS (s) (PARTITION p0 VALUES LESS THAN ('m'))", "s < 'm'"),
    ("PARTITION BY LIST (a) (PARTITION p0 VALUES IN (1, 2), PARTITION p1 VALUES IN (3))",
     "a IS NOT NULL AND a IN (1, 2, 3)"),
    ("PARTITION BY LIST (a) (PARTITION p0 VALUES IN (NULL, 2), PARTITION p1 VALUES IN (3))",
     "a IN (2, 3) OR a IS NULL"),
    ("PARTITION BY LIST COLUMNS (s) (PARTITION p0 VALUES IN ('it''s', 'b'))", "s IS NOT NULL AND s IN ('it''s', 'b')"),
]


# the bounds from the MySQL 8.0 reference's examples: TO_DAYS('2007-10-07') = 733321,
# TO_SECONDS('2009-11-29') = 63426672000, TO_SECONDS('2009-11-29 13:43:32') = 63426721412,
# and UNIX_TIMESTAMP of 2000-01-01 00:00:00 UTC is 946684800
TIME_CASES = [
    ("YEAR(d)", "2030", "`d` < '2030-01-01'"),
    ("YEAR(dt)", "2030", "`dt` < '2030-01-01 00:00:00'"),
    ("TO_DAYS(d)", "733321", "`d` < '2007-10-07'"),
    ("TO_DAYS(dt)", "733321", "`dt` < '2007-10-07 00:00:00'"),
    ("TO_SECONDS(dt)", "63426672000", "`dt` < '2009-11-29 00:00:00'"),
    ("TO_SECONDS(dt)", "63426721412", "`dt` < '2009-11-29 13:43:32'"),
    ("TO_SECONDS(d)", "63426721412", "`d` < '2009-11-30'"),  # the first DATE reaching it
    ("UNIX_TIMESTAMP(ts)", "946684800", "`ts` < '2000-01-01 00:00:00'"),
    ("MONTH(d)", "7", "MONTH ( d ) < 7"),  # not growing with time: left to the CHECK rules (refused there)
]


@pytest.mark.parametrize(("expr", "bound", "want"), TIME_CASES)
def test_range_of_a_time_function_is_the_column_below_an_instant(expr: str, bound: str, want: str) -> None:
    sql = (f"CREATE TABLE t (id INT, d DATE, dt DATETIME(6), ts TIMESTAMP NULL) PARTITION BY RANGE ({expr}) "
           f"(PARTITION p0 VALUES LESS THAN (100), PARTITION p1 VALUES LESS THAN ({bound}))")
    (t,) = parse_tables(sql, "db", "mysql80")
    (check,) = partition_checks(t, sql)
    assert check.name == PARTITIONING and check.sql == want


@pytest.mark.parametrize(("clause", "want"), CASES)
def test_conditions_read_from_the_clause(clause: str, want: str | None) -> None:
    sql = f"CREATE TABLE t (a INT, b INT, s VARCHAR(5), c INT) {clause}"
    (t,) = parse_tables(sql, "db", "mysql80")
    got = partition_checks(t, sql)
    assert [(c.name, c.sql, c.column) for c in got] == ([] if want is None else [(PARTITIONING, want, None)])


def test_several_list_columns_are_refused_in_one_line() -> None:
    from binlogwriter.errors import SchemaError

    sql = "CREATE TABLE t (a INT, b INT) PARTITION BY LIST COLUMNS (a, b) (PARTITION p0 VALUES IN ((1, 2)))"
    (t,) = parse_tables(sql, "db", "mysql80")
    with pytest.raises(SchemaError, match="partitions by several columns"):
        partition_checks(t, sql)


@pytest.mark.parametrize("flavor", ["mysql80", "mariadb1011"])
def test_generated_rows_find_a_partition(flavor: str) -> None:
    ddl = ("CREATE TABLE w (a INT, r CHAR(2) NOT NULL, k SMALLINT NOT NULL, d DATE NOT NULL) "
           "PARTITION BY LIST COLUMNS (r) (PARTITION pe VALUES IN ('EU'), PARTITION pa VALUES IN ('US', 'CA'));")
    rt = table_rows(ddl, 7, flavor, None, 0.3)
    keys = np.arange(300, dtype=np.int64)
    cols = rt.compute_columns(keys, keys % 5, keys * 0)
    r = cols[1].tolist() if hasattr(cols[1], "tolist") else cols[1]
    assert set(r) <= {"EU", "US", "CA"} and len(set(r)) == 3


_INT_TYPES = [("TINYINT", 127), ("TINYINT UNSIGNED", 255), ("SMALLINT", 32767), ("MEDIUMINT UNSIGNED", 16777215),
              ("INT", 2**31 - 1), ("BIGINT", 2**63 - 1), ("BIGINT UNSIGNED", 2**64 - 1)]


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_an_integer_key_column_held_below_the_last_bound(data) -> None:
    """A RANGE partitioning without MAXVALUE on an integer key column (the sole PRIMARY KEY, or
    beside another key column; generators/key_space.py counts_up): every row's value is below
    the bound (and at least 1 under a ``CHECK (c >= 1)``), the key's rows stay apart below the
    table's capacity, and the many-key twin gives the scalar rule's values."""
    typ, top = data.draw(st.sampled_from(_INT_TYPES), label="type")
    bound = data.draw(st.one_of(st.integers(2, 60), st.integers(2, min(top, 10**7)), st.just(top)), label="bound")
    shape = data.draw(st.sampled_from(["sole", "beside-int", "beside-date", "unique"]), label="shape")
    check = data.draw(st.booleans(), label="check")
    extra = ", CHECK (k >= 1)" if check else ""
    keys_sql = {"sole": "PRIMARY KEY (k)", "beside-int": "PRIMARY KEY (id, k)",
                "beside-date": "PRIMARY KEY (d, k)", "unique": "PRIMARY KEY (id), UNIQUE KEY (k, id)"}[shape]
    ddl = (f"CREATE TABLE t (id BIGINT NOT NULL, d DATE NOT NULL, k {typ} NOT NULL, v VARCHAR(8), {keys_sql}{extra}) "
           f"PARTITION BY RANGE (k) (PARTITION p0 VALUES LESS THAN ({max(1, bound // 2)}), "
           f"PARTITION p1 VALUES LESS THAN ({bound}))")
    flavor = data.draw(st.sampled_from(["mysql80", "mariadb1011"]), label="flavor")
    rt = table_rows(ddl, data.draw(st.integers(0, 2**32), label="seed"), flavor)
    n = min(rt.capacity, 2_000)
    keys = np.concatenate([np.arange(n, dtype=np.int64),
                           np.array(data.draw(st.lists(st.integers(0, rt.capacity - 1), max_size=20)),
                                    dtype=np.int64)])
    cols = rt.compute_columns(keys, keys * 0, keys * 0)
    lists = [c if isinstance(c, list) else c.tolist() for c in cols]
    k = lists[2]
    assert all(1 <= x < bound for x in k)
    if shape == "sole":
        assert rt.capacity == bound - 1
    key_cols = {"sole": (2,), "beside-int": (0, 2), "beside-date": (1, 2), "unique": (0,)}[shape]
    seen = {tuple(lists[c][r] for c in key_cols) for r in range(n)}
    assert len(seen) == n
    for r in range(0, len(keys), max(1, len(keys) // 50)):
        assert rt.compute_scalar(int(keys[r]), 0, 0)[2] == k[r]
