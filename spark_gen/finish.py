"""The tasks of the job's last Spark jobs, as descriptors run by one function.

After pass 2 everything left is a set of independent file tasks (spark_gen/job.py). A job
costs a scheduling round trip and, for a one-task job, a core left idle while the other
works, so the tasks of several kinds run in one job, the long ones (a binlog file's
commit, a table's Parquet) beside the short ones:

* ``snapshot`` — one piece of ``truth/snapshot.sql`` (``snapshot_piece``): needs nothing,
  run in pass 2's job;
* ``commit`` — a binlog file from its chunks (spark_gen/commit.py ``concat_binlog``);
  ``changes`` — one table's change chunks merged into its Parquet
  (generators/changes_truth.py ``merge_table``) — both remove their chunks when done
  (in parallel, instead of the driver at the end; a retry finds the result in place); ``concat_text`` — ``changes.jsonl``
  from its pieces: need pass 2's chunks only;
* ``final`` — one table's runs (spark_gen/final.py, made by pass 2's job or beside the
  commits) merged into its JSONL / Parquet (``merge_runs``); ``concat`` —
  ``snapshot.sql`` from its pieces.

:class:`Finisher` holds what the tasks share (spec, format, tables) and is shipped to the
executors once per task; a task's result is tagged with its kind.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

__all__ = ["Finisher"]


@dataclass(frozen=True)
class Finisher:
    """Runs one file task (see module docstring) of a run of ``spec``."""

    spec: Any
    fmt: Any
    tables: tuple[Any, ...]  # final table definitions, in workload order

    def __call__(self, task: tuple) -> tuple:
        kind = task[0]
        if kind == "commit":  # ("commit", file name, chunks, chunk scans, destination)
            from spark_gen.commit import concat_binlog

            _, name, chunks, scans, dest = task
            return "commit", name, concat_binlog(chunks, dest, self.fmt, scans, remove_chunks=True)
        if kind == "snapshot":  # ("snapshot", table, lo, hi, path)
            from spark_gen.partition import snapshot_piece

            return "snapshot", snapshot_piece(self.spec, *task[1:])
        if kind == "final":  # ("final", table, runs, jsonl path | None, parquet path | None)
            from spark_gen.final import merge_runs

            _, t, runs, jsonl, parquet = task
            return "final", t, merge_runs(runs, jsonl, parquet, self.tables[t], self.spec.flavor)
        if kind == "changes":  # ("changes", table, chunks, destination)
            from generators.changes_truth import merge_table
            from spark_gen.commit import merged_before, unlink_all

            _, t, chunks, dest = task
            if merged_before(dest, chunks):
                return "changes", t, None  # a retry: the first attempt merged and began removing
            n = merge_table(chunks, dest, self.tables[t], self.spec.flavor)
            unlink_all(chunks)  # here, in parallel, not by the driver at the end of the run
            return "changes", t, n
        if kind == "concat":  # ("concat", pieces, destination, head, tail): snapshot.sql
            from spark_gen.commit import concat

            _, pieces, dest, head, tail = task
            concat(pieces, dest, head=head, tail=tail)
            return "concat", os.path.basename(dest)
        if kind == "concat_text":  # ("concat_text", pieces, destination): changes.jsonl
            from generators.changes_truth import concat_text

            _, pieces, dest = task
            concat_text(pieces, dest)
            return "concat_text", os.path.basename(dest)
        raise ValueError(f"spark_gen.finish: unknown task {kind!r}")
