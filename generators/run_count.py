"""``--transactions N`` as the number of transactions written (issue #29 §4): how many
transactions to plan so that exactly ``N`` are written.

A planned transaction whose operations all find nothing to do (an UPDATE or DELETE of a key
that is not live, an INSERT past the key space) changes no row; a server logs nothing for it,
and neither does the generator. :func:`planned_transactions` steps the key state alone (no values, no
bytes: generators/batch.py ``apply_batch`` over a fresh run's state) until ``N`` planned
transactions have changed a row, and gives the count planned; the engines then plan exactly
that many (the one-process loops, generators/run_batched.py and generators/run_txn.py, and
spark_gen's job), so all write the same ``N`` transactions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from generators.batch import BATCH_TXNS, apply_batch
from generators.spec import SpecError

if TYPE_CHECKING:
    from generators.engine import Run

__all__ = ["planned_transactions", "MAX_EMPTY_FACTOR"]

MAX_EMPTY_FACTOR = 64
"""A run that plans more than this many transactions per one asked for (plus one batch) without
reaching the count is refused: its transactions (nearly) never find a row to change."""


def planned_transactions(run: Run, n: int) -> int:
    """The number of transactions to plan (0, 1, 2 …) so that exactly ``n`` of them change at
    least one row (module docstring); ``run``: a fresh :class:`generators.engine.Run` of the
    spec (its key state is used up here; ``generators.api.planned_for`` makes one). A
    :class:`~generators.spec.SpecError` naming ``--transactions`` when the workload's
    transactions (nearly) never change a row."""
    if n <= 0:
        return 0
    for rt in run.rows:
        rt.load_initial(run.initial_keys(rt))
    i = written = 0
    limit = MAX_EMPTY_FACTOR * n + BATCH_TXNS
    while written < n:
        # each planned transaction writes at most one: never plan past the n-th written one
        hi = i + min(BATCH_TXNS, n - written)
        ab = apply_batch(run, i, hi)
        ab.keep(run, hi - i)
        written += int(len(np.unique(ab.txn)))
        i = hi
        if written < n and i >= limit:
            raise SpecError(f"--transactions {n}: {i} planned transactions changed rows in only {written}; "
                            "the workload's operations find no rows to change (an empty table with no INSERTs?)")
    return i
