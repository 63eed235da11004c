"""No row for an unchanged row: the UPDATEs a server does not log (issue #29 §1).

The server rule (MySQL ``sql_update.cc`` ``mysql_update``: a matched row is written, and
binlogged, only when ``compare_record()`` finds its record changed — "Rows matched: 1
Changed: 0" otherwise; MariaDB 10.11 the same): an UPDATE whose after row equals its before
row logs no row; a statement whose rows are all unchanged logs no rows event, and a
transaction left without a row change is not logged at all — no GTID, no BEGIN/COMMIT (its
binlog transaction cache stays empty; verified on MariaDB 10.11 by
tests/conformance/test_unchanged_rows_server.py).

A generated UPDATE to version ``n`` assigns the columns ``TableRows.update_columns(key, n)``
the values made at ``n`` (generators/rows.py); when every one of them equals the value the row
held (a one-member ENUM, a BOOLEAN, a spec ``const``, a tiny VARCHAR drawn twice alike), the
row did not change. Such an UPDATE still moves the key's version (the row is the same at both
versions, so nothing that is logged or in the truth depends on it) but is dropped from what a
transaction applied (:func:`changed_ops`): every engine drops it where its applied changes are
made — ``generators.batch.apply_batch`` (the one-process batch loop, ``--transactions N``
counting in generators/run_count.py, Spark's ``--size`` probe), ``Run._apply`` (the
per-transaction reference) and Spark's merged transaction blocks (spark_gen/partition.py
``merge_task``) — so the bytes, the truth (truth/changes, truth/final) and the transaction
count agree. Whether an UPDATE changes its row is a pure function of (table, key, version
before, version after) like every value, so the engines agree.

Values are compared as the server compares records (byte for byte, not by collation): equal
Python values of the same type, a float's sign included (``-0.0`` is not ``0.0``), CHAR
values without their trailing spaces and BINARY values without their trailing zero bytes (the
pad the record holds), JSON documents by their MySQL text (``1`` is not ``1.0``).
"""

from __future__ import annotations

import math
import operator
from operator import methodcaller
from typing import Any

import numpy as np

from binlogwriter.schema import Column
from binlogwriter.values.json_columns import JBool, JCol, JInt, JNull, JObj, JStr, JStrList
from binlogwriter.values.json_text import mysql_json_text
from binlogwriter.values.row import ColumnArray

__all__ = ["same_value", "same_arrays", "same_lists", "same_documents", "unchanged_updates", "changed_ops"]

_UPDATE = 1  # the kind code of generators/batch.py (0 insert, 1 update, 2 delete)


def same_value(col: Column, a: Any, b: Any) -> bool:
    """Whether a column's two values are the same stored value (module docstring)."""
    if a is None or b is None:
        return a is None and b is None
    if col.type == "JSON":
        return mysql_json_text(a) == mysql_json_text(b)
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if col.type == "CHAR" and isinstance(a, str):
        return a.rstrip(" ") == b.rstrip(" ")
    if col.type == "BINARY" and isinstance(a, bytes):
        return a.rstrip(b"\0") == b.rstrip(b"\0")
    return a == b


def _values(c: Any) -> list:
    return c if isinstance(c, list) else c.tolist()


_UNITS = frozenset({"int", "dec", "dt", "ts", "date", "time"})
"""ColumnArray kinds whose values are equal exactly when their units are (one Python type
per kind; "dec" at one scale)."""
_LATE = {"CHAR": 1, "VARCHAR": 1, "BINARY": 1, "VARBINARY": 1}
_LAST = ("TEXT", "BLOB", "JSON")


def _cost_rank(col: Column) -> int:
    """Order in which :func:`unchanged_updates` compares assigned columns: numbers, times,
    ENUM/SET first, short strings next, TEXT/BLOB/JSON/spatial last — a row found changed by
    a cheap column is not computed for the dear ones (the answer, an OR over the columns, does
    not depend on the order)."""
    t = col.type
    if t in _LATE:
        return 1
    if t.endswith(_LAST) or t in ("GEOMETRY", "POINT", "LINESTRING", "POLYGON", "MULTIPOINT",
                                  "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION"):
        return 2
    return 0


_CLASSES: dict[tuple[str, int], tuple[tuple, np.ndarray | None]] = {}


