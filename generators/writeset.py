"""MySQL's WRITESET dependency tracking (``binlog_transaction_dependency_tracking=WRITESET``,
the only mode of 8.4), computed for the groups a run writes, as arrays.

The rule (the server's ``Writeset_trx_dependency_tracker::get_dependency``, sql/
rpl_trx_tracking.cc; read, not copied): a transaction's *writeset* is the set of hashes of
the (database, table, key value) of every row it changes. The tracker keeps a history
``hash -> sequence_number of the last transaction that wrote it`` and a history start:

* a transaction whose writeset is usable gets as parent the latest earlier transaction in
  the history whose writeset intersects its own, at least the history start, at most its
  commit-order parent (the previous one); its hashes then go into the history;
* a table without a primary key (InnoDB's effective one: a UNIQUE NOT NULL key is
  promoted) makes the transaction keep its commit-order parent (``has_missing_keys``),
  its other hashes still going into the history;
* a transaction with an empty writeset (DDL) or that changes a table *referenced* by a
  FOREIGN KEY (``has_related_foreign_keys``) keeps its commit-order parent, and the
  history is cleared, its start becoming that transaction;
* when the history would grow past ``binlog_transaction_dependency_history_size`` (25000)
  hashes it is used for the transaction at hand, then cleared (start: that transaction).

Here the key identity is exact — (table index, key number): generated key columns are
functions of the key number alone (generators/values.py) — instead of a 64-bit hash.
The result per group is its *dependency distance* ``back`` (binlogwriter/logical_clock.py:
1 = the previous group, 0 = none), which the writer turns into ``last_committed`` with
the group's ``sequence_number`` in its file; the file boundaries (the server clears the
history at each rotation) are applied there. One approximation: the capacity clears are
counted from the run's start and its DDL, not from each file's (a history the server
cleared at a rotation holds fewer hashes); a clear only ever raises ``last_committed``
(a later dependency), so the result stays a safe parallelisation either way, and equals
the server's while the history between clears stays under the capacity.

The groups of one batch (:meth:`WritesetClock.plan`) are computed together; Python loops
only once per capacity clear, not per transaction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["WritesetClock", "HISTORY_SIZE", "writeset_clock", "key_rules", "writeset_pairs"]

HISTORY_SIZE = 25000
"""``binlog_transaction_dependency_history_size``'s default."""

_E = np.zeros(0, dtype=np.int64)


@dataclass
class _State:
    n: int = 0  # groups before (run-wide ordinals)
    start: int = -1  # the history start: ordinal of the last clear (-1: none)
    ht: np.ndarray = field(default_factory=lambda: _E)  # history: table, key, last ordinal; sorted by (t, k)
    hk: np.ndarray = field(default_factory=lambda: _E)
    hv: np.ndarray = field(default_factory=lambda: _E)


