"""truth/changes chunks as Arrow IPC streams: what a merge reads, written at memory speed.

A Spark partition's changes are chunks that :func:`generators.changes_truth.merge_table`
re-reads and writes again in the final row groups: its Parquet encoding (dictionary pages,
zstd) would be undone by the merge. ``ChangesRecorder(..., ipc=True)`` writes them as Arrow
IPC streams instead (``.arrow``: the record batches as they are, no encoding), and the merge
reads either kind through :func:`chunk_schema` / :func:`chunk_batches` — the same batches,
so the same merged bytes; the Parquet encoding of truth/changes happens once, in the merge.
The single-process engine does the same with the changes of a table that no longer fits its
memory budget (``_Segment.spill``: LZ4-compressed streams). A stream is read through a file,
not a memory map: mapped pages read would count in the resident set until the chunk ends.
"""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa
import pyarrow.parquet as pq

__all__ = ["IPC_SUFFIX", "is_ipc", "open_ipc", "chunk_schema", "chunk_batches"]

IPC_SUFFIX = ".arrow"


def is_ipc(path: str) -> bool:
    return str(path).endswith(IPC_SUFFIX)


def open_ipc(path: str, schema: pa.Schema, compression: str | None = None) -> pa.ipc.RecordBatchStreamWriter:
    """A stream writer of ``schema`` at ``path`` (``write_batch`` / ``close``, like a
    ParquetWriter); ``compression``: the IPC body compression (``"lz4"``, ``"zstd"``), none
    by default."""
    return pa.ipc.new_stream(str(path), schema, options=pa.ipc.IpcWriteOptions(compression=compression))


def chunk_schema(path: str) -> pa.Schema:
    """The schema of a chunk (Arrow IPC stream or Parquet file)."""
    if is_ipc(path):
        with pa.memory_map(str(path)) as src:
            return pa.ipc.open_stream(src).schema
    return pq.read_schema(path)


def chunk_batches(path: str, batch_size: int) -> Iterator[pa.RecordBatch]:
    """The record batches of a chunk in order (a Parquet file's in batches of ``batch_size``).

    A Parquet chunk is read one row group at a time (a reader per row group): one reader over
    the whole file keeps the pre-buffered column chunks of every row group it has passed
    until it ends (pyarrow 26: its memory grew with the file, 0.4 GB per GB of the 100-column
    table's changes, the merge's peak; issue #28). The batches are the same either way."""
    if is_ipc(path):
        with pa.OSFile(str(path)) as src:  # read, not mapped: the pages read stay out of the resident set
            yield from pa.ipc.open_stream(src)
        return
    f = pq.ParquetFile(path)
    for g in range(f.metadata.num_row_groups):
        yield from f.iter_batches(batch_size=batch_size, row_groups=[g])
