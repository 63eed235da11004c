"""Scaling of ``generate --engine spark`` from local[1] to local[2] on a sysbench workload.

Prints MB/s of binlog written (whole job: planning, both shuffles, both passes, commit,
truth, manifest) for a SparkSession on ``local[1]`` and one on ``local[2]``, their ratio,
and the single-process engine for reference. One untimed warm-up run per session (JVM,
Python workers, Faker pools). Usage::

    python bench/spark_scaling.py [--transactions N] [--tables T] [--partitions P]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path


def _bytes(out: Path) -> int:
    return sum(p.stat().st_size for p in out.glob("binlog.[0-9]*"))


def _session(master: str):
    from pyspark.sql import SparkSession

    s = (SparkSession.builder.master(master).appName(f"spark-scaling-{master}")
         .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
         .getOrCreate())
    s.sparkContext.setLogLevel("ERROR")
    return s


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--transactions", type=int, default=20000)
    ap.add_argument("--tables", type=int, default=4)
    ap.add_argument("--partitions", type=int, default=8)
    a = ap.parse_args(argv)

    from generators.engine import generate
    from generators.spec import Spec
    from spark_gen.job import generate_spark

    spec = Spec.from_dict(dict(workload="sysbench", tables=a.tables, transactions=a.transactions,
                               initial_rows=10000, seed=1))
    warm = Spec.from_dict(dict(workload="sysbench", tables=a.tables, transactions=200, initial_rows=100, seed=2))
    tmp = Path(tempfile.mkdtemp(prefix="bench-spark-"))
    try:
        t = time.perf_counter()
        generate(spec, tmp / "local")
        local_s = time.perf_counter() - t
        nbytes = _bytes(tmp / "local")
        rates = {}
        for master in ("local[1]", "local[2]"):
            s = _session(master)
            generate_spark(warm, tmp / f"warm-{master}", partitions=a.partitions, spark=s, parquet=False)
            t = time.perf_counter()
            generate_spark(spec, tmp / master, partitions=a.partitions, spark=s, parquet=False)
            el = time.perf_counter() - t
            assert _bytes(tmp / master) == nbytes
            rates[master] = nbytes / el / 1e6
            print(f"{master:10s} {nbytes / 1e6:8.1f} MB in {el:6.1f} s  {rates[master]:6.2f} MB/s")
            s.stop()
        print(f"{'single':10s} {nbytes / 1e6:8.1f} MB in {local_s:6.1f} s  {nbytes / local_s / 1e6:6.2f} MB/s "
              "(one process, reference)")
        print(f"ratio local[2] / local[1]: {rates['local[2]'] / rates['local[1]']:.2f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
