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
from typing import Any

import numpy as np

from binlogwriter.schema import Column
from binlogwriter.values.json_text import mysql_json_text

__all__ = ["same_value", "unchanged_updates", "changed_ops"]

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


def unchanged_updates(rt: Any, keys: np.ndarray, vb: np.ndarray, va: np.ndarray, born: np.ndarray) -> np.ndarray:
    """For UPDATEs of one table (``rt``: its :class:`~generators.rows.TableRows`) from
    versions ``vb`` to ``va``: True where every column the UPDATE assigns keeps its value.
    Column by column over the assigned ones, each computed for the rows not yet found changed.
    An assigned column's after value is the one made at ``va``; its before value the one made
    at the update number :meth:`~generators.rows.TableRows.sources` finds below ``vb`` — one
    walk for every assigned column of every row (a counted table: ``compute_columns``)."""
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
    for p in np.flatnonzero(mask.any(axis=0)).tolist():
        r = np.flatnonzero(mask[:, p] & ~changed)
        if not len(r):
            continue
        i = rt.mutable[p]
        col = rt.table.columns[i]
        if src is None:
            before = _values(rt.compute_columns(keys[r], vb[r], born[r], only=(i,))[i])
            after = _values(rt.compute_columns(keys[r], va[r], born[r], only=(i,))[i])
        else:
            before = _values(rt.column_at(i, keys[r], src[r, p]))
            after = _values(rt.column_at(i, keys[r], va[r]))
        diff = [not same_value(col, x, y) for x, y in zip(before, after, strict=True)]
        changed[r[np.asarray(diff, dtype=bool)]] = True
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
