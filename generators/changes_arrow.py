"""Typed change-stream truth (part of generators/changes_truth.py): a column's Arrow type and
how its canonical values (generators/truth.py) become typed ones, the ``truth/changes``
Parquet schema, and Arrow arrays built straight from the batch path's numpy columns.

DECIMAL decimal128/256(p, s), BIGINT UNSIGNED uint64, FLOAT float32, DATE date32, DATETIME
timestamp[us], TIMESTAMP timestamp[us, UTC], TIME duration[us], text string, binary data
binary — the Arrow types of ``binlogwriter export`` (binlogwriter/read/export.py). A temporal
value Arrow cannot hold (the zero date) is null and its canonical text is kept beside it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa

from binlogwriter.read.export import arrow_type
from binlogwriter.schema import Column, Table
from binlogwriter.schema.tables import column_from_info as column_from_info  # re-exported (changes_truth)
from binlogwriter.values.json_columns import JObj, JStrList
from binlogwriter.values.row import ColumnArray
from generators.arrow_arrays import (  # noqa: F401 - py_array re-exported (changes_truth, tests)
    ascii_strings,
    np_array,
    np_bool,
    py_array,
    string_array,
    string_lists,
    validity_buffer,
)
from generators.arrow_typed import cast_texts, int_array, merge_edged, typed_runs, typed_units
from generators.changes_lists import IDENTITY_TEXT, typed_floats, typed_list
from generators.json_texts import json_texts
from generators.truth import column_renderer, render_column

_UTC = dt.UTC
_PLAIN = {t.id: py for ts, py in ((("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"), int),
                                   (("float32", "float64"), float), (("string",), str))
          for t in (pa.type_for_alias(x) for x in ts)}


# -- column types ---------------------------------------------------------------------------
def column_info(col: Column, flavor: str) -> dict[str, Any]:
    """A column's definition for ``manifest.json`` and the Parquet schema metadata: ``name``,
    ``type`` (SQL type name), ``nullable``, then only the attributes that are set (``length``,
    ``precision``, ``scale``, ``fsp``, ``unsigned``, ``charset``, ``collation``, ``members``,
    ``auto_increment``, …), and ``arrow_type``, the type of its typed truth."""
    d: dict[str, Any] = {"name": col.name, "type": col.type, "nullable": col.nullable}
    for f in dataclasses.fields(col):
        v = getattr(col, f.name)
        if f.name in d or v is None or v is False or v == () or v == f.default:
            continue
        d[f.name] = list(v) if isinstance(v, tuple) else v
    d["arrow_type"] = str(column_arrow_type(col, flavor))
    return d


_TYPES: dict[tuple[int, str], tuple[Column, pa.DataType]] = {}


def column_arrow_type(col: Column, flavor: str) -> pa.DataType:
    """The Arrow type of ``col``'s typed truth, kept per column object (a Column is frozen;
    the entry holds it, so its id is not reused): the truth thread asks once per column and
    batch, and building the column's binlog description costs tens of microseconds."""
    key = (id(col), flavor)
    hit = _TYPES.get(key)
    if hit is None or hit[0] is not col:
        if len(_TYPES) >= 4096:
            _TYPES.clear()
        hit = _TYPES[key] = (col, arrow_type(col.column_desc(flavor, "")))
    return hit[1]


def _temporal_parser(typ: pa.DataType) -> Callable[[str], Any]:
    if pa.types.is_date32(typ):
        return lambda s: dt.date(int(s[0:4]), int(s[5:7]), int(s[8:10]))
    if pa.types.is_timestamp(typ):
        tz = _UTC if typ.tz else None

        def ts(s: str) -> dt.datetime:
            frac = s[20:]
            return dt.datetime(int(s[0:4]), int(s[5:7]), int(s[8:10]), int(s[11:13]), int(s[14:16]),
                               int(s[17:19]), int(frac.ljust(6, "0")) if frac else 0, tzinfo=tz)
        return ts

    def time(s: str) -> dt.timedelta:
        neg = s.startswith("-")
        body = s[1:] if neg else s
        hms, _, frac = body.partition(".")
        h, m, sec = (int(x) for x in hms.split(":"))
        us = ((h * 60 + m) * 60 + sec) * 1_000_000 + (int(frac.ljust(6, "0")) if frac else 0)
        return dt.timedelta(microseconds=-us if neg else us)
    return time


