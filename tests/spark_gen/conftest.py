"""One local SparkSession for every Spark test (startup is slow), and tree digests.

``local[2,4]``: 2 cores, and up to 4 attempts per task — in local mode Spark ignores
``spark.task.maxFailures`` and takes the retry count from the master URL. A missing Java or
pyspark fails these tests (it never skips them).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest


def tree_digest(root: Path, *, parquet: bool = False) -> dict[str, str]:
    """sha256 of every file under root by relative path (truth/final/parquet left out
    unless asked: the single-process engine does not write it)."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and (parquet or "parquet" not in p.parts)}


@pytest.fixture(scope="session")
def spark():
    from pyspark.sql import SparkSession

    from spark_gen.environment import prepare_local

    prepare_local()  # workers run this interpreter, as `--engine spark` does (no venv activation needed)
    s = (SparkSession.builder.master("local[2,4]").appName("binlogwriter-tests")
         .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
         .config("spark.sql.shuffle.partitions", "4").config("spark.default.parallelism", "2")
         .getOrCreate())
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()
