"""Planning and key resolution of a range of transactions as arrays: what
``keys.resolve_ops(plan.plan_transaction(...))`` gives transaction by transaction, for
``lo .. hi-1`` at once, with numpy — every template and ``--key-dist``.

:func:`plan_ops` lays out the ops of every transaction (the draws of
``Stream(hash64(salt(seed, "txn"), i))`` that plan.py's ``_plan`` / ``_ecommerce_ops`` take,
in the order they take them): one row per op with its kind, table, key addressing
(``pick new same child children``, plan.py's module docstring), reference row, line and draw.

:func:`resolve_range` turns them into the key operations of keys.resolve_ops (its rules, as
arrays):

* ``new``: ``first_fresh + new`` with ``new`` the per-table count of fresh keys before the op
  (a prefix count); past the key space (``capacity``), ``pick_index("uniform", draw,
  capacity)``;
* ``child``: ``key(ref) * LINES + line`` (its ``ref`` is always a ``new`` op);
* the high-water mark a ``pick`` sees is the cursor's ``hwm`` or one past the highest key an
  INSERT of that table wrote before it (a prefix maximum over the ``new`` and ``child``
  INSERT keys below ``capacity``; a ``same`` INSERT re-inserts a key picked below the
  high-water mark, which cannot raise it), and ``pick_index_array(--key-dist, draw, hwm)``
  picks (nothing when ``hwm`` is 0);
* ``same``: the key of op ``ref``; ``children``: ``LINES`` DELETEs of ``key(ref) * LINES + line``;
* dropped as keys.resolve_ops drops them: unresolved keys, ``select``, an INSERT at or past
  ``capacity``, an UPDATE of a table without mutable columns, a DELETE of an initial key of
  a FOREIGN KEY parent (``keep_initial``; ``children`` DELETEs are never dropped).

tests/generators/test_plan_batch.py holds both to the per-transaction reference op for op.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from generators.hashing import hash64_array, mix64_into, salt, unit_array
from generators.keys import COUNT_SHIFT, LINES, KeyCursor, TableInfo
from generators.plan import pick_index_array
from generators.spec import Spec

__all__ = ["PlannedOps", "KeyOps", "plan_ops", "resolve_range", "resolve_chunks", "KIND_CODE", "CHUNK_TXNS"]

CHUNK_TXNS = 1 << 16
"""Transactions :func:`resolve_chunks` resolves at once (bounds the arrays of a long range)."""

KIND_CODE = {"insert": 0, "update": 1, "delete": 2, "select": 3}
PICK, NEW, SAME, CHILD, CHILDREN = range(5)  # Op.addr codes
_CAP = 1 << 62


@dataclass
class PlannedOps:
    """The ops of transactions ``lo .. hi-1`` in (transaction, op) order (plan.py's ``Op``
    fields as arrays; ``ref`` is a row index, -1 for none) and each transaction's clock advance."""

    txn: np.ndarray  # int64, absolute transaction numbers
    kind: np.ndarray  # int64, KIND_CODE
    table: np.ndarray
    addr: np.ndarray
    ref: np.ndarray
    line: np.ndarray
    draw: np.ndarray  # uint64
    advance: np.ndarray  # per transaction


@dataclass
class KeyOps:
    """Resolved key operations of ``lo .. hi-1`` in (txn, seq) order (keys.KeyOp's fields as
    arrays: ``kind`` 0 insert, 1 update, 2 delete) and what moves the key cursor: the
    transactions and tables of the fresh-key ops (``new_txn``, ``new_table``) and the INSERT
    keys that may raise the high-water mark (``hw_txn``, ``hw_table``, ``hw_value`` = key + 1)."""

    lo: int
    txn: np.ndarray
    seq: np.ndarray
    kind: np.ndarray
    table: np.ndarray
    key: np.ndarray
    epoch: np.ndarray
    advance: np.ndarray
    start: KeyCursor
    new_txn: np.ndarray
    new_table: np.ndarray
    hw_txn: np.ndarray
    hw_table: np.ndarray
    hw_value: np.ndarray
    inc: np.ndarray | None = None  # what each UPDATE adds to its key's version (keys.update_inc)

    def cursor_at(self, i: int) -> KeyCursor:
        """The key cursor before transaction ``i`` (``lo <= i <= hi``): keys.resolve_ops's
        counters after ``lo .. i-1`` (prefix count of fresh keys, prefix maximum of INSERT keys)."""
        ntab = len(self.start.new)
        c = int(np.searchsorted(self.new_txn, i, side="left"))
        new = np.asarray(self.start.new, dtype=np.int64) + np.bincount(self.new_table[:c], minlength=ntab)[:ntab]
        hwm = np.asarray(self.start.hwm, dtype=np.int64)
        c = int(np.searchsorted(self.hw_txn, i, side="left"))
        if c:
            np.maximum.at(hwm, self.hw_table[:c], self.hw_value[:c])
        return KeyCursor(new.tolist(), hwm.tolist())