_SAME, _CONVERT, _TEMPORAL = 0, 1, 2


def column_plan(col: Column, flavor: str) -> tuple[pa.DataType, int, Callable[[Any], Any] | None]:
    """(Arrow type, how, fn): how the canonical values of ``col`` become typed ones —
    ``_SAME`` as they are (integers, floats, text), ``_CONVERT`` through ``fn`` (DECIMAL
    text -> Decimal, ``0x`` hex -> bytes), ``_TEMPORAL`` parsed by ``fn``, or null plus the
    canonical text when it is not a calendar value (the zero date)."""
    typ = column_arrow_type(col, flavor)
    if pa.types.is_decimal(typ):
        return typ, _CONVERT, Decimal
    if pa.types.is_integer(typ) or pa.types.is_floating(typ) or pa.types.is_string(typ):
        return typ, _SAME, None
    if pa.types.is_binary(typ):
        return typ, _CONVERT, lambda v: bytes.fromhex(v[2:])
    if pa.types.is_date32(typ) or pa.types.is_timestamp(typ) or pa.types.is_duration(typ):
        return typ, _TEMPORAL, _temporal_parser(typ)
    raise ValueError(f"column {col.name}: no typed truth for Arrow type {typ}")


def typed_converter(col: Column, flavor: str) -> tuple[pa.DataType, Callable[[Any], tuple[Any, str | None]]]:
    """(Arrow type, fn(canonical value) -> (typed value, canonical text when the type cannot
    hold it))."""
    typ, how, fn = column_plan(col, flavor)

    def conv(v: Any) -> tuple[Any, str | None]:
        if how == _SAME:
            return v, None
        if how == _CONVERT:
            return fn(v), None
        try:
            return fn(v), None
        except (ValueError, OverflowError):
            return None, v
    return typ, conv


def typed_columns(plans: list, names: list[str], fulls: list) -> tuple[list[pa.Array], list]:
    """Canonical full rows (or None) -> one typed Arrow array per column, and per row the
    ``[(column, canonical text)]`` of values the types cannot hold (None when there are none)."""
    none = (None,) * len(names)
    columns = list(zip(*[none if f is None else f for f in fulls], strict=True)) if fulls else [()] * len(names)
    return typed_columns_of(plans, names, columns, len(fulls))


def typed_columns_of(plans: list, names: list[str], columns: list, n: int) -> tuple[list[pa.Array], list]:
    """:func:`_typed_columns` of rows given as ``columns`` (one sequence of ``n`` canonical
    values per column; truth/final's sorted blocks come as columns)."""
    texts: list[Any] = [None] * n
    arrays = []
    for (typ, how, fn), name, vals in zip(plans, names, columns, strict=True):
        cast = cast_texts(typ, vals) if how != _SAME else None
        if cast is not None:
            arrays.append(cast)
            continue
        if how == _CONVERT:
            vals = [None if v is None else fn(v) for v in vals]
        elif how == _TEMPORAL:
            out = []
            for r, v in enumerate(vals):
                if v is None:
                    out.append(None)
                    continue
                try:
                    out.append(fn(v))
                except (ValueError, OverflowError):  # the zero date, zero parts: not a calendar value
                    out.append(None)
                    if texts[r] is None:
                        texts[r] = []
                    texts[r].append((name, v))
            vals = out
        arrays.append(py_array(vals, typ))
    return arrays, texts


def table_struct(table: Table, flavor: str) -> tuple[pa.StructType, list]:
    plans = [column_plan(c, flavor) for c in table.columns]
    return pa.struct([pa.field(c.name, p[0], nullable=True) for c, p in zip(table.columns, plans, strict=True)]), plans


