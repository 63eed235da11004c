"""How many transactions a batch holds (generators/batch.py), from a guess of a transaction's
binlog bytes made from the declared schema, before any is written: a table of thousands of
columns has transactions of hundreds of KB, and a batch of :data:`~generators.batch.FIRST_TXNS`
of them held GBs of images and of the index arrays built over their bytes. The batch size
never changes a byte (tests/generators/test_batch_size.py)."""

from __future__ import annotations

from typing import Any

from binlogwriter.values.registry import bind_column
from generators.batch import BATCH_BYTES, BATCH_TXNS

__all__ = ["MIN_TXNS", "batch_txns", "txn_bytes_estimate"]

MIN_TXNS = 16
"""The fewest transactions of a batch: a table of thousands of columns has transactions of
hundreds of KB, and a batch of :data:`~generators.batch.FIRST_TXNS` of them held GBs of images
and indexes."""
_BLOB_GUESS = 256
"""Bytes guessed for a BLOB / TEXT / JSON / GEOMETRY value by :func:`txn_bytes_estimate`."""


def _value_bytes(col: Any, flavor: str) -> int:
    """A guess of one value's bytes in a row image: its fixed size (values.md §2-§4), else
    up to 64 bytes of a CHAR/VARCHAR/BINARY/VARBINARY and its length prefix (§5), else
    :data:`_BLOB_GUESS` (§6)."""
    try:
        fixed = bind_column(col.column_desc(flavor)).fixed_size
    except Exception:  # noqa: BLE001 - a guess: a column no codec binds counts as a BLOB
        fixed = None
    if fixed:
        return int(fixed)
    n = col.byte_length(flavor)
    return _BLOB_GUESS if n is None else min(n, 64) + (1 if n < 256 else 2)


def txn_bytes_estimate(run: Any) -> int:
    """A guess of a transaction's binlog bytes from the schema alone, before any is written:
    the most rows a transaction changes (``rows_per_txn``), each with two images (an UPDATE's)
    of the widest table's row (:func:`_value_bytes` per column, the null bitmap), plus the
    transaction's other events; the tables as the spec declares them (a DDL later in the run
    does not change it), so every Spark partition cuts the same batches."""
    flavor = run.spec.flavor
    tables = [rt.tdef.table for rt in run.rows]  # as the spec declares them: the same in every process
    widest = max((sum(_value_bytes(c, flavor) for c in t.columns) + (len(t.columns) + 7) // 8 for t in tables),
                 default=0)
    most = (run.spec.rows_per_txn or (1, 1))[1]
    return 2 * most * (widest + 16) + 256


def batch_txns(run: Any, budget: int | None = None, most: int | None = None) -> int:
    """Transactions that make about ``budget`` (default :data:`BATCH_BYTES`) binlog bytes by
    :func:`txn_bytes_estimate`, at least :data:`MIN_TXNS` and at most ``most`` (default
    :data:`BATCH_TXNS`): a batch of a wide table holds fewer transactions, so its images, and
    the index arrays built over their bytes, stay bounded. The bytes do not depend on it
    (tests/generators/test_batch_size.py)."""
    budget = BATCH_BYTES if budget is None else budget
    most = BATCH_TXNS if most is None else most
    return max(1, min(most, max(MIN_TXNS, budget // txn_bytes_estimate(run))))