def _pool_classes(col: Column, pool: tuple) -> np.ndarray | None:
    """Per entry of a value pool, the index of its first entry with the same stored value
    (:func:`same_value`'s rule as a hashable key), or None when an entry has no such key (a
    float NaN, an unhashable value). Memoised per (column type, pool object): the rule reads
    the type alone."""
    hit = _CLASSES.get((col.type, id(pool)))
    if hit is not None and hit[0] is pool:
        return hit[1]
    first: dict = {}
    types = set(map(type, pool))
    if col.type != "JSON" and len(types) == 1 and types <= {str, bytes, frozenset}:
        # one type whose equal values are the same stored value (CHAR/BINARY: without the pad):
        # the value is the key, by C-level maps
        t = types.pop()
        vals: Any = pool
        if col.type == "CHAR" and t is str:
            vals = map(methodcaller("rstrip", " "), pool)
        elif col.type == "BINARY" and t is bytes:
            vals = map(methodcaller("rstrip", b"\0"), pool)
        out: np.ndarray | None = np.fromiter(map(first.setdefault, vals, range(len(pool))), dtype=np.int64,
                                             count=len(pool))
        return _remember_classes(col, pool, out)
    out = np.empty(len(pool), dtype=np.int64)
    try:
        for i, v in enumerate(pool):
            if v is None or (isinstance(v, float) and v != v):
                raise TypeError
            if col.type == "JSON":
                k: Any = (str, mysql_json_text(v))
            elif isinstance(v, float):
                k = (float, v, math.copysign(1.0, v))
            elif col.type == "CHAR" and isinstance(v, str):
                k = (str, v.rstrip(" "))
            elif col.type == "BINARY" and isinstance(v, bytes):
                k = (bytes, v.rstrip(b"\0"))
            else:
                k = (type(v), v)
            out[i] = first.setdefault(k, i)
    except TypeError:
        out = None
    return _remember_classes(col, pool, out)


def _remember_classes(col: Column, pool: tuple, out: np.ndarray | None) -> np.ndarray | None:
    if len(_CLASSES) >= 256:
        _CLASSES.clear()
    _CLASSES[(col.type, id(pool))] = (pool, out)  # keeps the pool alive: its id is not reused
    return out


def _same_ascii(col: Column, a: ColumnArray, b: ColumnArray) -> np.ndarray:
    """:func:`same_value` of two "ascii" ColumnArrays of one width, NULLs aside: equal rows
    of bytes are equal strings (a value's NUL padding is not part of it, and is the same for
    equal strings), others differ — except CHAR values that differ only by trailing spaces
    (the record holds them padded): rows equal once spaces are read as padding are compared
    as Python values."""
    x, y = np.asarray(a.data), np.asarray(b.data)
    eq = (x == y).all(axis=1)
    if col.type == "CHAR":
        maybe = np.flatnonzero(~eq & (np.where(x == 32, 0, x) == np.where(y == 32, 0, y)).all(axis=1))
        if len(maybe):
            eq[maybe] = [same_value(col, p, q) for p, q in zip(a.take(maybe).tolist(), b.take(maybe).tolist(),
                                                                 strict=True)]
    return eq


def _same_runs(a: ColumnArray, b: ColumnArray) -> np.ndarray:
    """:func:`same_value` of two "runs" ColumnArrays (texts as UTF-8 byte runs; not CHAR,
    whose pad the rule strips), NULLs aside: equal texts are equal byte runs — the same
    length, then the same bytes (one gather of each side's runs and one comparison)."""
    from binlogwriter.batch.scatter import run_indices

    la, lb = a.data[:, 1], b.data[:, 1]
    eq = la == lb
    rows = np.flatnonzero(eq & (la > 0))
    if len(rows):
        lens = la[rows]
        xa = np.asarray(a.meta, dtype=np.uint8)[run_indices(a.data[rows, 0], lens)]
        xb = np.asarray(b.meta, dtype=np.uint8)[run_indices(b.data[rows, 0], lens)]
        owner = np.repeat(np.arange(len(rows)), lens)
        eq[rows[np.bincount(owner[xa != xb], minlength=len(rows)) > 0]] = False
    return eq


