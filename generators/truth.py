"""Ground truth: the canonical row form of docs/output.md and ``truth/snapshot.sql``.

:func:`canonical_renderer` turns a row of Python values into the canonical JSON values
(docs/output.md "Canonical row form"): integers/YEAR/BIT as integers, DECIMAL as a string with
exactly ``scale`` digits, FLOAT widened from float32, temporals with all fsp digits
(TIMESTAMP in UTC), CHAR without trailing spaces, binary data and geometry as ``0x`` hex
(BINARY(n) padded with 0x00 to n bytes as the server stores it), JSON as MySQL prints it.
:func:`canonical_key` is the order of ``truth/final`` (its external sort:
generators/final_sort.py).
:func:`generators.columns.sql_literal` writes the same values as SQL for ``snapshot.sql``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from binlogwriter.schema import Column, Table
from binlogwriter.values.families import family_of_type
from binlogwriter.values.json_columns import JObj, JStrList
from binlogwriter.values.json_text import jsonl_safe
from binlogwriter.values.row import ColumnArray

__all__ = ["canonical_renderer", "render_column", "render_json", "canonical_key", "column_blocks", "dumps_line",
           "render_temporal"]

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
    (the truncation ``_fsp_frac`` makes), JSON documents that are objects or arrays given as
    columns by :func:`generators.json_texts.json_texts` (MySQL's text, built by Arrow over
    the whole column: the change truth's typed path); everything else value by value."""
    fn = column_renderer(col, flavor) if fn is None else fn
    if isinstance(values, ColumnArray):
        got = render_json(col, values) if values.kind == "json" else _render_units(col, fn, values)
        if got is not None:
            return got
        values = values.tolist()
    return [None if v is None else fn(v) for v in values]


def render_json(col: Column, values: ColumnArray) -> list | None:
    """A JSON column's documents given as columns (objects, arrays of strings) as their
    canonical texts, or None (other documents: value by value). The text of an object or
    array is the same for MySQL and MariaDB (only a MariaDB document that is a string
    differs: it is never one of these)."""
    if col.type != "JSON" or not isinstance(values.data, JObj | JStrList):
        return None
    from generators.json_texts import json_texts  # imports pyarrow: spark_gen/daemon.py forks first

    got = json_texts(values.data, values.nulls)
    return None if got is None else got.to_pylist()


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


def column_blocks(rows: Iterable[list], ncols: int, size: int) -> Iterator[list[list]]:
    """Rows (lists of ``ncols`` values) as blocks of at most ``size`` rows, each block a list of
    columns; at least one block (of empty columns when there are no rows)."""
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
