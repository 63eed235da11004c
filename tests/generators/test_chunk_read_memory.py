"""The merge of ``truth/changes`` reads a Parquet chunk a row group at a time
(generators/changes_ipc.py ``chunk_batches``): what it holds does not grow with the chunk.

One pyarrow reader over a whole file keeps the pre-buffered column chunks of every row group
it has passed until it ends: the merge of the 100-column table's changes grew by about
0.4 GB per GB of them (issue #28, a 3 GB custom-DDL run peaked at 1.36 GB). Measured with
pyarrow's own allocation counter (``total_allocated_bytes``: bytes allocated now, not the
resident set), so the figure does not depend on the machine or on timing."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from generators.changes_ipc import chunk_batches

ROWS = 4096
GROUPS = 24


def _chunk(path: Path) -> int:
    """A chunk of ``GROUPS`` row groups of about 1 MB each (incompressible, no compression);
    returns the bytes of one row group's data."""
    schema = pa.schema([("seq", pa.int64()), ("doc", pa.binary())])
    with pq.ParquetWriter(path, schema, compression="none", use_dictionary=False) as w:
        for g in range(GROUPS):
            docs = [os.urandom(256) for _ in range(ROWS)]
            w.write_batch(pa.record_batch([pa.array(range(g * ROWS, (g + 1) * ROWS)), pa.array(docs)],
                                          schema=schema))
    return ROWS * (8 + 256)


def test_reading_a_chunk_holds_about_one_row_group(tmp_path: Path) -> None:
    group = _chunk(tmp_path / "c.parquet")
    base = pa.total_allocated_bytes()
    peak = 0
    seq = []
    for b in chunk_batches(str(tmp_path / "c.parquet"), 1024):
        peak = max(peak, pa.total_allocated_bytes() - base)
        seq.append(b.column(0)[0].as_py())
        del b
    assert seq == list(range(0, GROUPS * ROWS, 1024))  # every batch, in order
    assert peak < 4 * group  # a whole-file reader holds them all: about GROUPS row groups