def same_arrays(col: Column, a: Any, b: Any) -> np.ndarray | None:
    """:func:`same_value` of two columns of values given as :class:`ColumnArray` s of one
    kind, row by row as a bool array (NULL is the same as NULL only); None when they are
    not such arrays (the caller compares Python values)."""
    if not (isinstance(a, ColumnArray) and isinstance(b, ColumnArray)) or a.kind != b.kind:
        return None
    kind = a.kind
    if kind == "json":
        # a top-level JSON null document is None in Python, as SQL NULL is: left to same_value
        eq = None if isinstance(a.data, JNull) else same_documents(col, a.data, b.data)
        if eq is None:
            return None
    elif kind in _UNITS and col.type != "JSON":
        if kind == "dec" and a.meta != b.meta:
            return None
        eq = np.asarray(a.data) == np.asarray(b.data)
    elif kind == "float":
        x, y = np.asarray(a.data), np.asarray(b.data)
        eq = (x == y) & (np.signbit(x) == np.signbit(y))
    elif kind == "ascii" and col.type != "JSON" and a.data.shape == b.data.shape:
        eq = _same_ascii(col, a, b)
    elif kind == "runs" and col.type not in ("CHAR", "JSON"):
        eq = _same_runs(a, b)
    elif kind == "pool" and a.pool is b.pool:
        cls = _pool_classes(col, a.pool)
        if cls is None:
            return None
        eq = cls[np.asarray(a.data)] == cls[np.asarray(b.data)]
    else:
        return None
    if a.nulls is None and b.nulls is None:
        return eq
    n = len(eq)
    na = np.zeros(n, dtype=bool) if a.nulls is None else a.nulls
    nb = np.zeros(n, dtype=bool) if b.nulls is None else b.nulls
    return np.where(na | nb, na & nb, eq)


_ONE_TYPE = (frozenset({str}), frozenset({bytes}))


def same_lists(col: Column, a: list, b: list) -> np.ndarray | None:
    """:func:`same_value` of two lists of values row by row when every value of both is a
    ``str`` (or every one a ``bytes``) or None and the column is not CHAR/BINARY (whose pad
    :func:`same_value` strips): then the stored values are the same exactly when the Python
    values are equal (JSON text documents too: a string's JSON text is one-to-one), one C-level
    ``==`` per row; else None (the caller compares value by value)."""
    if col.type in ("CHAR", "BINARY") or len(a) != len(b):
        return None
    types = set(map(type, a))
    types.update(map(type, b))
    types.discard(type(None))
    if types and (frozenset(types) not in _ONE_TYPE or (col.type == "JSON" and types != {str})):
        return None
    return np.fromiter(map(operator.eq, a, b), dtype=bool, count=len(a))


def same_documents(col: Column, x: JCol, y: JCol) -> np.ndarray | None:
    """:func:`same_value` of two columns of JSON documents given as trees of one shape
    (binlogwriter/values/json_columns.py), row by row, without making the documents: the
    MySQL texts of two documents are equal exactly when their objects hold the same members
    with the same values (the text orders the keys), their integers and booleans are equal
    and their strings are the same text (pool entries compared by the class of their text,
    :func:`_pool_classes`). None when the trees differ in shape (node kinds, member keys, pool
    objects): the caller compares the documents' texts."""
    if type(x) is not type(y) or len(x) != len(y):
        return None
    if isinstance(x, JInt | JBool):
        return x.data == y.data
    if isinstance(x, JNull):
        return np.ones(len(x), dtype=bool)
    if isinstance(x, JStr | JStrList):
        if x.pool is not y.pool:
            return None
        cls = _pool_classes(col, x.pool)
        if cls is None:
            return None
        if isinstance(x, JStr):
            return cls[x.idx] == cls[y.idx]
        return _same_string_lists(cls, x, y)
    if isinstance(x, JObj):
        return _same_objects(col, x, y)
    return None


def _same_string_lists(cls: np.ndarray, x: JStrList, y: JStrList) -> np.ndarray:
    """Rows of two :class:`JStrList` s holding the same count of strings, pairwise the same
    (by class); the entries past a row's count are not read."""
    eq = x.counts == y.counts
    w = min(x.idx.shape[1], y.idx.shape[1]) if x.idx.ndim == 2 and y.idx.ndim == 2 else 0
    eq &= x.counts <= w
    if w:
        inside = np.arange(w)[None, :] < x.counts[:, None]
        same = cls[x.idx[:, :w]] == cls[y.idx[:, :w]]
        eq &= (same | ~inside).all(axis=1)
    return eq