class WritesetClock:
    """The WRITESET tracker of a run (module docstring). ``keyless[t]``: table ``t`` has no
    (effective) primary key; ``barrier[t]``: changing table ``t`` clears the history (a
    FOREIGN KEY parent)."""

    batch_field = "back"
    """Where the batch engine puts :meth:`plan_batch`'s values (``RowsBatch.back``)."""
    writer_field = "clock_back"
    """Where the per-transaction path puts :meth:`plan`'s value (``BinlogWriter.clock_back``)."""

    def __init__(self, keyless: np.ndarray, barrier: np.ndarray, history_size: int = HISTORY_SIZE,
                 references: list[tuple[int, int, Any]] | None = None) -> None:
        self.keyless = np.asarray(keyless, dtype=bool)
        self.barrier_table = np.asarray(barrier, dtype=bool)
        self.history_size = history_size
        self.references = references or []
        """FOREIGN KEYs: (child table, identity code of the referenced key, ``fn(child keys) ->
        parent keys``, -1 for NULL): a child row's writeset also holds the hash of the parent key it references
        (the server hashes the FOREIGN KEY values as the parent's referenced key)."""
        self.state = _State()

    def barrier(self) -> None:
        """A group with an empty writeset (DDL) was written: the history cleared, its start
        that group (its own ``back`` is 1, the writer's default)."""
        st = self.state
        self.state = _State(n=st.n + 1, start=st.n)

    def plan(self, m: int, op_group: np.ndarray, op_table: np.ndarray, op_key: np.ndarray) -> tuple[np.ndarray, _State]:
        """``back`` of the next ``m`` groups (int64) whose row changes are ``op_*``
        (``op_group`` ascending, 0..m-1) and the state after them (:meth:`commit` it once
        they are written). Pure."""
        st = self.state
        op_group = np.asarray(op_group, dtype=np.int64)
        op_table = np.asarray(op_table, dtype=np.int64)
        op_key = np.asarray(op_key, dtype=np.int64)
        g_abs = st.n + np.arange(m, dtype=np.int64)
        pt, pk, pg, bar_g, ser_g = writeset_pairs(self, m, op_group, op_table, op_key)
        dep = np.full(m, -1, dtype=np.int64)
        start, ht, hk, hv = st.start, st.ht, st.hk, st.hv
        lo = 0
        while lo < m:
            # history start per group: the last clear before it (a barrier group in lo.. or ``start``)
            b = np.where(bar_g[lo:], g_abs[lo:], -1)
            last_bar = np.maximum.accumulate(np.concatenate(([start], b)))[:-1]
            epoch = np.concatenate(([0], np.cumsum(bar_g[lo:])))[:-1]  # barriers in lo..g-1
            sel = pg >= lo
            qt, qk, qg = pt[sel], pk[sel], pg[sel]
            # history rows (epoch 0) and the groups' pairs, by (t, k, ordinal)
            at = np.concatenate((ht, qt))
            ak = np.concatenate((hk, qk))
            av = np.concatenate((hv, g_abs[qg]))
            ae = np.concatenate((np.zeros(len(ht), dtype=np.int64), epoch[qg - lo]))
            src = np.concatenate((np.full(len(ht), -1, dtype=np.int64), qg))
            o = np.lexsort((av, ak, at))
            at, ak, av, ae, src = at[o], ak[o], av[o], ae[o], src[o]
            same = np.zeros(len(at), dtype=bool)
            same[1:] = (at[1:] == at[:-1]) & (ak[1:] == ak[:-1])
            prev = np.where(same, np.concatenate(([-1], av[:-1])), -1)
            mine = src >= 0
            dg = np.full(m - lo, -1, dtype=np.int64)
            np.maximum.at(dg, src[mine] - lo, prev[mine])
            dseg = np.maximum(dg, last_bar)
            # capacity: hashes in the history before each group
            new = mine & ~(same & (np.concatenate(([-1], ae[:-1])) == ae))
            newc = np.bincount(src[new] - lo, minlength=m - lo)
            ws = np.bincount(src[mine] - lo, minlength=m - lo)
            cs = np.concatenate(([0], np.cumsum(newc)))[:-1]
            first_of_epoch = np.flatnonzero(np.concatenate(([True], bar_g[lo:-1] if m - lo > 1 else [])))
            seg0 = first_of_epoch[epoch] if len(first_of_epoch) else np.zeros(0, dtype=np.int64)
            before = np.where(epoch == 0, len(ht), 0) + cs - cs[seg0]
            over = np.flatnonzero(~bar_g[lo:] & (before + ws > self.history_size))
            stop = m if not len(over) else lo + int(over[0]) + 1
            dep[lo:stop] = dseg[:stop - lo]
            if len(over):  # used for that group, then cleared
                start, ht, hk, hv = int(g_abs[stop - 1]), _E, _E, _E
                lo = stop
                continue
            # the history after the batch: the pairs since the last barrier (with the old
            # history when there was none), the last ordinal of each (t, k)
            lb = np.flatnonzero(bar_g[lo:])
            if len(lb):
                start = int(g_abs[lo + lb[-1]])
                keep_rows = mine & (src > lo + lb[-1])
            else:
                keep_rows = np.ones(len(at), dtype=bool)
            kt, kk, kv = at[keep_rows], ak[keep_rows], av[keep_rows]
            last = np.ones(len(kt), dtype=bool)
            last[:-1] = (kt[1:] != kt[:-1]) | (kk[1:] != kk[:-1])
            ht, hk, hv = kt[last], kk[last], kv[last]
            lo = m
        back = np.where(dep >= 0, g_abs - dep, 0)
        back[bar_g | ser_g] = 1
        return back, _State(n=st.n + m, start=start, ht=ht, hk=hk, hv=hv)

    def commit(self, state: _State) -> None:
        self.state = state

    def after_prologue(self, groups: int) -> None:
        """``groups`` groups were written before the run's transactions (``--ddl-in-binlog``:
        CREATE DATABASE / TABLE, the initial rows) with the commit order: the next groups
        depend at least on the last of them (a history start there; the initial rows'
        hashes are not kept — a later dependency, still a safe one)."""
        if groups:
            self.state = _State(n=groups, start=groups - 1)

    def plan_batch(self, n_txn: int, op_txn: np.ndarray, op_table: np.ndarray,
                   op_key: np.ndarray) -> tuple[np.ndarray, Any]:
        """:meth:`plan` for a batch of ``n_txn`` transactions whose row changes are ``op_*``
        (``op_txn`` ascending, 0-based in the batch; a transaction without one writes no
        group): ``back`` per transaction (1 for those without a group) and the state after
        the batch, and a function ``state_after(c)``: the state after its first ``c``
        transactions only (a batch cut by ``--size``)."""
        return plan_by_transaction(self.plan, n_txn, op_txn, op_table, op_key, fill=1)


