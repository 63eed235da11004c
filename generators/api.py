"""The public API of the generator for other engines (spark_gen) and embedders.

Everything another package needs to run the generator's pieces elsewhere — a Run in the
DDL state of any transaction, the batch functions (plans and key states -> row changes as
arrays -> encoded row images -> planned groups; ``rows_sizes``: image lengths only, for a
planner that needs group sizes and no bytes), the DDL a transaction is followed by, the
manifest and crash-safety helpers — under names that stay stable while the engine's
internals move. spark_gen imports from here (and from the public modules of
``generators`` / ``binlogwriter``), never a ``_private`` name.

:func:`write_batch` is the write step of the one-process batch loop (generators/run_batched.py
``Run._batch`` after its ``--size`` cut): ``Run.write_segments`` writes the planned groups
segment by segment, each segment ending where the writer rotates (``searchsorted`` over the
prefix sums of the group sizes, the rotation rule of ``BinlogWriter.maybe_rotate``), with the
GTID bookkeeping per file; ``Run.record_written`` records truth/changes
(``ChangesRecorder.record_batch``, generators/changes_record.py) and the change counts.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from generators.batch import BATCH_BYTES, BATCH_TXNS, AppliedBatch, apply_batch, rows_batch
from generators.batch_size import batch_txns
from generators.engine import (
    FileInfo,
    Run,
    RunResult,
    build_manifest,
    file_entry,
    generate,
    lock_dir,
    scan_file,
    sweep_stale_tmp,
    tmp_prefix,
)
from generators.hashing import draw_array, hash64_array, salt
from generators.keys import epoch_at
from generators.plan import ddl_after
from generators.run_count import planned_transactions
from generators.sizes import rows_sizes

__all__ = ["BATCH_TXNS", "AppliedBatch", "FileInfo", "apply_batch", "Run", "RunResult", "advances", "batch_bounds", "partition_batch",
           "build_manifest", "ddl_after", "do_ddl", "epoch_at", "file_entry", "generate", "lock_dir", "make_run", "planned_for",
           "rows_batch", "rows_sizes", "scan_file", "sweep_stale_tmp", "tmp_prefix", "write_batch"]

def make_run(spec: Any, at: int = 0) -> Run:
    """A fresh Run of ``spec`` (no output directory) with its tables in the DDL state in
    force at transaction ``at``."""
    run = Run(spec, None)  # type: ignore[arg-type]
    run.set_ddl_state(at)
    return run


def planned_for(spec: Any, n: int) -> int:
    """How many transactions to plan so that exactly ``n`` are written (``--transactions N``;
    generators/run_count.py), from a fresh run of ``spec``."""
    return planned_transactions(Run(spec, None), n)  # type: ignore[arg-type]


def do_ddl(run: Run, writer: Any, d: int) -> None:
    """Write DDL number ``d`` (the one :func:`ddl_after` names) and apply it to the tables."""
    run.do_ddl(writer, d)


def advances(spec: Any, lo: int, hi: int) -> np.ndarray:
    """Clock seconds before each of transactions ``lo..hi-1``: the first draw of each
    plan (generators/plan.py ``plan_transaction``: ``advance = 1 if below(4) == 0``), as an
    array."""
    i = np.arange(lo, hi, dtype=np.int64)
    base = hash64_array(salt(spec.seed, "txn"), i)
    return (draw_array(base, 1) % np.uint64(4) == 0).astype(np.int64)


def partition_batch(run: Run) -> int:
    """Transactions per batch of a Spark partition: :data:`BATCH_TXNS`, fewer when the schema's
    transactions are large (:func:`~generators.batch.batch_txns` over four :data:`BATCH_BYTES`:
    a partition has no bytes written yet to size its batches from). A function of the spec,
    so every task of a run cuts the same batches."""
    return batch_txns(run, 4 * BATCH_BYTES)


def batch_bounds(spec: Any, lo: int, hi: int, size: int = BATCH_TXNS) -> list[tuple[int, int]]:
    """Transactions ``lo..hi-1`` cut into batches of at most ``size`` that end where a DDL
    follows (a batch's tables keep one definition), as the one-process batch loop cuts them."""
    out = []
    i = lo
    e = spec.ddl_every
    while i < hi:
        j = min(hi, i + size)
        if e:
            j = min(j, i + (e - 1 - i % e) + 1)
        out.append((i, j))
        i = j
    return out


def write_batch(run: Run, writer: Any, ab: AppliedBatch, plan: Any, rb: Any, kept: int | None = None) -> int:
    """Write transactions ``0..kept-1`` (default: all) of a batch planned by
    ``writer.plan_rows(rb)`` (see module docstring); returns how many were written. The
    writer's clock ends at the last written transaction's."""
    n, placed = run.write_segments(writer, plan, ab, len(ab.advance) if kept is None else kept)
    run.record_written(ab, rb, plan, placed, n)
    return n
