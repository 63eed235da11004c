"""The rows a partitioned table takes (generators/partitions.py ``partition_checks``): the
condition read from each partitioning clause as MySQL 8.0 / 8.4 and MariaDB 10.11 write it
(versioned comments, LINEAR, SUBPARTITION BY, MAXVALUE bare or in parentheses, NULL in a
list), and the generated rows of a keyless table meeting it. The replay into MariaDB is
tests/conformance/test_real_world_schemas.py (``partition-*``)."""

from __future__ import annotations

import numpy as np
import pytest

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