def _same_objects(col: Column, x: JObj, y: JObj) -> np.ndarray | None:
    """:func:`same_documents` of two :class:`JObj` s with the same member keys in the same
    order: per row, each member held by both or by neither, and the same where held."""
    keys = [k for k, _, _ in x.members]
    if keys != [k for k, _, _ in y.members] or len(set(keys)) != len(keys):
        return None
    n = len(x)
    eq = np.ones(n, dtype=bool)
    for (_, vx, px), (_, vy, py) in zip(x.members, y.members, strict=True):
        same = same_documents(col, vx, vy)
        if same is None:
            return None
        hx = np.ones(n, dtype=bool) if px is None else np.asarray(px, dtype=bool)
        hy = np.ones(n, dtype=bool) if py is None else np.asarray(py, dtype=bool)
        eq &= (hx == hy) & (same | ~hx)
    return eq


def _halves(col: Any, m: int) -> tuple[Any, Any]:
    """Rows ``0..m-1`` and ``m..2m-1`` of a column (a ColumnArray or a list)."""
    if isinstance(col, ColumnArray):
        return col.take(np.arange(m)), col.take(np.arange(m, 2 * m))
    return col[:m], col[m:]


def unchanged_updates(rt: Any, keys: np.ndarray, vb: np.ndarray, va: np.ndarray, born: np.ndarray) -> np.ndarray:
    """For UPDATEs of one table (``rt``: its :class:`~generators.rows.TableRows`) from
    versions ``vb`` to ``va``: True where every column the UPDATE assigns keeps its value.
    Column by column over the assigned ones, each computed for the rows not yet found changed.
    An assigned column's after value is the one made at ``va``; its before value the one made
    at the update number :meth:`~generators.rows.TableRows.sources` finds below ``vb`` — one
    walk for every assigned column of every row (a counted table: ``compute_columns``).
    Cheap columns first (:func:`_cost_rank`); values that are arrays of one kind compared as
    arrays (:func:`same_arrays`), others value by value."""
    n = len(keys)
    changed = np.zeros(n, dtype=bool)
    if not n or not rt.mutable:
        return ~changed
    mask = np.asfortranarray(rt.update_masks(keys, va, vb))  # read a column at a time
    src = None
    if rt.counted is None:
        vb = np.asarray(vb, dtype=np.int64)
        src = rt.sources(keys, vb, mask)
        np.bitwise_or(src, (vb & ~np.int64(0xFFFFFFFF))[:, None], out=src)  # the versions the values were made at
    cols = rt.table.columns
    for p in sorted(np.flatnonzero(mask.any(axis=0)).tolist(), key=lambda p: _cost_rank(cols[rt.mutable[p]])):
        r = np.flatnonzero(mask[:, p] & ~changed)
        if not len(r):
            continue
        i = rt.mutable[p]
        col = cols[i]
        if src is None:
            before = rt.compute_columns(keys[r], vb[r], born[r], only=(i,))[i]
            after = rt.compute_columns(keys[r], va[r], born[r], only=(i,))[i]
        else:  # both sides in one call (a wide table pays a generator call per column)
            m = len(r)
            kr = keys[r]
            both = rt.column_at(i, np.concatenate([kr, kr]), np.concatenate([src[r, p], va[r]]))
            before, after = _halves(both, m)
        same = same_arrays(col, before, after)
        if same is None and isinstance(before, list) and isinstance(after, list):
            same = same_lists(col, before, after)
        if same is None:
            same = np.fromiter(map(same_value, [col] * len(r), _values(before), _values(after)), dtype=bool,
                               count=len(r))
        changed[r[~same]] = True
    return ~changed


def changed_ops(rows: list, table: np.ndarray, kind: np.ndarray, key: np.ndarray, vb: np.ndarray,
                va: np.ndarray, born: np.ndarray) -> np.ndarray | None:
    """Indices of the applied ops a server logs (every INSERT and DELETE, the UPDATEs that
    change their row), or None when that is all of them."""
    upd = np.flatnonzero(np.asarray(kind) == _UPDATE)
    if not len(upd):
        return None
    drop = np.zeros(len(kind), dtype=bool)
    tu = np.asarray(table)[upd]
    for t in np.unique(tu).tolist():
        q = upd[tu == t]
        drop[q] = unchanged_updates(rows[t], np.asarray(key, dtype=np.int64)[q], np.asarray(vb, dtype=np.int64)[q],
                                    np.asarray(va, dtype=np.int64)[q], np.asarray(born)[q])
    if not drop.any():
        return None
    return np.flatnonzero(~drop)
