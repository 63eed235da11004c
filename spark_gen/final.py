"""truth/final without a global sort: sorted runs per key bucket, one merge per table.

``truth/final/<db>.<table>.jsonl`` is the table's final rows in canonical order
(generators/truth.py ``canonical_key``, ties in key order); the typed Parquet beside it holds
the same rows in the same order (generators/changes_truth.py ``write_final_parquet``).

The history blocks are partitioned by key bucket, so every partition holds a disjoint set of
keys in no useful order. Instead of a global sort (a sampling job, then every rendered row
pickled through the JVM's shuffle, then a job per output kind and a re-encoding merge of the
Parquet pieces):

1. :func:`sorted_runs` — each history partition renders its live rows (``truth_rows``) and
   writes them per table as sorted runs (at most :data:`RUN_ROWS` rows each: bounded
   memory) of pickled blocks into a directory unique to its task attempt; it returns the
   runs and its live row count per table;
2. :func:`merge_runs` — one task per table merges that table's runs (``heapq.merge`` on the
   same keys the sort used: a total order, so the result is the sorted order whatever the
   partitioning) and writes the JSONL and the Parquet file in one pass — the final bytes
   written once, each into ``<name>.part`` and renamed (spark_gen/commit.py's rule).
"""

from __future__ import annotations

import heapq
import os
import pickle
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

__all__ = ["RUN_ROWS", "sorted_runs", "merge_runs", "read_run"]

RUN_ROWS = 200_000  # rows of one table held in memory before a sorted run is written
_BLOCK = 4096  # rows per pickled block of a run file


def _write_run(rows: list[tuple[Any, str, Any]], path: str) -> None:
    rows.sort(key=lambda r: r[0])
    with open(path, "wb") as f:
        for lo in range(0, len(rows), _BLOCK):
            pickle.dump(rows[lo:lo + _BLOCK], f, protocol=pickle.HIGHEST_PROTOCOL)


def read_run(path: str) -> Iterator[tuple[Any, str, Any]]:
    """The rows of a run file, in order."""
    with open(path, "rb") as f:
        while True:
            try:
                block = pickle.load(f)
            except EOFError:
                return
            yield from block


def sorted_runs(spec: Any, stop: int, blocks: Iterable[dict[str, np.ndarray]], run_dir: str, ntables: int,
                values: bool) -> list[tuple[str, Any]]:
    """One history partition -> ``[("counts", live rows per table), ("run", (table, path)), ...]``:
    its rows live after transaction ``stop - 1``, rendered and sorted per table into run
    files in ``run_dir`` (``values``: also the canonical values, for the Parquet)."""
    from spark_gen.partition import final_states, truth_rows

    os.makedirs(run_dir, exist_ok=True)
    held: dict[int, list[tuple[Any, str, Any]]] = {}
    counts = [0] * ntables
    out: list[tuple[str, Any]] = []

    def spill(t: int) -> None:
        path = os.path.join(run_dir, f"t{t:05d}-{len(out):06d}.run")
        _write_run(held.pop(t), path)
        out.append(("run", (t, path)))

    for (t, ckey, k), (line, vals) in truth_rows(spec, stop, final_states(blocks, stop), values):
        lst = held.setdefault(t, [])
        lst.append(((ckey, k), line, vals))
        counts[t] += 1
        if len(lst) >= RUN_ROWS:
            spill(t)
    for t in sorted(held):
        spill(t)
    return [("counts", counts), *out]


def merge_runs(runs: list[str], jsonl: str | None, parquet: str | None, table: Any, flavor: str) -> int:
    """Merge one table's sorted runs into ``jsonl`` (None: not written) and the typed
    Parquet ``parquet`` (None: not written); returns the rows."""
    from generators.changes_truth import write_final_parquet

    merged = heapq.merge(*(read_run(p) for p in runs), key=lambda r: r[0])
    n = 0
    part = f"{jsonl}.part-{os.getpid()}" if jsonl is not None else None
    f = open(part, "w", encoding="utf-8", newline="\n") if part is not None else None  # noqa: SIM115
    try:
        if parquet is None:
            for _, line, _vals in merged:
                if f is not None:
                    f.write(line + "\n")
                n += 1
        else:
            def vals() -> Iterator[Any]:
                nonlocal n
                for _, line, v in merged:
                    if f is not None:
                        f.write(line + "\n")
                    n += 1
                    yield v
            write_final_parquet(table, flavor, vals(), parquet)
        if f is not None:
            f.flush()
            os.fsync(f.fileno())
    finally:
        if f is not None:
            f.close()
    if part is not None:
        os.replace(part, jsonl)
    return n
