"""``truth/final`` of one table (docs/output.md "Final state") from the arrays its rows are
computed as: typed Arrow columns, the JSON lines joined column by column by Arrow, no Python
value per row where the canonical form allows it.

The order of truth/final is :func:`generators.truth.canonical_key`'s (null < number <
string, ties in input order). Rows are computed in key order (``TableRows.compute_columns``
of the live keys, ascending); when the first column's canonical values strictly increase
along that order (an AUTO_INCREMENT or other leading key: integers, or text compared by
code point, which is the byte order of UTF-8), every row's key differs in its first value
and the sorted order is the input order: :func:`write_final_table` then writes each block
of rows as it comes — the Parquet columns are the typed arrays the change-stream truth
builds (:func:`generators.changes_arrow.typed_array`, the same values as
``typed_converter`` of the canonical values), and each column's JSON texts come from those
arrays (:func:`json_texts`). Otherwise — a keyless table, a composite key, a first column
that is not a key — the external sort of generators/final_sort.py orders the canonical rows
(:func:`write_final_sorted`); a table found out of order mid-way is started again that way.
Both write the bytes of the whole-table reference of tests/generators/test_final_chunked.py.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from binlogwriter.schema import Column, Table
from binlogwriter.values.json_text import jsonl_safe
from generators.arrow_arrays import py_array, string_array
from generators.changes_arrow import final_schema, typed_array
from generators.changes_jsonl import json_strings, object_keys
from generators.final_sort import sorted_jsonl_blocks
from generators.truth import column_renderer, render_column

__all__ = ["BLOCK", "key_blocks", "write_final_table", "write_final_sorted", "json_texts", "final_lines",
           "FirstColumnOrder"]

BLOCK = 4096
"""Live keys whose rows are computed at once (a block of columns)."""

_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_SEPARATORS = r"[\x{85}\x{2028}\x{2029}]"
_MAX_PLAIN_SCALE = 6
"""DECIMAL scales whose Arrow text is the canonical one (plain digits): past 6 fraction digits
Arrow writes small values in exponent form (``1E-7``)."""


def key_blocks(rt: Any, size: int | None = None) -> Iterator[list]:
    """The rows of every live key of ``rt`` (a ``TableRows``) in key order, as blocks of
    columns of at most ``size`` (:data:`BLOCK`) rows: per column a ``ColumnArray`` or a list
    of Python values (``compute_columns``)."""
    size = BLOCK if size is None else size
    live = np.flatnonzero(rt.live[:rt.next_key]).astype(np.int64)
    for s in range(0, len(live), size):
        keys = live[s:s + size]
        ti, tu = rt.times(keys)
        yield rt.compute_columns(keys, rt.ver[keys].astype(np.int64), rt.born[keys].astype(np.int64), ti=ti, tu=tu)


def write_final_table(rt: Any, flavor: str, final_dir: Path) -> None:
    """``truth/final/<db>.<table>.jsonl`` and ``truth/final/parquet/<db>.<table>.parquet`` of
    ``rt``: block by block when the first column orders the rows (module docstring), else
    (or once a block shows it does not) by :func:`write_final_sorted`."""
    from generators.changes_truth import table_file

    t = rt.table
    jsonl = final_dir / table_file(t, ".jsonl")
    dest = final_dir / "parquet" / table_file(t)
    if rt.live[:rt.next_key].any() and _write_in_order(rt, flavor, jsonl, dest):
        return
    write_final_sorted(rt, flavor, jsonl, dest)


def write_final_sorted(rt: Any, flavor: str, jsonl: Path, dest: Path) -> None:
    """truth/final of ``rt`` through the external sort of canonical rows
    (generators/final_sort.py), the Parquet file from the sorted canonical values."""
    from generators.changes_truth import write_final_parquet_columns

    t = rt.table
    fns = [column_renderer(c, flavor) for c in t.columns]
    names = [c.name for c in t.columns]
    blocks = ([render_column(col, flavor, c, f) for col, f, c in zip(t.columns, fns, cols, strict=True)]
              for cols in key_blocks(rt))
    write_final_parquet_columns(t, flavor, sorted_jsonl_blocks(jsonl, names, blocks), dest)


def _write_in_order(rt: Any, flavor: str, jsonl: Path, dest: Path) -> bool:
    """The in-order path of :func:`write_final_table`; False (nothing left behind but a JSONL
    file the sorted path rewrites) as soon as a block breaks the first column's order."""
    from generators.changes_truth import write_final_pieces

    t = rt.table
    keys = object_keys([c.name for c in t.columns], escape=False)
    schema = final_schema(t, flavor)
    order = FirstColumnOrder()

    def pieces(out: Any) -> Iterator[list[pa.Array]]:
        for cols in key_blocks(rt):
            typed: list[pa.Array] = []
            texts: list[dict[int, str]] = []
            for col, c in zip(t.columns, cols, strict=True):
                arr, tx = typed_array(col, flavor, c)
                typed.append(arr)
                texts.append(tx)
            if not order.follows(typed[0], texts[0]):
                raise _OutOfOrder
            lines = final_lines(keys, [json_texts(col, flavor, c, a, tx)
                                       for col, c, a, tx in zip(t.columns, cols, typed, texts, strict=True)])
            out.write(_text_bytes(lines))
            typed.append(_text_map(t, texts, len(typed[0]), schema.field("_text").type))
            yield typed
    try:
        with open(jsonl, "wb") as out:
            write_final_pieces(schema, pieces(out), dest)
    except _OutOfOrder:
        return False
    return True


