"""Spark runs the same engine as one process: for every built-in workload and a user's own
DDL (foreign keys, a composite key, a keyless table, a 120-column table, utf8mb4 text, JSON,
DECIMAL, DATETIME(6), ENUM/SET; small domains whose UPDATEs may change nothing) the run at 1, 2, 3 and 7 partitions is the single-process run,
file for file and byte for byte (issue #28: "Spark byte-identical to one process at 1, 2, 3
and 7 partitions for every workload and a custom DDL").

The expected bytes are the single-process engine's (generators.engine.generate), whose own
correctness is held elsewhere against a real MariaDB replay (tests/conformance/) and the
declarative construct path (tests/batch/).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from generators.engine import generate
from generators.spec import Spec
from spark_gen.job import generate_spark

from .conftest import tree_digest

WIDE = ",\n".join(f"  c{i:03d} {('INT NULL', 'VARCHAR(12) CHARACTER SET utf8mb4 NULL', 'DECIMAL(9,3) NULL')[i % 3]}"
                  for i in range(1, 120))
CUSTOM_DDL = f"""
CREATE TABLE accounts (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  name VARCHAR(60) CHARACTER SET utf8mb4 NOT NULL,
  plan ENUM('free','pro','team') NOT NULL DEFAULT 'free',
  flags SET('a','b','c') NOT NULL DEFAULT '',
  settings JSON,
  created DATETIME(6) NOT NULL
) DEFAULT CHARSET=utf8mb4;
CREATE TABLE invoices (
  account_id BIGINT UNSIGNED NOT NULL,
  number INT UNSIGNED NOT NULL,
  amount DECIMAL(14,4) NOT NULL,
  note TEXT CHARACTER SET utf8mb4,
  PRIMARY KEY (account_id, number),
  CONSTRAINT fk_inv FOREIGN KEY (account_id) REFERENCES accounts (id)
) DEFAULT CHARSET=utf8mb4;
CREATE TABLE events (
  at DATETIME(6) NOT NULL,
  kind VARCHAR(20) NOT NULL,
  payload VARBINARY(64) NULL
);
CREATE TABLE metrics (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
{WIDE}
) DEFAULT CHARSET=utf8mb4;
"""

NARROW_DDL = """
CREATE TABLE flags (id INT NOT NULL PRIMARY KEY, e ENUM('only') NOT NULL, b BOOLEAN NOT NULL, x BIT(1) NOT NULL,
  v VARCHAR(1) CHARACTER SET ascii NOT NULL);
CREATE TABLE bare (e ENUM('z') NOT NULL, b BOOL NULL);
"""

STAMPED_DDL = """
CREATE TABLE orders (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  state ENUM('new','paid') NOT NULL,
  note VARCHAR(1) CHARACTER SET ascii NOT NULL,
  created_at DATETIME NOT NULL,
  placed TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  touched TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  seen DATETIME(6) NULL ON UPDATE NOW(6)
);
CREATE TABLE log (at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, v TINYINT NOT NULL,
  m DATETIME ON UPDATE CURRENT_TIMESTAMP);
"""

CASES = {
    "sysbench": dict(workload="sysbench", tables=3, key_dist="hotspot:0.1:0.8", transactions=120,
                     max_binlog_size="48K"),
    "ecommerce": dict(workload="ecommerce", flavor="mariadb1011", key_dist="zipf:0.8", max_binlog_size="12K",
                      transactions=120),
    "alltypes": dict(workload="alltypes", flavor="mysql84", row_image="NOBLOB", transactions=60,
                     max_binlog_size="24K"),
    "custom": dict(workload=None, schema_sql=CUSTOM_DDL, schema_file="custom.sql", flavor="mysql80",
                   row_image="MINIMAL", rows_per_txn=[1, 6], ddl_every=9, edge_values=0.1, transactions=90,
                   max_binlog_size="32K"),
    # UPDATEs that change nothing (a one-member ENUM, BOOLEAN, BIT(1), a 1-character VARCHAR)
    # are dropped from the transaction blocks (generators/noop.py), some transactions with them
    "unchanged": dict(workload=None, schema_sql=NARROW_DDL, schema_file="narrow.sql", flavor="mariadb1011",
                      mix="insert=0.1,update=0.8,delete=0.1", rows_per_txn=[1, 3], ddl_every=11, transactions=80,
                      max_binlog_size="8K"),
    # ON UPDATE / DEFAULT CURRENT_TIMESTAMP columns (generators/stamps.py): each row's INSERT and
    # last change times come from its key's history (spark_gen/partition.py add_stamps), across
    # partitions, unchanged UPDATEs (no bump), deletes, a keyless table and DDL
    "stamped": dict(workload=None, schema_sql=STAMPED_DDL, schema_file="stamped.sql", flavor="mariadb1011",
                    mix="insert=0.2,update=0.7,delete=0.1", rows_per_txn=[1, 4], ddl_every=13, transactions=90,
                    key_dist="zipf:1.2", max_binlog_size="8K"),
}


def _spec(**kw) -> Spec:
    return Spec.from_dict({"initial_rows": 15, "seed": 23, **kw})


@pytest.fixture(scope="module")
def local_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("local-every")
    return {name: tree_digest(generate(_spec(**kw), root / name).out, parquet=False) for name, kw in CASES.items()}


@pytest.mark.parametrize("parts", [1, 2, 3, 7])
@pytest.mark.parametrize("case", list(CASES))
def test_spark_equals_one_process_for_every_workload(spark, local_runs, tmp_path: Path, case: str,
                                                     parts: int) -> None:
    out = tmp_path / "spark"
    generate_spark(_spec(**CASES[case]), out, partitions=parts, spark=spark, parquet=False)
    got = tree_digest(out)
    want = local_runs[case]
    assert sorted(got) == sorted(want)
    assert [f for f in want if got[f] != want[f]] == []
    assert sum(1 for f in want if f.startswith("binlog.0")) >= 2, "the case rotates: partitions meet rotations"
