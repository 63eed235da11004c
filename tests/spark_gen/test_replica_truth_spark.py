"""``--engine spark`` writes the same ``truth/replica/`` as the local engine (docs/replica.md):
the hook runs on the finished run directory of either engine."""

from __future__ import annotations

from pathlib import Path

from generators.engine import generate
from generators.spec import Spec
from spark_gen.job import generate_spark

from .conftest import tree_digest


def test_spark_run_has_the_local_replica_truth(spark, tmp_path: Path) -> None:
    spec = Spec.from_dict(dict(
        workload=None, schema_sql="CREATE TABLE t (id INT PRIMARY KEY, a BIGINT, d DECIMAL(10,2));",
        schema_file="p.sql", database="d", flavor="mariadb1011", initial_rows=20, transactions=30,
        edge_values=0.3, seed=5,
        replica=dict(schema_sql="CREATE TABLE t (id INT PRIMARY KEY, a INT, d DECIMAL(8,1), x INT DEFAULT 1);",
                     conversions="ALL_LOSSY")))
    generate(spec, tmp_path / "local")
    generate_spark(spec, tmp_path / "spark", partitions=2, spark=spark, parquet=False)
    local = tree_digest(tmp_path / "local" / "truth" / "replica")
    assert local and "final/d.t.jsonl" in local and "provision.sql" in local
    assert tree_digest(tmp_path / "spark" / "truth" / "replica") == local
