"""Which key each operation touches, and what it finds there — split so that it distributes.

A transaction's plan (:mod:`generators.plan`) is a pure function of ``(seed, i)``. Turning
it into row changes takes two steps, and neither needs the whole live set:

1. :func:`resolve_ops` turns ops into :class:`KeyOp` (table, key) using only per-table
   *counters* carried in a :class:`KeyCursor`: ``new`` (INSERTs of fresh keys planned so far)
   and ``hwm`` (one past the highest key ever planned for an INSERT). A fresh key is
   ``first_fresh + new``; an UPDATE/DELETE picks ``pick_index(--key-dist, draw, hwm)``,
   whatever that key's state. Counters are prefix sums (``new``) and prefix maxima (``hwm``)
   over transactions, so the cursor at any transaction number can be computed by parts
   (the Spark job: per-partition deltas, then a scan on the driver).
2. :func:`step` applies one :class:`KeyOp` to the state of its key alone — ``(live, version,
   born)`` — and says whether it did anything: an INSERT finds nothing to do on a live key,
   an UPDATE/DELETE on a dead one (a key deleted earlier, or never inserted). Ops on one key
   only ever look at that key's history, so the histories can be grouped by key and
   resolved anywhere, in ``(transaction, seq)`` order (the Spark job's shuffle).

The single-process engine runs both steps in order over numpy arrays; the Spark job runs
step 1 per partition and step 2 per key group. Same functions, same results.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from generators.plan import TxnPlan, pick_index
from generators.spec import Spec
from generators.workloads.ecommerce import LINES  # order_items keys per order (child addressing)

__all__ = ["LINES", "TableInfo", "KeyCursor", "KeyOp", "Applied", "resolve_ops", "step", "epoch_at",
           "initial_state", "NEVER", "COUNT_SHIFT", "update_inc"]

NEVER = (False, 0, -1)  # state of a key never inserted: not live, version 0, born -1
COUNT_SHIFT = 16
"""A counted table's version (generators/rows.py, ``TableInfo.counted``): ``n`` holds the
count of its first update statement's changes in bits 0-15 and of its second's from bit 16."""


def update_inc(counted: bool, seq: int) -> int:
    """What an UPDATE at position ``seq`` of its transaction adds to its key's version: 1, but
    on a counted table (sysbench's oltp_write_only: ``SET k=k+1`` then ``SET c=?``, the first
    and the second op of every transaction, oltp_write_only.lua) the second statement counts
    in bits 16 and up (:data:`COUNT_SHIFT`)."""
    return 1 << COUNT_SHIFT if counted and seq == 1 else 1


@dataclass(frozen=True, slots=True)
class TableInfo:
    """What key resolution needs to know about a table (pure, picklable)."""

    first_fresh: int  # the first key after the initial ones (initial hwm)
    capacity: int  # keys >= capacity cannot be represented by the key columns
    mutable: bool  # has columns an UPDATE may change
    keep_initial: bool = False  # a FOREIGN KEY parent: DELETEs of initial keys are skipped
    counted: bool = False  # sysbench's oltp_write_only table: update statements by position (update_inc)


@dataclass(slots=True)
class KeyCursor:
    """Per-table counters at a transaction boundary (see module docstring)."""

    new: list[int]
    hwm: list[int]

    @classmethod
    def start(cls, infos: Iterable[TableInfo]) -> KeyCursor:
        infos = list(infos)
        return cls([0] * len(infos), [t.first_fresh for t in infos])

    def copy(self) -> KeyCursor:
        return KeyCursor(list(self.new), list(self.hwm))


class KeyOp(NamedTuple):
    """A planned op on a concrete key (a named tuple: tens of thousands are made per batch)."""

    seq: int  # order of the op inside its transaction
    kind: str  # insert | update | delete
    table: int
    key: int
    epoch: int  # DDL epoch at the transaction (an INSERT's ``born``)
    inc: int = 1  # what an UPDATE adds to the version (update_inc)


@dataclass(frozen=True, slots=True)
class Applied:
    """A KeyOp that did something: the key's version before and after it."""

    seq: int
    kind: str
    table: int
    key: int
    ver_before: int
    ver_after: int
    born: int
    ti: int = -1  # the row's INSERT time and last change time before / after (generators/stamps.py)
    tu_b: int = -1
    tu_a: int = -1


def epoch_at(spec: Spec, i: int) -> int:
    """DDL epoch in force during transaction ``i`` (the number of DDLs before it)."""
    return i // spec.ddl_every if spec.ddl_every else 0


def _fresh(info: TableInfo, cur: KeyCursor, t: int, draw: int) -> int:
    k = info.first_fresh + cur.new[t]
    cur.new[t] += 1
    if k >= info.capacity:  # key space used up: any key; the INSERT is skipped if it is live
        k = pick_index("uniform", draw, info.capacity)
    return k


def resolve_ops(spec: Spec, infos: list[TableInfo], cur: KeyCursor, plan: TxnPlan) -> list[KeyOp]:
    """Step 1 for one transaction; advances ``cur`` past it."""
    out: list[KeyOp] = []
    keys: list[int | None] = []
    epoch = epoch_at(spec, plan.index)
    dist = spec.key_dist
    hwm = cur.hwm
    seq = 0
    for op in plan.ops:
        kind, t, addr = op.kind, op.table, op.addr
        info = infos[t]
        k: int | None
        if addr == "pick":
            n = hwm[t]
            k = pick_index(dist, op.draw, n) if n > 0 else None
        elif addr == "new":
            k = _fresh(info, cur, t, op.draw)
        elif addr == "same":
            k = keys[op.ref]
        elif addr == "child" or addr == "children":
            base = keys[op.ref]
            k = None if base is None else base * LINES + op.line
        else:  # pragma: no cover - plan.py defines the modes
            raise AssertionError(addr)
        keys.append(k)
        if k is None or kind == "select":
            continue
        if addr == "children":
            for line in range(LINES):
                out.append(KeyOp(seq, "delete", t, base * LINES + line, epoch))
                seq += 1
            continue
        if kind == "insert":
            if k >= info.capacity:
                continue
            if k + 1 > hwm[t]:
                hwm[t] = k + 1
        elif kind == "update" and not info.mutable:
            continue
        elif kind == "delete" and info.keep_initial and k < info.first_fresh:
            continue  # children reference initial parent rows (generators/foreign_keys.py)
        out.append(KeyOp(seq, kind, t, k, epoch, update_inc(info.counted, seq) if kind == "update" else 1))
        seq += 1
    return out


def initial_state(is_initial: bool) -> tuple[bool, int, int]:
    """State of a key before the first transaction: initial rows are live at version 0."""
    return (True, 0, 0) if is_initial else NEVER


def step(state: tuple[bool, int, int], kind: str, epoch: int,
         inc: int = 1) -> tuple[tuple[bool, int, int], int, int] | None:
    """Step 2: apply ``kind`` to a key in ``state`` = (live, version, born).

    Returns (new state, version before, version after), or None when the op finds nothing
    to do. Versions are ``gen << 32 | n`` (generators/rows.py): an INSERT starts the next
    incarnation at n = 0, an UPDATE adds ``inc`` to n (:func:`update_inc`), a DELETE keeps the
    version."""
    live, ver, born = state
    if kind == "insert":
        if live:
            return None
        gen = 0 if born < 0 else (ver >> 32) + 1
        v = gen << 32
        return (True, v, epoch), ver, v
    if not live:
        return None
    if kind == "update":
        return (True, ver + inc, born), ver, ver + inc
    return (False, ver, born), ver, ver