def columns_metadata(tables: Iterable[Table], flavor: str) -> dict[bytes, bytes]:
    cols: dict[str, Any] = {}
    for t in tables:
        for c in t.columns:
            cols.setdefault(c.name, column_info(c, flavor))
    return {b"binlogwriter.columns": json.dumps(cols, ensure_ascii=False).encode()}


def changes_schema(struct: pa.StructType, metadata: dict[bytes, bytes] | None = None) -> pa.Schema:
    """The columns of ``truth/changes/<db>.<table>.parquet`` (docs/output.md)."""
    names = pa.list_(pa.string())
    text = pa.map_(pa.string(), pa.string())
    return pa.schema([
        pa.field("seq", pa.int64(), nullable=False), pa.field("op", pa.string(), nullable=False),
        pa.field("database", pa.string(), nullable=False), pa.field("table", pa.string(), nullable=False),
        pa.field("gtid", pa.string()), pa.field("xid", pa.int64()), pa.field("file", pa.string(), nullable=False),
        pa.field("position", pa.int64(), nullable=False), pa.field("row", pa.int32(), nullable=False),
        pa.field("transaction_position", pa.int64(), nullable=False),
        pa.field("timestamp", pa.timestamp("s", tz="UTC"), nullable=False),
        pa.field("columns", names, nullable=False), pa.field("before", struct), pa.field("after", struct),
        pa.field("before_columns", names), pa.field("after_columns", names),
        pa.field("before_text", text), pa.field("after_text", text),
    ], metadata=metadata)


def _typed_struct(struct: pa.StructType, convs: list, names: list[str], rows: list, col: int
                  ) -> tuple[pa.Array, pa.Array, pa.Array]:
    """(struct array of full rows, before/after column lists, text maps) of image ``col``
    (9 = before, 10 = after) of ``rows``."""
    fulls = [rec[col] for rec in rows]
    mask = [f is None for f in fulls]
    lists: dict[tuple, list[str]] = {}

    def names_of(bits: tuple) -> list[str]:
        got = lists.get(bits)
        if got is None:
            got = lists[bits] = [nm for nm, p in zip(names, bits, strict=True) if p]
        return got
    cols = [None if rec[col] is None else names_of(rec[col + 2]) for rec in rows]
    arrays, texts = typed_columns(convs, names, fulls)
    sa = pa.StructArray.from_arrays(arrays, fields=list(struct), mask=np_bool(np.array(mask, dtype=np.bool_)))
    return sa, string_lists(cols), py_array(texts, pa.map_(pa.string(), pa.string()))


def rows_record_batch(schema: pa.Schema, struct: pa.StructType, convs: list, names: list[str], rows: list) -> pa.RecordBatch:
    cols = list(zip(*[r[:9] for r in rows], strict=True))
    arrays = [py_array(cols[0], pa.int64()), py_array(cols[1], pa.string()), py_array(cols[2], pa.string()),
              py_array(cols[3], pa.string()), py_array(cols[4], pa.string()),
              py_array([r[14] for r in rows], pa.int64()),
              py_array(cols[5], pa.string()), py_array(cols[6], pa.int64()), py_array(cols[7], pa.int32()),
              py_array(cols[8], pa.int64())]
    arrays.append(py_array([r[13] for r in rows], pa.int64()).cast(pa.timestamp("s", tz="UTC")))
    b, bcols, btext = _typed_struct(struct, convs, names, rows, 9)
    a, acols, atext = _typed_struct(struct, convs, names, rows, 10)
    arrays.append(string_lists([names] * len(rows)))
    arrays += [b, a, bcols, acols, btext, atext]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def final_schema(table: Table, flavor: str) -> pa.Schema:
    fields = [pa.field(c.name, column_plan(c, flavor)[0]) for c in table.columns]
    fields.append(pa.field("_text", pa.map_(pa.string(), pa.string())))
    return pa.schema(fields, metadata=columns_metadata([table], flavor))