def _draws(base: np.ndarray, j: np.ndarray | int) -> np.ndarray:
    """``Stream(base).next()`` number ``j`` (1-based; an array or one number) for every base."""
    z = base ^ np.asarray(j).astype(np.uint64)
    return mix64_into(z, np.empty_like(z))


def _mix_codes(mix: tuple[tuple[str, float], ...] | None, u: np.ndarray) -> np.ndarray:
    """plan._mix_kind elementwise, as KIND_CODE: the first kind whose running weight total
    (summed in Python, as _mix_kind sums) exceeds ``u``; past the total the last kind of
    positive weight."""
    mix = mix or (("insert", 1.0),)
    acc: list[float] = []
    total = 0.0
    for _, w in mix:
        total += w
        acc.append(total)
    codes = np.array([KIND_CODE[k] for k, _ in mix] + [KIND_CODE[next(k for k, w in reversed(mix) if w > 0)]],
                     dtype=np.int64)
    return codes[np.searchsorted(np.asarray(acc), u, side="right")]


def _rows(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(transaction row of each op, position of the op in its transaction, first row of each
    transaction) for ``counts`` ops per transaction."""
    start = np.cumsum(counts) - counts
    tr = np.repeat(np.arange(len(counts)), counts)
    return tr, np.arange(int(counts.sum())) - start[tr], start


def plan_ops(spec: Spec, ntables: int, lo: int, hi: int) -> PlannedOps:
    """plan.plan_transaction of ``lo .. hi-1`` as arrays (see module docstring)."""
    idx = np.arange(lo, hi, dtype=np.int64)
    base = hash64_array(salt(spec.seed, "txn"), idx)
    advance = (_draws(base, 1) % np.uint64(4) == 0).astype(np.int64)
    tdraw = 1 if ntables > 0 else 0  # Stream.below(0) takes no draw
    tpl = spec.template
    if tpl == "oltp_write_only":
        counts = np.full(len(idx), 4, dtype=np.int64)
        tr, pos, start = _rows(counts)
        tab = (_draws(base, 2) % np.uint64(ntables)).astype(np.int64) if ntables else np.zeros(len(idx), np.int64)
        kind = np.array([1, 1, 2, 0], dtype=np.int64)[pos]
        addr = np.where(pos == 3, SAME, PICK)
        ref = np.where(pos == 3, np.arange(len(pos)) - 1, -1)
        b = base[tr]
        draw = np.where(pos == 3, np.uint64(0), _draws(b, 2 + tdraw + np.minimum(pos, 2)))
        return PlannedOps(idx[tr], kind, tab[tr], addr, ref, np.zeros(len(pos), np.int64), draw, advance)
    if tpl == "ecommerce":
        return _ecommerce(spec, idx, base, advance)
    a, b_ = spec.rows_per_txn or (1, 1)
    counts = a + (_draws(base, 2) % np.uint64(b_ - a + 1)).astype(np.int64)
    tr, pos, _ = _rows(counts)
    b = base[tr]
    stride = 2 + tdraw
    first = 3 + pos * stride
    kind = _mix_codes(spec.mix, unit_array(_draws(b, first)))
    tab = (_draws(b, first + 1) % np.uint64(ntables)).astype(np.int64) if ntables else np.zeros(len(pos), np.int64)
    draw = _draws(b, first + stride - 1)
    addr = np.where(kind == 0, NEW, PICK)
    n = len(pos)
    return PlannedOps(idx[tr], kind, tab, addr, np.full(n, -1, np.int64), np.zeros(n, np.int64), draw, advance)


def _ecommerce(spec: Spec, idx: np.ndarray, base: np.ndarray, advance: np.ndarray) -> PlannedOps:
    """plan._ecommerce_ops as arrays. Tables: 0 customers, 1 products, 2 orders, 3 order_items.
    Cases: A an order (INSERT order, 1-4 child lines, UPDATE a product), B a customer or
    product INSERT, C one UPDATE, D a cancel (select an order, DELETE its children, DELETE it)."""
    kind0 = _mix_codes(spec.mix, unit_array(_draws(base, 2)))
    u = unit_array(_draws(base, 3))
    d4 = _draws(base, 4)
    ins = kind0 == 0
    case_a = ins & (u < 0.8)
    case_b = ins & ~case_a
    case_c = kind0 == 1
    lines = np.where(case_a, 1 + (d4 % np.uint64(4)).astype(np.int64), 0)
    counts = np.where(case_a, lines + 2, np.where(case_b | case_c, 1, 3))
    tr, pos, start = _rows(counts)
    n = len(pos)
    a, b, c = case_a[tr], case_b[tr], case_c[tr]
    d = ~(a | b | c)
    ut, nl = u[tr], lines[tr]
    row0 = start[tr]
    kind = np.full(n, 0, dtype=np.int64)
    table = np.zeros(n, dtype=np.int64)
    addr = np.full(n, NEW, dtype=np.int64)
    ref = np.full(n, -1, dtype=np.int64)
    line = np.zeros(n, dtype=np.int64)
    draw = np.zeros(n, dtype=np.uint64)
    # A: pos 0 order (new), 1..nl lines (child of row 0), nl+1 product update (draw 5)
    a_line = a & (pos >= 1) & (pos <= nl)
    a_upd = a & (pos == nl + 1)
    table[a & (pos == 0)] = 2
    table[a_line] = 3
    addr[a_line] = CHILD
    ref[a_line] = row0[a_line]
    line[a_line] = pos[a_line] - 1
    kind[a_upd] = 1
    table[a_upd] = 1
    addr[a_upd] = PICK
    draw[a_upd] = _draws(base[tr[a_upd]], 5)
    # B: customer (u < 0.95) or product
    table[b] = np.where(ut[b] < 0.95, 0, 1)
    # C: UPDATE by share of u (draw 4)
    kind[c] = 1
    addr[c] = PICK
    uc = ut[c]
    table[c] = np.where(uc < 0.6, 2, np.where(uc < 0.8, 1, np.where(uc < 0.9, 3, 0)))
    draw[c] = d4[tr[c]]
    # D: select order (draw 4), delete children of row 0, delete same as row 0
    d0, d1, d2 = d & (pos == 0), d & (pos == 1), d & (pos == 2)
    kind[d0] = 3
    table[d0] = 2
    addr[d0] = PICK
    draw[d0] = d4[tr[d0]]
    kind[d1 | d2] = 2
    table[d1] = 3
    table[d2] = 2
    addr[d1] = CHILDREN
    addr[d2] = SAME
    ref[d1 | d2] = row0[d1 | d2]
    return PlannedOps(idx[tr], kind, table, addr, ref, line, draw, advance)


def _group_prefix_max(group: np.ndarray, value: np.ndarray) -> np.ndarray:
    """For rows in order: the maximum of ``value`` (>= 0) over the rows of the same group
    strictly before each row (0 when none) — one stable sort by group, values replaced by their
    dense ranks so that ``group * (ranks + 1) + rank`` keeps groups apart under one running maximum."""
    n = len(value)
    out = np.zeros(n, dtype=np.int64)
    if not n:
        return out
    uniq, rank = np.unique(value, return_inverse=True)
    order = np.argsort(group, kind="stable")
    g = group[order]
    span = len(uniq) + 1
    gid = np.cumsum(np.concatenate(([True], g[1:] != g[:-1]))) - 1
    packed = gid * span + rank[order]
    run = np.maximum.accumulate(packed)
    excl = np.empty(n, dtype=np.int64)
    excl[0] = -1
    excl[1:] = run[:-1]
    first = np.concatenate(([True], g[1:] != g[:-1]))
    excl[first] = -1  # nothing before the group's first row
    r = excl - gid * span  # rank of the group's running maximum (negative: none)
    out[order] = np.where(r >= 0, uniq[np.maximum(r, 0)], 0)
    return out


@dataclass
class _Tables:
    """keys.TableInfo's facts as arrays indexed by table number; key spaces past 2**62
    (BIGINT UNSIGNED: 2**64) as 2**62: no run's keys get near either."""

    first_fresh: np.ndarray
    cap: np.ndarray
    mutable: np.ndarray
    keep: np.ndarray
    counted: np.ndarray

    @classmethod
    def of(cls, infos: list[TableInfo]) -> _Tables:
        """The arrays of ``infos``."""
        return cls(np.array([x.first_fresh for x in infos], dtype=np.int64),
                   np.array([min(x.capacity, _CAP) for x in infos], dtype=np.int64),
                   np.array([x.mutable for x in infos], dtype=bool),
                   np.array([x.keep_initial for x in infos], dtype=bool),
                   np.array([x.counted for x in infos], dtype=bool))


def _fresh_keys(p: PlannedOps, tabs: _Tables, new0: np.ndarray, key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Fills ``key`` for the ``new`` ops: ``first_fresh + new`` with ``new`` the per-table
    count of fresh keys before the op (a prefix count); past the key space a uniform pick.
    Returns the ``new`` ops' rows and tables."""
    is_new = np.flatnonzero(p.addr == NEW)
    tn = p.table[is_new]
    order = np.argsort(tn, kind="stable")
    ts = tn[order]
    gfirst = np.concatenate(([True], ts[1:] != ts[:-1])) if len(ts) else np.zeros(0, bool)
    gs = np.flatnonzero(gfirst)
    rank_s = np.arange(len(ts)) - gs[np.cumsum(gfirst) - 1] if len(ts) else np.zeros(0, np.int64)
    rank = np.empty(len(tn), dtype=np.int64)
    rank[order] = rank_s
    kn = tabs.first_fresh[tn] + new0[tn] + rank
    over = kn >= tabs.cap[tn]
    if over.any():
        kn[over] = pick_index_array("uniform", p.draw[is_new][over], tabs.cap[tn][over])
    key[is_new] = kn
    return is_new, tn


def _child_keys(p: PlannedOps, key: np.ndarray) -> None:
    """Fills ``key`` for the ``child`` ops: ``key(ref) * LINES + line`` (``ref`` a ``new`` op)."""
    is_child = np.flatnonzero(p.addr == CHILD)
    if len(is_child):
        cref = p.ref[is_child]
        if not (p.addr[cref] == NEW).all():  # pragma: no cover - plan.py's templates
            raise AssertionError("child of an op that is not a fresh INSERT")
        key[is_child] = key[cref] * LINES + p.line[is_child]


def _picked_keys(spec: Spec, p: PlannedOps, tabs: _Tables, hwm0: np.ndarray,
                 key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Fills ``key`` for the ``pick`` ops: ``pick_index_array(--key-dist, draw, hwm)`` with
    ``hwm`` the cursor's or one past the highest key an INSERT of the table wrote before the op
    (nothing when 0). Returns the rows of the INSERTs that may raise the high-water mark (new
    and child keys inside the key space) and every row's contribution (key + 1, else 0)."""
    n, t = len(p.txn), p.table
    hw = np.flatnonzero((p.kind == 0) & ((p.addr == NEW) | (p.addr == CHILD)))
    hw = hw[key[hw] < tabs.cap[t[hw]]]
    contrib = np.zeros(n, dtype=np.int64)
    contrib[hw] = key[hw] + 1
    is_pick = np.flatnonzero(p.addr == PICK)
    if len(is_pick):
        if len(hw):
            before = _group_prefix_max(t, contrib)[is_pick]
        else:
            before = np.zeros(len(is_pick), dtype=np.int64)
        tp = t[is_pick]
        hwm_at = np.maximum(hwm0[tp], before)
        kp = pick_index_array(spec.key_dist, p.draw[is_pick], hwm_at)
        key[is_pick] = np.where(hwm_at > 0, kp, -1)
    return hw, contrib


def _referring_keys(p: PlannedOps, key: np.ndarray) -> np.ndarray:
    """Fills ``key`` for the ``same`` ops (the key of op ``ref``) and the ``children`` ops (the
    first of their ``LINES`` child keys, ``key(ref) * LINES``); returns the ``children`` mask."""
    is_same = np.flatnonzero(p.addr == SAME)
    key[is_same] = key[p.ref[is_same]]
    is_children = p.addr == CHILDREN
    base = np.where(is_children, key[np.maximum(p.ref, 0)], -1)
    key[is_children] = np.where(base[is_children] >= 0, base[is_children] * LINES, -1)
    return is_children


def _emitted(p: PlannedOps, tabs: _Tables, key: np.ndarray, is_children: np.ndarray) -> np.ndarray:
    """Which ops keys.resolve_ops emits: not unresolved keys, ``select``, an INSERT at or past
    the key space, an UPDATE of a table without mutable columns, a DELETE of an initial key of
    a FOREIGN KEY parent (``children`` DELETEs are never dropped)."""
    t, kd = p.table, p.kind
    emit = (key >= 0) & (kd != 3)
    emit &= ~((kd == 0) & (key >= tabs.cap[t]) & ~is_children)
    emit &= ~((kd == 1) & ~tabs.mutable[t])
    emit &= ~((kd == 2) & tabs.keep[t] & (key < tabs.first_fresh[t]) & ~is_children)
    return emit


def resolve_range(spec: Spec, infos: list[TableInfo], cur: KeyCursor, lo: int, hi: int,
                  planned: PlannedOps | None = None) -> tuple[KeyOps, KeyCursor]:
    """keys.resolve_ops over ``lo .. hi-1`` from ``cur`` (not changed): the key operations and
    the cursor after ``hi - 1`` (module docstring)."""
    ntab = len(infos)
    p = planned if planned is not None else plan_ops(spec, ntab, lo, hi)
    n = len(p.txn)
    tabs = _Tables.of(infos)
    new0 = np.asarray(cur.new, dtype=np.int64)
    hwm0 = np.asarray(cur.hwm, dtype=np.int64)
    t = p.table
    key = np.full(n, -1, dtype=np.int64)  # -1: no key (keys.resolve_ops's None)
    is_new, tn = _fresh_keys(p, tabs, new0, key)
    _child_keys(p, key)
    hw, contrib = _picked_keys(spec, p, tabs, hwm0, key)
    is_children = _referring_keys(p, key)
    emit = _emitted(p, tabs, key, is_children)
    reps = np.where(emit, np.where(is_children, LINES, 1), 0)
    rows = np.repeat(np.arange(n), reps)
    off = np.arange(len(rows)) - (np.cumsum(reps) - reps)[rows]
    o_txn = p.txn[rows]
    o_key = key[rows] + np.where(is_children[rows], off, 0)
    # seq: position among the transaction's emitted ops
    m = len(rows)
    newt = np.ones(m, dtype=bool)
    newt[1:] = o_txn[1:] != o_txn[:-1]
    fs = np.flatnonzero(newt)
    seq = np.arange(m) - fs[np.cumsum(newt) - 1] if m else np.zeros(0, np.int64)
    epoch = o_txn // spec.ddl_every if spec.ddl_every else np.zeros(m, dtype=np.int64)
    hw_t = t[hw]
    new_after = new0 + np.bincount(tn, minlength=ntab)[:ntab] if ntab else new0
    hwm_after = hwm0.copy()
    if len(hw):
        np.maximum.at(hwm_after, hw_t, contrib[hw])
    o_kind, o_tab = p.kind[rows], t[rows]
    inc = np.where((o_kind == 1) & tabs.counted[o_tab] & (seq == 1), np.int64(1 << COUNT_SHIFT), np.int64(1))
    ops = KeyOps(lo, o_txn, seq, o_kind, o_tab, o_key, epoch, p.advance, KeyCursor(new0.tolist(), hwm0.tolist()),
                 p.txn[is_new], tn, p.txn[hw], hw_t, contrib[hw], inc)
    return ops, KeyCursor(new_after.tolist(), hwm_after.tolist())


def resolve_chunks(spec: Spec, infos: list[TableInfo], cur: KeyCursor, lo: int, hi: int,
                   chunk: int = CHUNK_TXNS) -> Iterator[tuple[KeyOps, KeyCursor]]:
    """:func:`resolve_range` of ``lo .. hi-1`` ``chunk`` transactions at a time, the cursor
    carried from one to the next: (key operations, cursor after) per chunk (none when the
    range is empty)."""
    a = lo
    while a < hi:
        b = min(hi, a + chunk)
        ops, cur = resolve_range(spec, infos, cur, a, b)
        yield ops, cur
        a = b
