"""The external sort of ``truth/final`` (docs/output.md "Final state"): canonical rows
sorted by :func:`generators.truth.canonical_key` (null < number < string, ties in input
order) into JSON lines, with bounded memory — sorted runs spill to temporary files and are
merged (runs that already follow one another in key order are concatenated) — and handed on
in that order as blocks of columns (``truth/final/parquet`` is written from them)."""

from __future__ import annotations

import heapq
import os
import pickle
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from generators.changes_jsonl import object_lines
from generators.truth import canonical_key, column_blocks

__all__ = ["canonical_order", "write_sorted_jsonl", "sorted_jsonl_rows", "sorted_jsonl_blocks"]


def write_sorted_jsonl(path: Path, names: list[str], rows: Iterable[list], *, chunk: int = 20_000) -> int:
    """Write canonical rows to ``path`` sorted by :func:`canonical_key`; bounded memory
    (:func:`sorted_jsonl_rows` over blocks of ``chunk`` rows)."""
    return sum(1 for _ in sorted_jsonl_rows(path, names, column_blocks(rows, len(names), chunk), chunk=chunk))


SORT_CELLS = 2_000_000
"""Values (rows x columns) of ``truth/final`` held in memory while it is sorted
(:func:`sorted_jsonl_blocks`): a run of that many is sorted and spilled; a narrow table
sorts many more rows at once than a 1,000-column one."""
SORT_BYTES = 64 << 20
"""The other bound of a run (:func:`sorted_jsonl_blocks`): its values' estimated size
(:func:`_block_bytes`: :data:`CELL_BYTES` a value plus the characters of its text). A
table of long texts or JSON documents spills by this one before :data:`SORT_CELLS` (a run's
sort holds about three times it: values, lines, ranks)."""
CELL_BYTES = 32
MERGE_FAN_IN = 16
"""Spilled runs merged at once: when that many are spilled they are merged into one run
file (consecutive runs in input order, so the merge stays stable), so the final merge, which
holds a block of every run, holds at most this many blocks however large the table."""
OUT_BLOCK = 4096  # rows per block of columns that :func:`sorted_jsonl_blocks` yields
RUN_BLOCK_CELLS = 32_768
"""Values per pickled block of a spilled run: the merge holds one block of every run, so a
wide table's blocks have fewer rows (a 10 GB run's widest table spills about a hundred runs)."""


def sorted_jsonl_rows(path: Path, names: list[str], blocks: Iterable[list[list]], *,
                      chunk: int | None = None) -> Iterator[list]:
    """:func:`sorted_jsonl_blocks`, yielding the rows one by one (each a list of values)."""
    for cols in sorted_jsonl_blocks(path, names, blocks, chunk=chunk):
        yield from map(list, zip(*cols, strict=True))