def plan_by_transaction(plan: Any, n_txn: int, op_txn: np.ndarray, op_table: np.ndarray, op_key: np.ndarray,
                        *, fill: int) -> tuple[np.ndarray, Any]:
    """A per-group ``plan(n_groups, op_group, op_table, op_key) -> (values, state)`` over the
    transactions of a batch that have row changes (``op_txn`` ascending, 0-based): the value
    per transaction (``fill`` for one without a row change) and ``state_after(c)``, the state
    after the batch's first ``c`` transactions only (a batch cut by ``--size``). Shared by the
    WRITESET clock and MariaDB's group commits (generators/group_commit.py)."""
    op_txn = np.asarray(op_txn, dtype=np.int64)
    txns, op_group = np.unique(op_txn, return_inverse=True)
    got, state = plan(len(txns), op_group, op_table, op_key)
    out = np.full(n_txn, fill, dtype=np.int64)
    out[txns] = got

    def state_after(c: int) -> Any:
        if c >= n_txn:
            return state
        m = op_txn < c
        return plan(int(np.searchsorted(txns, c)), op_group[m], np.asarray(op_table)[m],
                    np.asarray(op_key)[m])[1]
    return out, state_after



def writeset_pairs(rules: Any, m: int, op_group: np.ndarray, op_table: np.ndarray,
                   op_key: np.ndarray) -> tuple[np.ndarray, ...]:
    """The writesets of ``m`` groups whose row changes are ``op_*`` (int64 arrays) under
    ``rules`` (``keyless``, ``barrier_table``, ``references`` as :class:`WritesetClock`'s):
    the distinct (table, key, group) pairs sorted by (table, key, group) — a FOREIGN KEY
    child's rows add the referenced parent key — and per group whether it changes a barrier
    table and whether a keyless one."""
    bar_g = np.zeros(m, dtype=bool)
    bar_g[op_group[rules.barrier_table[op_table]]] = True
    ser_g = np.zeros(m, dtype=bool)
    ser_g[op_group[rules.keyless[op_table]]] = True
    keep = ~bar_g[op_group] & ~rules.keyless[op_table]
    # the writeset: distinct (table, key) per group, and the parent keys child rows reference
    pt, pk, pg = op_table[keep], op_key[keep], op_group[keep]
    if rules.references:
        xt, xk, xg = [pt], [pk], [pg]
        for child, parent, fn in rules.references:
            r = np.flatnonzero(pt == child)
            if len(r):
                pkeys = np.asarray(fn(pk[r]), dtype=np.int64)
                ok = pkeys >= 0
                xt.append(np.full(int(ok.sum()), parent, dtype=np.int64))
                xk.append(pkeys[ok])
                xg.append(pg[r][ok])
        pt, pk, pg = np.concatenate(xt), np.concatenate(xk), np.concatenate(xg)
    if len(pg):
        o = np.lexsort((pg, pk, pt))
        pt, pk, pg = pt[o], pk[o], pg[o]
        d = np.ones(len(pg), dtype=bool)
        d[1:] = (pt[1:] != pt[:-1]) | (pk[1:] != pk[:-1]) | (pg[1:] != pg[:-1])
        pt, pk, pg = pt[d], pk[d], pg[d]
    return pt, pk, pg, bar_g, ser_g


