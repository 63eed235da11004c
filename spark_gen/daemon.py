"""The Python worker daemon of a local session: ``pyspark.daemon`` with the project imported once.

Spark starts one daemon per executor (``python -m <spark.python.daemon.module>``) and forks
a Python worker from it for each task slot; a worker is reused for later tasks
(``spark.python.worker.reuse``), but every forked worker used to import the project itself
(about 0.4 CPU-s: numpy, sqlglot, the codec, the generator), and Spark forks more workers
than it has slots over a run. Importing here, before the daemon forks, makes each worker a
copy-on-write child that starts with the modules loaded.

The daemon then freezes what it has loaded (``gc.freeze``): a reused worker runs a full
``gc.collect()`` after every task (pyspark/daemon.py), which walks every tracked object —
some 60 thousand once numpy, sqlglot, the project and ``pyspark.worker`` are loaded, about
20 ms of CPU per task, more than many whole tasks take. Frozen objects are left out of
every collection, in the forked workers too (and their pages are not touched by the
collector, so they stay shared with the daemon).

Only modules that start no thread on import are loaded: a fork copies one thread only, so a
library whose import starts a thread pool (pyarrow, pandas; OpenBLAS, unless told to use one
thread — nothing here multiplies matrices) must be imported after the fork; pyspark's own
daemon imports its worker module after the fork for the same reason. A module that fails to
import is skipped: the worker then imports it itself and reports the error the normal way
(spark_gen/environment.py ``probe_executors``).

spark_gen/environment.py ``builder_options`` selects this module for local sessions whose
workers run the driver's interpreter.
"""

from __future__ import annotations

import gc
import importlib

__all__ = ["PRELOAD", "preload"]

PRELOAD = ("numpy", "numpy.ma", "pyspark.worker", "spark_gen.partition", "spark_gen.commit", "spark_gen.plan",
           "spark_gen.writer", "spark_gen.final", "spark_gen.finish", "binlogwriter.table_map.metadata", "sqlglot.dialects.mysql",
           "generators.workloads.sysbench", "generators.workloads.ecommerce", "generators.workloads.alltypes",
           "generators.workloads.custom")
"""Imported by the daemon before it forks (none of them starts a thread on import)."""


def preload(modules: tuple[str, ...] = PRELOAD) -> list[str]:
    """Import ``modules`` (one thread for OpenBLAS, numpy without transparent huge pages:
    binlogwriter/cli.py ``PROCESS_ENV``) and freeze every object they made (module
    docstring); returns those that failed."""
    from binlogwriter.cli import process_defaults

    process_defaults()
    failed = []
    for m in modules:
        try:
            importlib.import_module(m)
        except Exception:  # noqa: BLE001 - the worker imports it again and reports it
            failed.append(m)
    gc.collect()
    gc.freeze()
    return failed


if __name__ == "__main__":
    preload()
    from pyspark.daemon import manager

    manager()
