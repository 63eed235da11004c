"""Spark writes the WRITESET logical clock (generators/writeset.py) the single-process
engine writes: the tracker's state at each range's start replayed on the driver
(spark_gen/partition.py ``clock_states``), byte for byte at any partition count —
rotations, DDL barriers, FOREIGN KEY children, numbered and anonymous GTIDs, --ddl-in-binlog
(tagged GTIDs and --compress are refused by --engine spark)."""

from __future__ import annotations

from pathlib import Path

import pytest

from generators.engine import generate
from generators.spec import Spec
from spark_gen.job import generate_spark
from tests.generators.test_writeset_runs import FK_DDL, GTID_TYPES, UUID

from .conftest import tree_digest

CASES = {
    "sysbench-rotation-ddl": dict(workload="sysbench", tables=2, key_dist="zipf:1.1", transactions=300,
                                  max_binlog_size="16K", ddl_every=45, gtid=UUID),
    "fk-anonymous-ddl-in-binlog": dict(workload=None, schema_sql=FK_DDL, schema_file="fk.sql", database="fk",
                                       transactions=200, template="mix", rows_per_txn="1-3", ddl_in_binlog=True,
                                       mix="insert=0.3,update=0.6,delete=0.1", gtid="anonymous", max_binlog_size="8K"),
    "mysql84": dict(workload="sysbench", flavor="mysql84", max_binlog_size="8K", transactions=250, key_dist="zipf:1.2"),
}


def _spark_equals_local(spark, tmp_path: Path, case: dict, parts: int) -> list:
    """Generate ``case`` in one process and on Spark in ``parts`` partitions; assert the two
    trees byte-identical; the Spark run's events."""
    from binlogwriter.reader import BinlogReader

    spec = Spec.from_dict({"initial_rows": 20, "seed": 5, **case})
    local = generate(spec, tmp_path / "local").out
    generate_spark(spec, tmp_path / "spark", partitions=parts, spark=spark)
    assert tree_digest(tmp_path / "spark") == tree_digest(local)
    return [e for f in sorted((tmp_path / "spark").glob("binlog.0*")) for e in BinlogReader([f])]


@pytest.mark.parametrize("parts", [1, 3])
@pytest.mark.parametrize("case", list(CASES))
def test_spark_writeset_clock_equals_single_process(spark, tmp_path: Path, case: str, parts: int) -> None:
    evs = [e for e in _spark_equals_local(spark, tmp_path, CASES[case], parts) if e.type_code in GTID_TYPES]
    # not trivially the commit order
    assert any(e.last_committed < e.sequence_number - 1 for e in evs)


GROUP_CASES = {
    # MariaDB --parallel-groups (generators/group_commit.py): the open group commit carried
    # into the next partition by the same replayed state, rotations, DDL, keyless and FK tables
    "mariadb-sysbench-rotation-ddl": dict(workload="sysbench", flavor="mariadb1011", tables=2, key_dist="zipf:1.1",
                                          transactions=300, max_binlog_size="16K", ddl_every=45, parallel_groups=6),
    "mariadb-fk-keyless-ddl-in-binlog": dict(workload=None, schema_sql=FK_DDL + "CREATE TABLE bag (v INT, w INT);",
                                             schema_file="fk.sql", database="fk", flavor="mariadb1011",
                                             transactions=200, template="mix", rows_per_txn="1-3", ddl_in_binlog=True,
                                             mix="insert=0.3,update=0.6,delete=0.1", max_binlog_size="8K",
                                             parallel_groups=1000),
    # groups of up to 8 over uniform keys: partitions and rotations fall inside group commits
    # (held rotations, commit-id bytes from the driver's replay), a --size stop among them
    "mariadb-size-held-rotations": dict(workload="sysbench", flavor="mariadb1011", initial_rows=400, size="90K",
                                        max_binlog_size="8K", parallel_groups=8),
}


@pytest.mark.parametrize("parts", [1, 3])
@pytest.mark.parametrize("case", list(GROUP_CASES))
def test_spark_group_commits_equal_single_process(spark, tmp_path: Path, case: str, parts: int) -> None:
    cids = [e.commit_id for e in _spark_equals_local(spark, tmp_path, GROUP_CASES[case], parts)
            if e.type_code == 162 and not e.flags2 & 0x20]
    grouped = [c for c in cids if c is not None]
    assert grouped and len(set(grouped)) < len(grouped), "grouped, not one transaction a group"
    assert min(grouped.count(c) for c in set(grouped)) >= 2, "a group of one carries no commit id"