class _OutOfOrder(Exception):
    """A block of rows whose first column does not strictly increase (:class:`FirstColumnOrder`)."""


class FirstColumnOrder:
    """Whether the first column's canonical values strictly increase over the blocks given so
    far: integers, or text (compared by code point: Arrow compares UTF-8 bytes, in the same
    order), none NULL and none kept as a canonical text beside a typed NULL."""

    def __init__(self) -> None:
        self.last: Any = None

    def follows(self, arr: pa.Array, texts: dict[int, str]) -> bool:
        n = len(arr)
        if texts or arr.null_count or not n:
            return False
        if pa.types.is_integer(arr.type):
            v = arr.to_numpy(zero_copy_only=False)
            rising = bool((v[1:] > v[:-1]).all())
        elif pa.types.is_string(arr.type):
            rising = n == 1 or bool(pc.all(pc.less(arr.slice(0, n - 1), arr.slice(1))).as_py())
        else:
            return False
        first, last = arr[0].as_py(), arr[n - 1].as_py()
        ok = rising and (self.last is None or self.last < first)
        self.last = last
        return ok


def final_lines(keys: list[str], texts: list[pa.Array]) -> pa.Array:
    """Lines of truth/final (each ending in a newline) from each column's ``"name":`` and its
    values' JSON texts: ``json.dumps(dict(zip(names, row)), ensure_ascii=False,
    separators=(",", ":"))`` of every row, joined by Arrow (large strings: no 2 GB bound)."""
    parts: list[Any] = []
    for i, (k, t) in enumerate(zip(keys, texts, strict=True)):
        parts.append(pa.scalar(("{" if i == 0 else ",") + k, pa.large_string()))
        parts.append(t.cast(pa.large_string()))
    parts.append(pa.scalar("}\n" if keys else "{}\n", pa.large_string()))
    return pc.binary_join_element_wise(*parts, pa.scalar("", pa.large_string()))


def _text_bytes(lines: pa.Array) -> memoryview:
    """The bytes of a large-string array's values, one after another."""
    _, offsets, data = lines.buffers()
    off = np.frombuffer(offsets, dtype=np.int64)[lines.offset:lines.offset + len(lines) + 1]
    return memoryview(data)[int(off[0]):int(off[-1])] if len(lines) else memoryview(b"")


def json_texts(col: Column, flavor: str, values: Any, typed: pa.Array, texts: dict[int, str]) -> pa.Array:
    """Each value's JSON text in a truth/final line ("null" for NULL) — the text of its
    canonical value (generators/truth.py): from the typed array where it holds the canonical
    value or one Arrow cast writes it (integers; text; dates; DATETIME / TIMESTAMP cut to the
    column's fsp; DECIMAL of scale up to :data:`_MAX_PLAIN_SCALE`), else from the canonical
    values (FLOAT / DOUBLE, TIME, binary data, values kept as text such as the zero date)."""
    typ = typed.type
    if not texts:
        if pa.types.is_integer(typ):
            return typed.cast(pa.string()).fill_null("null")
        if pa.types.is_string(typ):
            return _quoted(typed)
        if pa.types.is_date32(typ):
            return _quoted(typed.cast(pa.string()), plain=True)
        if pa.types.is_timestamp(typ) and typ.unit == "us":
            fsp = col.fsp or 0
            cut = pc.utf8_slice_codeunits(typed.cast(pa.string()), 0, 20 + fsp if fsp else 19)
            return _quoted(cut, plain=True)
        if pa.types.is_decimal(typ) and typ.scale <= _MAX_PLAIN_SCALE:
            return _quoted(typed.cast(pa.string()), plain=True)
    canon = render_column(col, flavor, values)
    kinds = set(map(type, canon))
    if kinds <= {float, type(None)} and all(math.isfinite(v) for v in canon if v is not None):
        out = string_array(["null" if v is None else float.__repr__(v) for v in canon])
    else:
        out = string_array([_ENCODE(v) for v in canon])
    return _safe(out)


def _quoted(arr: pa.Array, plain: bool = False) -> pa.Array:
    """JSON strings of a string array ("null" for NULL), escaped as
    :func:`generators.changes_jsonl.json_strings` escapes them (``plain``: texts that need
    no escape, such as ISO dates: only quoted)."""
    out = pc.binary_join_element_wise('"', arr, '"', "") if plain else json_strings(arr)
    return out.fill_null("null")


def _safe(arr: pa.Array) -> pa.Array:
    """:func:`jsonl_safe` of JSON texts made by Python's encoder (line separators escaped)."""
    need = pc.match_substring_regex(arr, _SEPARATORS).fill_null(False)
    if not len(arr) or not pc.any(need).as_py():
        return arr
    return pc.replace_with_mask(arr, need, string_array([jsonl_safe(v) for v in arr.filter(need).to_pylist()]))


def _text_map(table: Table, texts: list[dict[int, str]], n: int, typ: pa.DataType) -> pa.Array:
    """The ``_text`` column: per row the (column, canonical text) of values its typed columns
    hold as NULL (the zero date), in column order; NULL where there are none."""
    rows: dict[int, list] = {}
    for col, tx in zip(table.columns, texts, strict=True):
        for r, text in tx.items():
            rows.setdefault(r, []).append((col.name, text))
    return py_array([rows.get(r) for r in range(n)], typ)

