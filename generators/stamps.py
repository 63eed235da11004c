"""``ON UPDATE`` / ``DEFAULT CURRENT_TIMESTAMP`` columns as the server fills them (issue #29 §1).

The server rules (MySQL 8.0 reference 13.2.2 "Automatic Initialization and Updating for
TIMESTAMP and DATETIME"; MariaDB 10.11 the same for explicit clauses):

* a column with ``ON UPDATE CURRENT_TIMESTAMP[(fsp)]`` (or ``NOW()``, ``LOCALTIME``,
  ``LOCALTIMESTAMP``) is set to the statement's time by every UPDATE that changes some other
  column of the row, and only then ("if all other columns are set to their current values,
  the auto-updated column remains unchanged"); the generator never draws it for an UPDATE;
* a column with ``DEFAULT CURRENT_TIMESTAMP`` gets the statement's time on an INSERT that
  does not name it — a generated INSERT never names it; the rows of ``truth/snapshot.sql``
  name every value, so the initial rows keep their drawn values;
* a column named like ``created_at`` without ``ON UPDATE`` is never assigned by an UPDATE
  (an application does not; the server changes only what a statement names).

The statement's time is the transaction's commit time: the event timestamp the writer gives
that transaction (``--start-time`` plus the clock's advances, whole seconds), so an fsp
column holds ``.000…`` (``NOW(fsp)`` at a whole second). TIMESTAMP values are UTC datetimes,
DATETIME values the same wall time (a session ``time_zone`` of UTC).

Rows stay pure functions of their state: each key holds, beside its version, the time of its
INSERT (``t_ins``, -1 for a row of the snapshot) and of its last UPDATE that changed it
(``t_upd``, -1 for none); every applied op carries them before and after
(:func:`op_stamps`), and :func:`fill` puts them into the stamped columns of computed rows.
The one-process engines keep these times per key; ``--engine spark`` derives them from each
key's history in its key bucket (spark_gen/partition.py ``add_stamps``: the same rule over the
key's records in order, byte-identical to one process).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

import numpy as np

from binlogwriter.schema import Column, Table
from generators.key_space import key_parts

__all__ = ["Stamps", "stamps_of", "is_now", "stamp_value", "fill", "fill_row", "op_stamps", "assigned"]

_NOW = re.compile(r"^\s*(CURRENT_TIMESTAMP|NOW|LOCALTIME|LOCALTIMESTAMP)\s*(\(\s*\d*\s*\))?\s*$", re.I)
_CREATED = re.compile(r"^(created|creation|inserted|date_?created|create_?(time|date|ts|dt))"
                      r"(_?(at|on|time|date|ts|dt|utc))?$", re.I)
_TEMPORAL = ("TIMESTAMP", "DATETIME")
_UTC = dt.UTC
_INSERT, _UPDATE = 0, 1


def is_now(expr: str | None) -> bool:
    """Whether a ``DEFAULT`` / ``ON UPDATE`` expression is the current time."""
    return expr is not None and _NOW.match(expr) is not None


@dataclass(frozen=True)
class Stamps:
    """A table's stamped columns (indices): ``on_update`` (``ON UPDATE CURRENT_TIMESTAMP``),
    ``on_insert`` (``DEFAULT CURRENT_TIMESTAMP``) and ``fixed``, every column an UPDATE
    never assigns (those two and ``created_at``-like names)."""

    on_update: tuple[int, ...] = ()
    on_insert: tuple[int, ...] = ()
    fixed: frozenset[int] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.on_update or self.on_insert)


def stamps_of(table: Table) -> Stamps:
    """The stamped columns of ``table`` (module docstring). A column of a PRIMARY or UNIQUE
    key is not stamped: it keeps its key values (generators/key_space.py), as every key
    column does. Stamped, the rows of one transaction (one second) would repeat it: a server
    refuses such statements (ERROR 1062), and a replay of them stops."""
    upd, ins, fixed = [], [], set()
    keyed = {ci for parts in key_parts(table) for ci, _ in parts}
    for i, c in enumerate(table.columns):
        if c.type not in _TEMPORAL or i in keyed:
            continue
        if is_now(c.on_update):
            upd.append(i)
        if is_now(c.default):
            ins.append(i)
        if i in upd or i in ins or (_CREATED.match(c.name) and c.on_update is None):
            fixed.add(i)
    return Stamps(tuple(upd), tuple(ins), frozenset(fixed))


def stamp_value(col: Column, t: int) -> dt.datetime:
    """The value ``NOW(fsp)`` gives a column at the whole second ``t`` (Unix time)."""
    v = dt.datetime.fromtimestamp(t, _UTC)
    return v if col.type == "TIMESTAMP" else v.replace(tzinfo=None)


def _source(st: Stamps, i: int, ti: int, tu: int) -> int:
    """The time a stamped column ``i`` holds for a row with insert time ``ti`` and last
    change time ``tu`` (-1: its drawn value)."""
    if i in st.on_update and tu >= 0:
        return tu
    if i in st.on_insert and ti >= 0:
        return ti
    return -1


def fill(st: Stamps, table: Table, cols: list, ti: np.ndarray | None, tu: np.ndarray | None) -> list:
    """``TableRows.compute_columns``' columns with the stamped ones set from the rows' times
    (columns not computed, None, are left alone)."""
    if not st or ti is None:
        return cols
    ti_l, tu_l = np.asarray(ti).tolist(), np.asarray(tu).tolist()
    for i in sorted(set(st.on_update) | set(st.on_insert)):
        c = cols[i]
        if c is None:
            continue
        src = [_source(st, i, a, b) for a, b in zip(ti_l, tu_l, strict=True)]
        if all(s < 0 for s in src):
            continue
        vals = c if isinstance(c, list) else c.tolist()
        col = table.columns[i]
        cols[i] = [v if s < 0 else stamp_value(col, s) for v, s in zip(vals, src, strict=True)]
    return cols


def fill_row(st: Stamps, table: Table, row: tuple, ti: int, tu: int) -> tuple:
    """:func:`fill` of one row."""
    if not st or (ti < 0 and tu < 0):
        return row
    out = list(row)
    for i in set(st.on_update) | set(st.on_insert):
        s = _source(st, i, ti, tu)
        if s >= 0:
            out[i] = stamp_value(table.columns[i], s)
    return tuple(out)


def op_stamps(rows: list, table: np.ndarray, kind: np.ndarray, key: np.ndarray, when: np.ndarray,
              changes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Per applied op (in order; ``when``: its transaction's time; ``changes``: False for an
    UPDATE that changes nothing, generators/noop.py) the row's insert time ``ti`` and its
    last change time before and after it (``tu_b``, ``tu_a``), from the keys' times before
    the ops (``TableRows.t_ins`` / ``t_upd``); -1 everywhere on tables without stamped
    columns. None when no table has any."""
    stamped = [bool(rt.stamps) for rt in rows]
    if not any(stamped):
        return None
    n = len(table)
    ti = np.full(n, -1, dtype=np.int64)
    tu_b = np.full(n, -1, dtype=np.int64)
    tu_a = np.full(n, -1, dtype=np.int64)
    cur: dict[tuple[int, int], tuple[int, int]] = {}
    for j in np.flatnonzero(np.asarray(stamped)[table]).tolist():
        t, k, kd = int(table[j]), int(key[j]), int(kind[j])
        got = cur.get((t, k))
        if got is None:
            got = rows[t].stamp(k)
        a, b = got
        if kd == _INSERT:
            a, b_after = int(when[j]), -1
        elif kd == _UPDATE and changes[j]:
            b_after = int(when[j])
        else:
            b_after = b
        ti[j], tu_b[j], tu_a[j] = a, b, b_after
        cur[(t, k)] = (a, b_after)
    return ti, tu_b, tu_a


def assigned(st: Stamps, cols: tuple[int, ...]) -> tuple[int, ...]:
    """An UPDATE's assigned columns with the ``ON UPDATE`` ones the server sets."""
    if not st.on_update:
        return cols
    return tuple(sorted(set(cols) | set(st.on_update)))