_REFERENCES = re.compile(r"\bREFERENCES\s+(?:`?(\w+)`?\s*\.\s*)?`?(\w+)`?", re.IGNORECASE)


def writeset_clock(spec: Any, tables: list[Any]) -> WritesetClock | None:
    """The tracker of a run of ``spec`` over the workload's table definitions (in table
    index order), or None when its groups keep the commit order: MariaDB (whose commit ids
    are generators/group_commit.py's), or ``dependency_tracking: commit_order``."""
    if spec.flavor.startswith("mariadb") or (spec.dependency_tracking or "writeset") != "writeset":
        return None
    keyless, barrier, references = key_rules(spec, tables)
    return WritesetClock(keyless, barrier, references=references)


def key_rules(spec: Any, tables: list[Any]) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int, Any]]]:
    """What makes two transactions of a run of ``spec`` dependent, per table (in table index
    order): ``keyless`` (neither a PRIMARY nor a UNIQUE key: its rows add no hash,
    ``set_has_missing_keys``), ``barrier`` (a FOREIGN KEY of the workload references it:
    ``foreign_key_parents``) and the FOREIGN KEY ``references`` of :class:`WritesetClock`."""
    from generators.foreign_keys import parse_foreign_keys

    index = {(td.table.database, td.table.name): i for i, td in enumerate(tables)}  # case-sensitive
    referenced = set()
    references = []
    children = set()
    for i, td in enumerate(tables):
        if not _REFERENCES.search(td.create_sql or ""):
            continue
        for fk in parse_foreign_keys(td.create_sql, td.table):
            key = fk.parent
            referenced.add(key)
            if spec.workload is None and key in index:  # a custom schema's key-derived references
                # the hash is of the parent's referenced key (its name, the values): one
                # identity per (parent, referenced key); the parent's own rows never enter the
                # history (a barrier), so it need not equal theirs
                ptable = tables[index[key]].table
                cols = {c.lower() for c in fk.parent_columns}
                kix = next((j for j, k in enumerate(ptable.keys)
                            if {part.column.lower() for part in k.parts} == cols), 0)
                code = len(tables) + index[key] * 1024 + kix
                references.append((i, code, td.key_fns[td.table.column(fk.columns[0]).name].parent_keys))
                children.add(i)
    keyless = [not any(k.kind in ("PRIMARY", "UNIQUE") for k in td.table.keys) and i not in children
               for i, td in enumerate(tables)]
    barrier = [(td.table.database, td.table.name) in referenced for td in tables]
    return np.array(keyless, dtype=bool), np.array(barrier, dtype=bool), references
