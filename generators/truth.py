"""Ground truth: the canonical row form of docs/output.md and ``truth/snapshot.sql``.

:func:`canonical_renderer` turns a row of Python values into the canonical JSON values
(docs/output.md "Canonical row form"): integers/YEAR/BIT as integers, DECIMAL as a string with
exactly ``scale`` digits, FLOAT widened from float32, temporals with all fsp digits
(TIMESTAMP in UTC), CHAR without trailing spaces, binary data and geometry as ``0x`` hex
(BINARY(n) padded with 0x00 to n bytes as the server stores it), JSON as MySQL prints it.
:func:`write_sorted_jsonl` writes lines sorted by all column values (null < number <
string) with bounded memory: sorted runs spill to temporary files and are merged.
:func:`generators.columns.sql_literal` writes the same values as SQL for ``snapshot.sql``.
"""

from __future__ import annotations

import heapq
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from binlogwriter.schema import Column, Table
from binlogwriter.values.families import family_of_type
from binlogwriter.values.json_text import jsonl_safe
from binlogwriter.values.row import ColumnArray
from generators.changes_jsonl import object_lines

__all__ = ["canonical_renderer", "render_column", "canonical_key", "canonical_order", "write_sorted_jsonl", "sorted_jsonl_rows",
           "dumps_line", "render_temporal"]

_BYTES_TYPES = ("BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB")
_TEMPORAL_TYPES = ("DATE", "DATETIME", "TIMESTAMP", "TIME")


def render_temporal(col: Column, v: Any) -> str:
    """DATE / DATETIME / TIMESTAMP / TIME as the server prints them (all fsp digits, UTC): the
    type family's ``truth_renderer`` (binlogwriter/values/<family>.py)."""
    if col.type not in _TEMPORAL_TYPES:
        raise ValueError(col.type)
    return column_renderer(col, "")(v)


def column_renderer(col: Column, flavor: str) -> Callable[[Any], Any]:
    """fn(python value) -> canonical JSON value of one column: its type family's
    ``truth_renderer`` (binlogwriter/values/families.py)."""
    fam = family_of_type(col.type)
    if fam is None:
        raise ValueError(f"no canonical form for {col.type}")
    return fam.truth_renderer(col, flavor)


def render_column(col: Column, flavor: str, values: Any, fn: Callable[[Any], Any] | None = None) -> list:
    """The canonical values of one column of many rows (a ``ColumnArray`` or a list of Python
    values; None for NULL): ``fn`` (default :func:`column_renderer`) of each value, made from
    the arrays where the family's text follows from its units alone — integers and DOUBLE as
    they are, DECIMAL digits at exactly the scale (units finer than the scale are rounded
    value by value), DATE / DATETIME / TIMESTAMP by numpy's ISO text cut to the column's fsp
    (the truncation ``_fsp_frac`` makes); everything else value by value."""
    fn = column_renderer(col, flavor) if fn is None else fn
    if isinstance(values, ColumnArray):
        got = _render_units(col, fn, values)
        if got is not None:
            return got
        values = values.tolist()
    return [None if v is None else fn(v) for v in values]


_US_MIN, _US_MAX = -62_135_596_800_000_000, 253_402_300_799_999_999  # years 1 and 9999 (microseconds)
_DAY_MIN, _DAY_MAX = -719_162, 2_932_896