def union(schemas: list[pa.Schema], fallback: pa.Schema) -> pa.Schema:
    """The changes schema whose before/after structs hold every column of ``schemas`` in order
    of first appearance; a column whose type changed between definitions is an error."""
    if not schemas:
        return fallback
    fields: dict[str, pa.Field] = {}
    cols: dict[str, Any] = {}
    for s in schemas:
        for f in s.field("before").type:
            old = fields.get(f.name)
            if old is not None and old.type != f.type:
                raise ValueError(f"changes truth: column {f.name} changed type ({old.type} -> {f.type})")
            fields.setdefault(f.name, f)
        meta = json.loads((s.metadata or {}).get(b"binlogwriter.columns", b"{}"))
        for k, v in meta.items():
            cols.setdefault(k, v)
    struct = pa.struct(list(fields.values()))
    return changes_schema(struct, {b"binlogwriter.columns": json.dumps(cols, ensure_ascii=False).encode()})


def widen(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
    if batch.schema.equals(schema, check_metadata=False):
        return pa.RecordBatch.from_arrays(batch.columns, schema=schema)
    struct = schema.field("before").type
    arrays = []
    for name in schema.names:
        arr = batch.column(name)
        if name in ("before", "after"):
            have = {f.name: i for i, f in enumerate(arr.type)}
            children = [arr.field(have[f.name]) if f.name in have else pa.nulls(len(arr), f.type) for f in struct]
            arr = pa.StructArray.from_arrays(children, fields=list(struct), mask=arr.is_null())
        arrays.append(arr)
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def is_merged(schema: pa.Schema, table: Table, flavor: str) -> bool:
    """Whether a table's one aligned chunk, written with ``schema``, has the schema
    :func:`merge_table` would give it (then its bytes are the merge's)."""
    struct, _ = table_struct(table, flavor)
    want = union([schema], changes_schema(struct, columns_metadata([table], flavor)))
    return schema.equals(want, check_metadata=True)


def typed_values(col: Column, flavor: str, vals: list, keep: list | None = None) -> tuple[pa.Array, dict[int, str]]:
    """Python values (None = NULL) of one column -> (typed Arrow array, {row: canonical text
    the type cannot hold}): what :func:`canonical_renderer` and :func:`typed_converter` make
    of each value. ``keep``: the canonical values (:func:`_canon_column` of ``vals``) are
    appended to it, for a caller that needs them too (the JSONL lines)."""
    render = column_renderer(col, flavor)
    return _typed_canon(col, flavor, [None if v is None else render(v) for v in vals], keep)


def _typed_canon(col: Column, flavor: str, canon: list, keep: list | None = None) -> tuple[pa.Array, dict[int, str]]:
    """:func:`_typed_values` from the canonical values ``canon`` (appended to ``keep``)."""
    typ, conv = typed_converter(col, flavor)
    if keep is not None:
        keep.append(canon)
    if (pa.types.is_string(typ) or pa.types.is_integer(typ) or pa.types.is_floating(typ)) \
            and set(map(type, canon)) <= {_PLAIN[typ.id], type(None)}:
        return py_array(canon, typ), {}  # conv is the identity on these values
    out: list = [None] * len(canon)
    texts: dict[int, str] = {}
    for r, v in enumerate(canon):
        if v is None:
            continue
        tv, t = conv(v)
        out[r] = tv
        if t is not None:
            texts[r] = t
    return py_array(out, typ), texts


def take_pool(arr: pa.Array, texts: dict[int, str], values: ColumnArray) -> tuple[pa.Array, dict[int, str]]:
    """A pool column: the typed pool gathered by the rows' pool indexes."""
    idx = np.asarray(values.data, dtype=np.int64)
    got = arr.take(np_array(idx, values.nulls))
    if not texts:
        return got, {}
    nulls = values.nulls
    return got, {r: texts[i] for r, i in enumerate(idx.tolist()) if i in texts and (nulls is None or not nulls[r])}


def typed_array(col: Column, flavor: str, values: Any, keep: list | None = None) -> tuple[pa.Array, dict[int, str]]:
    """One column of many rows (a ``ColumnArray`` or a list of Python values) -> (typed Arrow
    array, {row: canonical text the type cannot hold}), straight from the arrays where the
    canonical form is the value itself (integers; ASCII text, CHAR without trailing spaces),
    JSON objects / arrays by :func:`~generators.json_texts.json_texts` (a document that is a
    scalar goes value by value: a top-level JSON null is SQL NULL there, a MariaDB string is
    kept as is), else through :func:`_typed_values` (which appends the canonical values to ``keep``)."""
    if isinstance(values, ColumnArray):
        typ = column_arrow_type(col, flavor)
        text = col.type in IDENTITY_TEXT or col.type == "CHAR"  # the canonical value is the text (CHAR: cut)
        if values.kind == "int" and pa.types.is_integer(typ) and column_renderer(col, flavor) is int:
            return int_array(np.asarray(values.data, dtype=np.int64), values.nulls, typ), {}
        if values.kind == "ascii" and pa.types.is_string(typ) and text:
            return ascii_strings(np.asarray(values.data, dtype=np.uint8), values.nulls, col.type == "CHAR"), {}
        if values.kind == "pool":
            return take_pool(*typed_python(col, flavor, list(values.pool)), values)
        if values.kind == "json" and col.type == "JSON" and pa.types.is_string(typ) \
                and isinstance(values.data, JObj | JStrList):  # documents that are objects / arrays
            got = json_texts(values.data, values.nulls)
            if got is not None:
                if keep is not None:  # as the array: a list only if the JSONL lines are rendered
                    keep.append(got)
                return got, {}
        if values.kind == "edged":  # the base and the edges typed apart, each row taken from one
            edges, base = values.meta
            hit = merge_edged(typ, values, typed_array(col, flavor, base), typed_python(col, flavor, list(edges)))
            if hit is not None:
                return hit
            got = None
        elif values.kind == "runs":
            got = typed_runs(typ, values, col.type == "CHAR") if text else None
        else:
            got = typed_units(col, typ, values) if values.kind != "float" else typed_floats(col, typ, values)
        if got is not None:
            return got, {}
        values = values.tolist()
    return typed_python(col, flavor, values, keep)


def typed_python(col: Column, flavor: str, vals: list, keep: list | None = None) -> tuple[pa.Array, dict[int, str]]:
    """Python values of one column -> (typed array, texts): what :func:`_typed_values` gives,
    straight from the values where :func:`~generators.changes_lists.typed_list` has a rule
    (then nothing is appended to ``keep``: the JSONL lines render these values if they are
    written); else from the canonical values, a SET's rendered once per distinct value (a
    frozenset's text depends on its members only), DECIMAL and calendar texts parsed by one
    Arrow cast (:func:`~generators.arrow_typed.cast_texts`) instead of value by value."""
    typ = column_arrow_type(col, flavor)
    hit = typed_list(col, typ, vals, lambda vs: typed_values(col, flavor, vs))
    if hit is not None:
        return hit
    render = column_renderer(col, flavor)
    if col.type == "SET" and all(type(v) is frozenset for v in vals if v is not None):
        memo = {v: render(v) for v in set(vals) if v is not None}  # SET values repeat: each rendered once
        canon = [None if v is None else memo[v] for v in vals]
    else:
        canon = [None if v is None else render(v) for v in vals]
    cast = cast_texts(typ, canon)  # DECIMAL / DATE / DATETIME / TIMESTAMP texts: one Arrow cast
    if cast is not None:
        if keep is not None:
            keep.append(canon)
        return cast, {}
    return _typed_canon(col, flavor, canon, keep)


def canon_column(col: Column, flavor: str, values: Any) -> list:
    """Canonical values (docs/output.md) of one column of many rows (:func:`render_column`)."""
    return render_column(col, flavor, values)
