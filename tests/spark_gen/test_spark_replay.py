"""The generate issue's replay check on a Spark-generated run (real MariaDB 10.11).

``truth/snapshot.sql`` then ``mariadb-binlog --verify-binlog-checksum binlog.* | mariadb``
on a throwaway server must leave exactly ``truth/final`` — as in
tests/conformance/test_generate_replay.py, with the binlogs written by 7 Spark partitions
(rotation, DDL, every operation kind). A missing MariaDB fails the test.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from binlogwriter.testing import final_files
from generators.spec import Spec
from spark_gen.job import generate_spark
from tests.conformance.mariadb import MariaDBMissing, MariaDBServer, make_template

pytestmark = pytest.mark.conformance


@pytest.fixture(scope="module")
def mariadb_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    try:
        return make_template(tmp_path_factory.mktemp("mariadb-template") / "data")
    except MariaDBMissing as e:
        pytest.fail(str(e), pytrace=False)


@pytest.mark.parametrize("workload", ["ecommerce", "sysbench"])
def test_spark_run_replays_to_truth_final(spark, mariadb_template: Path, tmp_path: Path, workload: str) -> None:
    spec = Spec.from_dict(dict(workload=workload, flavor="mariadb1011", row_metadata="FULL", row_image="MINIMAL",
                               rows_query=True, database=f"spark_{workload}", seed=7, transactions=120,
                               initial_rows=15, ddl_every=13, max_binlog_size="16K", key_dist="latest",
                               tables=2 if workload == "sysbench" else 1))
    out = tmp_path / "run"
    generate_spark(spec, out, partitions=7, spark=spark, parquet=False)
    files = [out / line.strip()[2:] for line in (out / "binlog.index").read_text().splitlines()]
    assert len(files) > 1
    with MariaDBServer(mariadb_template) as server:
        server.execute((out / "truth" / "snapshot.sql").read_text("utf-8"))
        server.replay(files)
        truth = {}
        for (db, table), p in final_files(out).items():
            truth[(db, table)] = [tuple(json.loads(line).values()) for line in p.read_text("utf-8").splitlines()]
        assert truth and any(truth.values())
        for (db, table), rows in truth.items():
            assert server.dump_table(db, table) == rows, f"{db}.{table}"