def _render_units(col: Column, fn: Callable[[Any], Any], values: ColumnArray) -> list | None:
    kind = values.kind
    if (kind == "int" and fn is int) or (kind == "float" and fn is float):
        return values.tolist()
    if kind not in ("dec", "dt", "ts", "date") or col.type not in ("DECIMAL", "DATETIME", "TIMESTAMP", "DATE"):
        return None
    data = np.asarray(values.data, dtype=np.int64)
    nulls = values.nulls
    live = data if nulls is None else data[~np.asarray(nulls, dtype=np.bool_)]
    if kind == "dec":
        s = col.scale or 0
        shift = s - int(values.meta)
        if col.type != "DECIMAL" or shift < 0 or s > 18 or \
                (len(live) and int(np.abs(live).max()) >= (1 << 63) // 10 ** shift):
            return None
        units = data * np.int64(10 ** shift)
        neg = (units < 0).tolist()
        whole, frac = np.divmod(np.abs(units), np.int64(10 ** s))
        if s:
            texts = [f"-{w}.{f:0{s}d}" if z else f"{w}.{f:0{s}d}"
                     for w, f, z in zip(whole.tolist(), frac.tolist(), neg, strict=True)]
        else:
            texts = [f"-{w}" if z else f"{w}" for w, z in zip(whole.tolist(), neg, strict=True)]
    elif kind == "date":
        if col.type != "DATE" or (len(live) and (int(live.min()) < _DAY_MIN or int(live.max()) > _DAY_MAX)):
            return None
        texts = np.datetime_as_string((np.where(nulls, 0, data) if nulls is not None else data).astype("M8[D]"),
                                      unit="D").tolist()
    else:
        if col.type != ("TIMESTAMP" if kind == "ts" else "DATETIME") or \
                (len(live) and (int(live.min()) < _US_MIN or int(live.max()) > _US_MAX)):
            return None
        fsp = col.fsp or 0
        w = 20 + fsp if fsp else 19
        iso = np.datetime_as_string((np.where(nulls, 0, data) if nulls is not None else data).astype("M8[us]"),
                                    unit="us").tolist()
        texts = [f"{t[:10]} {t[11:w]}" for t in iso]
    if nulls is not None:
        texts = [None if z else t for t, z in zip(texts, np.asarray(nulls).tolist(), strict=True)]
    return texts


def canonical_renderer(table: Table, flavor: str) -> Callable[[tuple], list]:
    fns = [column_renderer(c, flavor) for c in table.columns]

    def render(row: tuple) -> list:
        return [None if v is None else f(v) for f, v in zip(fns, row, strict=True)]
    return render


def canonical_key(values: Iterable[Any]) -> tuple:
    """docs/output.md ordering: null < number < string; numbers numerically, strings by code point."""
    return tuple((0, 0) if v is None else (1, v) if isinstance(v, int | float) else (2, v) for v in values)


def dumps_line(names: list[str], values: list) -> str:
    return jsonl_safe(json.dumps(dict(zip(names, values, strict=True)), ensure_ascii=False, separators=(",", ":")))


def write_sorted_jsonl(path: Path, names: list[str], rows: Iterable[list], *, chunk: int = 20_000) -> int:
    """Write canonical rows to ``path`` sorted by :func:`canonical_key`; bounded memory
    (:func:`sorted_jsonl_rows` over blocks of ``chunk`` rows)."""
    return sum(1 for _ in sorted_jsonl_rows(path, names, _column_blocks(rows, len(names), chunk), chunk=chunk))


def _column_blocks(rows: Iterable[list], ncols: int, size: int) -> Iterator[list[list]]:
    buf: list[list] = []
    for r in rows:
        buf.append(r)
        if len(buf) >= size:
            yield [list(c) for c in zip(*buf, strict=True)]
            buf = []
    if buf:
        yield [list(c) for c in zip(*buf, strict=True)]
    elif ncols:
        yield [[] for _ in range(ncols)]


def sorted_jsonl_rows(path: Path, names: list[str], blocks: Iterable[list[list]], *,
                      chunk: int = 20_000) -> Iterator[list]:
    """Write the canonical rows given as ``blocks`` (each a list of columns, canonical values)
    to ``path`` as JSON lines sorted by :func:`canonical_key` (ties in input order), and
    yield the rows in that order (the values each line holds; ``truth/final/parquet``
    is written from them). Bounded memory: every ``chunk`` rows a sorted run spills to a
    temporary file (a stable sort of each run, :func:`canonical_order`, then a stable merge
    of the runs in input order: the stable sort of all rows, wherever the runs split). The
    lines are written column by column (:func:`generators.changes_jsonl.object_lines`).
    Must be consumed to the end."""
    runs: list[str] = []
    pend: list[list] = [[] for _ in names]
    n = 0
    tmpdir = path.parent
    try:
        for cols in blocks:
            for acc, c in zip(pend, cols, strict=True):
                acc.extend(c)
            n = len(pend[0]) if pend else 0
            if n >= chunk:
                runs.append(_spill(_sorted_lines(names, pend, n), tmpdir))
                pend = [[] for _ in names]
                n = 0
        with open(path, "w", encoding="utf-8", newline="\n") as out:
            if not runs:
                order = canonical_order(pend, n)
                lines = object_lines(names, pend, n)
                out.writelines(lines[i] + "\n" for i in order.tolist())
                srt = [[c[i] for i in order.tolist()] for c in pend]
                yield from map(list, zip(*srt, strict=True))
                return
            runs.append(_spill(_sorted_lines(names, pend, n), tmpdir))
            files = [open(r, encoding="utf-8") for r in runs]  # noqa: SIM115 - closed below
            try:
                def keyed(f):
                    for line in f:
                        vals = list(json.loads(line).values())
                        yield canonical_key(vals), line, vals
                for _, line, vals in heapq.merge(*(keyed(f) for f in files), key=lambda x: x[0]):
                    out.write(line)
                    yield vals
            finally:
                for f in files:
                    f.close()
    finally:
        for r in runs:
            try:
                os.unlink(r)
            except FileNotFoundError:
                pass


def _sorted_lines(names: list[str], cols: list[list], n: int) -> list[str]:
    lines = object_lines(names, cols, n)
    return [lines[i] for i in canonical_order(cols, n).tolist()]


def canonical_order(cols: list[list], n: int) -> np.ndarray:
    """The stable order of ``n`` rows (given as columns of canonical values) by
    :func:`canonical_key`: per column the rank of each value in the order null < number <
    string (numbers by value, strings by code point, equal values one rank), then one
    ``np.lexsort`` with the row index as the last tie-break. (No canonical value is NaN:
    MySQL stores none.)"""
    ranks = [_ranks(c) for c in cols]
    return np.lexsort([np.arange(n, dtype=np.int64), *ranks[::-1]]).astype(np.int64)


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


def _spill(lines: list[str], tmpdir: Path) -> str:
    fd, name = tempfile.mkstemp(prefix=".sort-", suffix=".jsonl", dir=tmpdir)
    with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
        f.writelines(line + "\n" for line in lines)
    return name
