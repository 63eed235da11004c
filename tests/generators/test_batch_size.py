"""The batch size (generators/batch.py ``BATCH_TXNS``) is a speed knob only: runs cut into
batches of a few transactions write the same bytes (binlogs, manifest, every truth file) as
runs with the default batches, across workloads, flavors, images, rotation, DDL mid-stream and
the ``--size`` cut."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import generators.batch as gbatch
import generators.batch_size as gsize
import generators.run_batched as grun
from binlogwriter.cli import main as cli_main

from .conftest import tree_digest


def run_cli(*args: str) -> None:
    r = CliRunner().invoke(cli_main, ["generate", *args], catch_exceptions=False)
    assert r.exit_code == 0, r.output

_RUNS = st.sampled_from([
    ["--workload", "sysbench", "--transactions", "300", "--max-binlog-size", "40KB"],
    ["--workload", "sysbench", "--size", "300KB", "--flavor", "mariadb1011", "--row-image", "minimal", "--tables", "3"],
    ["--workload", "ecommerce", "--transactions", "250", "--ddl-every", "60", "--flavor", "mysql84",
     "--row-metadata", "full", "--rows-query"],
    ["--workload", "alltypes", "--transactions", "80", "--row-image", "noblob", "--checksum", "none"],
    ["--workload", "sysbench", "--transactions", "400", "--key-dist", "zipf:1.2", "--mix", "insert=5,update=3,delete=2"],
    # a table of 400 columns beside a narrow one and a keyless one, multilingual (4-byte) text in
    # one run: its batches are sized from the schema's estimate
    # (generators/batch_size.py batch_txns), fewer transactions than FIRST_TXNS even by default
    ["--schema", "WIDE", "--size", "600KB", "--initial-rows", "20", "--flavor", "mariadb1011", "--parallel-groups", "3",
     "--charset-stress", "0.5"],
    ["--schema", "WIDE", "--transactions", "40", "--ddl-every", "15", "--edge-values", "0.3", "--row-image", "minimal"],
])

_TYPES = ("INT", "BIGINT UNSIGNED", "VARCHAR(30)", "DECIMAL(14,3)", "DATETIME(6)", "TEXT", "JSON", "CHAR(3)",
          "ENUM('x','y')", "DOUBLE", "BIT(9)", "DATE", "TIME(2)", "VARBINARY(12)", "YEAR", "SET('p','q','r')")
WIDE_SQL = ("CREATE TABLE wide (id INT AUTO_INCREMENT PRIMARY KEY, "
            + ", ".join(f"c{i} {_TYPES[i % len(_TYPES)]}" for i in range(399))
            + ") DEFAULT CHARSET=utf8mb4;\nCREATE TABLE narrow (a INT PRIMARY KEY, b VARCHAR(10));\n"
            "CREATE TABLE nokey (v VARCHAR(20) CHARACTER SET utf8mb4, n INT, d DATETIME(3));\n")


@settings(max_examples=14, deadline=None)
@given(args=_RUNS, size=st.integers(1, 97), seed=st.integers(1, 3))
def test_batch_size_does_not_change_a_byte(tmp_path_factory: pytest.TempPathFactory, args: list[str],
                                           size: int, seed: int) -> None:
    base = tmp_path_factory.mktemp("batches")
    if "WIDE" in args:
        (base / "wide.sql").write_text(WIDE_SQL)
        args = [str(base / "wide.sql") if a == "WIDE" else a for a in args]
    argv = [*args, "--seed", str(seed), "--no-progress"]
    run_cli(*argv, "--out", str(base / "default"))
    with pytest.MonkeyPatch.context() as mp:
        for mod in (gbatch, grun):
            mp.setattr(mod, "BATCH_TXNS", size)
            mp.setattr(mod, "FIRST_TXNS", min(size, 5))
            mp.setattr(mod, "BATCH_BYTES", size * 300)
        for mod in (gsize, grun):
            mp.setattr(mod, "MIN_TXNS", 1)
        run_cli(*argv, "--out", str(base / "small"))
    assert tree_digest(Path(base / "small")) == tree_digest(Path(base / "default"))


def test_a_wide_schema_gets_small_batches() -> None:
    """The first batch of a 400-column table holds fewer transactions than FIRST_TXNS (it was
    1024 whatever the width: a table of thousands of columns held GBs in one batch), a narrow
    schema keeps FIRST_TXNS, and a Spark partition's batches follow the same estimate."""
    from generators.api import make_run, partition_batch
    from generators.spec import Spec, resolve

    wide = make_run(resolve(Spec(workload=None, schema_sql=WIDE_SQL)), 0)
    narrow = make_run(resolve(Spec(workload="sysbench")), 0)
    assert gsize.txn_bytes_estimate(wide) > 100 * gsize.txn_bytes_estimate(narrow) / 4
    assert gsize.MIN_TXNS <= gsize.batch_txns(wide, gbatch.BATCH_BYTES, gbatch.FIRST_TXNS) < gbatch.FIRST_TXNS
    assert gsize.batch_txns(narrow, gbatch.BATCH_BYTES, gbatch.FIRST_TXNS) == gbatch.FIRST_TXNS
    assert partition_batch(narrow) == gbatch.BATCH_TXNS
    assert gsize.MIN_TXNS <= partition_batch(wide) < gbatch.BATCH_TXNS