def sorted_jsonl_blocks(path: Path, names: list[str], blocks: Iterable[list[list]], *,
                        chunk: int | None = None) -> Iterator[list[list]]:
    """Write the canonical rows given as ``blocks`` (each a list of columns, canonical values)
    to ``path`` as JSON lines sorted by :func:`canonical_key` (ties in input order), and
    yield the rows in that order as blocks of columns of at most :data:`OUT_BLOCK` rows (the
    values each line holds; ``truth/final/parquet`` is written from them). Bounded memory:
    every ``chunk`` rows (default: :data:`SORT_CELLS` values), or sooner once the values
    held reach :data:`SORT_BYTES`, a sorted run spills to a temporary file (a stable sort of
    each run, :func:`canonical_order`, then a stable merge of the runs in input order: the
    stable sort of all rows, wherever the runs split); every :data:`MERGE_FAN_IN` runs are
    merged into one (:func:`_merge_spilled`), so the last merge holds a bounded number. The
    lines are written column by column (:func:`generators.changes_jsonl.object_lines`); a
    run keeps its lines and values (pickled), so the merge neither parses nor formats JSON,
    and its first and last rows' keys: runs that follow one another in key order (rows given
    in key order already, as a leading key column gives them) are concatenated, not merged
    row by row (:func:`_chained`). Must be consumed to the end."""
    if chunk is None:
        chunk = max(1, SORT_CELLS // max(1, len(names)))
    runs: list[_Run] = []
    pend: list[list] = [[] for _ in names]
    n = 0
    held = 0  # estimated bytes of ``pend`` (:func:`_block_bytes`)
    tmpdir = path.parent
    try:
        for cols in blocks:
            size = len(cols[0]) if cols else 0
            at = 0
            while at < size:  # runs of ``chunk`` rows, or fewer once SORT_BYTES are held
                k = min(size - at, chunk - n)
                piece = [c[at:at + k] for c in cols] if at or k < size else cols
                for acc, c in zip(pend, piece, strict=True):
                    acc.extend(c)
                held += _block_bytes(piece, k)
                at += k
                n += k
                if n >= chunk or held >= SORT_BYTES:
                    runs.append(_spill(names, pend, n, tmpdir))
                    pend = [[] for _ in names]
                    n = held = 0
                    if len(runs) >= MERGE_FAN_IN:
                        runs = [_merge_spilled(runs, len(names), tmpdir)]
        with open(path, "w", encoding="utf-8", newline="\n") as out:
            if not runs:
                for lines, cols in _sorted_blocks(names, pend, n):
                    out.writelines(line + "\n" for line in lines)
                    yield cols
                return
            if n:
                runs.append(_spill(names, pend, n, tmpdir))
            pend = []
            yield from _merge_runs(runs, len(names), out)
    finally:
        for r, _, _ in runs:
            try:
                os.unlink(r)
            except FileNotFoundError:
                pass


def _sorted_blocks(names: list[str], cols: list[list], n: int,
                   size: int | None = None) -> Iterator[tuple[list[str], list[list]]]:
    """The ``n`` rows of ``cols`` in :func:`canonical_order` as (lines, columns) of at most
    ``size`` (default :data:`OUT_BLOCK`) rows."""
    size = OUT_BLOCK if size is None else size
    lines = object_lines(names, cols, n)
    order = canonical_order(cols, n)
    if n and bool((order == np.arange(n)).all()):  # in order already (a leading key column): slices
        for s in range(0, n, size):
            yield lines[s:s + size], [c[s:s + size] for c in cols]
        return
    pick_all = order.tolist()
    for s in range(0, n, size):
        pick = pick_all[s:s + size]
        yield [lines[i] for i in pick], [[c[i] for i in pick] for c in cols]
    if n == 0:
        yield [], [[] for _ in cols]


_Run = tuple[str, tuple, tuple]
"""A spilled run: its file, the :func:`canonical_key` of its first row and of its last row."""


def _spill(names: list[str], cols: list[list], n: int, tmpdir: Path) -> _Run:
    """A sorted run of ``n`` >= 1 rows into a temporary file: its :func:`_sorted_blocks`,
    pickled one after another."""
    fd, name = tempfile.mkstemp(prefix=".sort-", suffix=".run", dir=tmpdir)
    first: tuple | None = None
    last: list[list] = []
    with os.fdopen(fd, "wb") as f:
        for part in _sorted_blocks(names, cols, n, max(1, RUN_BLOCK_CELLS // max(1, len(names)))):
            if first is None:
                first = canonical_key([c[0] for c in part[1]])
            last = part[1]
            _dump(part, f)
    return name, first or (), canonical_key([c[-1] for c in last])


def _chained(runs: list[_Run]) -> bool:
    """Whether each run's last row sorts no later than the next run's first row: then the
    stable merge of the runs is their concatenation (every row of a run sorts no earlier
    than every row of the runs before it; equal keys keep the earlier run's rows first, as
    ``heapq.merge`` does)."""
    return all(a[2] <= b[1] for a, b in zip(runs, runs[1:], strict=False))


def _dump(block: tuple[list[str], list[list]], f: Any) -> None:
    """One (lines, columns) block of a run pickled to ``f`` without the pickler's memo
    (``fast``): a block is flat lists of texts and numbers, no object refers to itself, so the
    memo would only record every value (about half the time of a dump) for references that
    never come; :func:`_run_blocks` loads the same values."""
    p = pickle.Pickler(f, protocol=pickle.HIGHEST_PROTOCOL)
    p.fast = True
    p.dump(block)


def _run_blocks(path: str) -> Iterator[tuple[list[str], list[list]]]:
    """The pickled (lines, columns) blocks of a spilled run, in order."""
    with open(path, "rb") as f:
        while True:
            try:
                yield pickle.load(f)
            except EOFError:
                return


def _block_bytes(cols: list[list], n: int) -> int:
    """The estimated memory of ``n`` rows of canonical values: :data:`CELL_BYTES` a value plus
    the characters of every text (a column of numbers is passed over at its first value)."""
    total = CELL_BYTES * n * len(cols)
    for c in cols:
        try:  # NULLs and empty texts add nothing: a column of texts and NULLs at C speed
            total += sum(map(len, filter(None, c)))
        except TypeError:  # numbers: only the texts count
            total += sum(len(v) for v in c if isinstance(v, str))
    return total


def _merge_spilled(runs: list[_Run], ncols: int, tmpdir: Path) -> _Run:
    """Spilled runs (consecutive, in input order) -> one run file holding their stable merge
    (:func:`_chained` runs: their files' bytes one after another, pickled blocks as
    :func:`_spill` writes them; else merged row by row, in blocks of :data:`RUN_BLOCK_CELLS`
    values); the runs merged are removed."""
    size = max(1, RUN_BLOCK_CELLS // max(1, ncols))
    fd, name = tempfile.mkstemp(prefix=".sort-", suffix=".run", dir=tmpdir)
    try:
        with os.fdopen(fd, "wb") as f:
            if _chained(runs):
                for r, _, _ in runs:
                    with open(r, "rb") as src:
                        while chunk := src.read(1 << 20):
                            f.write(chunk)
            else:
                for lines, cols in _merged_blocks([r for r, _, _ in runs], ncols, size):
                    _dump((lines, cols), f)
    except BaseException:
        os.unlink(name)
        raise
    for r, _, _ in runs:
        os.unlink(r)
    return name, min(r[1] for r in runs), max(r[2] for r in runs)


def _merged_blocks(paths: list[str], ncols: int, size: int) -> Iterator[tuple[list[str], list[list]]]:
    """The stable merge of sorted runs (``heapq.merge``: ties from earlier runs first) as
    (lines, columns) blocks of ``size`` rows (the last one shorter; none when empty)."""
    buf: list[tuple] = []
    lines: list[str] = []
    for _, line, vals in heapq.merge(*(_run_rows(r) for r in paths), key=lambda x: x[0]):
        lines.append(line)
        buf.append(vals)
        if len(buf) >= size:
            yield lines, [list(c) for c in zip(*buf, strict=True)] if ncols else []
            lines, buf = [], []
    if buf:
        yield lines, [list(c) for c in zip(*buf, strict=True)] if ncols else []


def _run_rows(path: str) -> Iterator[tuple[tuple, str, tuple]]:
    """The rows of a spilled run in order: (:func:`canonical_key`, line, values), the keys made
    column by column."""
    for lines, cols in _run_blocks(path):
        if lines:
            keys = zip(*[_keyed(c) for c in cols], strict=True) if cols else [()] * len(lines)
            yield from zip(keys, lines, zip(*cols, strict=True) if cols else [()] * len(lines), strict=True)


def _keyed(vals: list) -> list[tuple]:
    """:func:`canonical_key`'s part for each value of one column."""
    kinds = set(map(type, vals))
    if kinds == {str}:
        return [(2, v) for v in vals]
    if kinds <= {int, float, bool}:
        return [(1, v) for v in vals]
    return [(0, 0) if v is None else (1, v) if isinstance(v, int | float) else (2, v) for v in vals]


def _merge_runs(runs: list[_Run], ncols: int, out: Any) -> Iterator[list[list]]:
    """The stable merge of sorted runs: lines to ``out``, values yielded as blocks of columns
    of :data:`OUT_BLOCK` rows (the last one shorter). :func:`_chained` runs are read one after
    another and cut into blocks, others merged row by row (:func:`_merged_blocks`)."""
    paths = [r for r, _, _ in runs]
    if not _chained(runs):
        for lines, cols in _merged_blocks(paths, ncols, OUT_BLOCK):
            out.writelines(x + "\n" for x in lines)
            yield cols
        return
    acc: list[list] = [[] for _ in range(ncols)]
    held = 0
    for p in paths:
        for lines, cols in _run_blocks(p):
            out.writelines(x + "\n" for x in lines)
            for a, c in zip(acc, cols, strict=True):
                a.extend(c)
            held += len(lines)
            while held >= OUT_BLOCK:
                yield [a[:OUT_BLOCK] for a in acc]
                acc = [a[OUT_BLOCK:] for a in acc]
                held -= OUT_BLOCK
    if held:
        yield acc


def canonical_order(cols: list[list], n: int) -> np.ndarray:
    """The stable order of ``n`` rows (given as columns of canonical values) by
    :func:`canonical_key`: per column the rank of each value in the order null < number <
    string (numbers by value, strings by code point, equal values one rank), folded column
    by column into each row's dense rank among the rows by the columns so far (a row's
    rank by columns ``0..j`` orders as the tuple of its ranks per column), then a stable
    argsort, the row index breaking the ties. Once every row's rank is distinct the later
    columns cannot change the order and are not ranked (a leading key column: one column
    ranked, not all). (No canonical value is NaN: MySQL stores none.)"""
    group = np.zeros(n, dtype=np.int64)
    distinct = 1 if n else 0
    for c in cols:
        if distinct == n:
            break
        r = _ranks(c)
        combined = group * np.int64(int(r.max()) + 1) + r if distinct > 1 else r
        uniq, inv = np.unique(combined, return_inverse=True)
        group = inv.reshape(-1).astype(np.int64)
        distinct = len(uniq)
    return np.argsort(group, kind="stable").astype(np.int64)


def _ranks(vals: list) -> np.ndarray:
    """Each value's rank in :func:`canonical_key`'s order of one column: equal ranks for
    equal values (``1 == 1.0 == True``, ``0.0 == -0.0``), by numpy for a column of int64
    integers or of floats alone, else through the distinct values sorted in Python."""
    kinds = set(map(type, vals))
    kinds.discard(type(None))
    if kinds and (kinds <= {int, bool} or kinds == {float}):
        got = _numeric_ranks(vals, float if kinds == {float} else int)
        if got is not None:
            return got
    distinct = set(vals)
    distinct.discard(None)
    if kinds <= {int, bool, float}:
        nums, strs = list(distinct), []
    elif kinds == {str}:
        nums, strs = [], list(distinct)
    else:
        nums = [v for v in distinct if isinstance(v, int | float)]
        strs = [v for v in distinct if not isinstance(v, int | float)]
    rank: dict[Any, int] = {None: 0}
    rank.update((v, i) for i, v in enumerate(sorted(nums), 1))
    rank.update((v, i) for i, v in enumerate(sorted(strs), len(nums) + 1))
    return np.fromiter(map(rank.__getitem__, vals), dtype=np.int64, count=len(vals))


def _numeric_ranks(vals: list, kind: type) -> np.ndarray | None:
    """:func:`_ranks` of integers within int64 (``kind`` int) or of floats: numpy's sort and
    ``unique`` (which find ``-0.0`` equal to ``0.0``, as Python does); None past int64."""
    nulls = np.fromiter((v is None for v in vals), dtype=np.bool_, count=len(vals))
    try:
        arr = np.array([0 if v is None else v for v in vals], dtype=np.float64 if kind is float else np.int64)
    except OverflowError:
        return None
    _, inv = np.unique(arr[~nulls], return_inverse=True)
    out = np.zeros(len(vals), dtype=np.int64)
    out[~nulls] = inv.reshape(-1) + 1
    return out

