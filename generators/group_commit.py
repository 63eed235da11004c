"""MariaDB binlog group commit (``--parallel-groups N``): which transactions of a run
committed together, written as the GTID event's ``commit_id`` (mariadb.md GTID_EVENT,
flags2 ``FL_GROUP_COMMIT_ID`` 0x02).

The server (sql/log.cc ``MYSQL_BIN_LOG::trx_group_commit_leader``, read, not copied) writes
the transactions queued behind one group-commit leader one after the other, each GTID
carrying the same ``commit_id``; a parallel replica (``slave_parallel_mode=conservative``,
sql/rpl_parallel.cc) starts the transactions of one commit id together and waits for all of
them before the next id. Transactions commit in one group only when none waited for
another's row lock, so their rows are disjoint. Here, consecutive row transactions form a
group greedily, with the independence rule of MySQL's WRITESET (generators/writeset.py
``writeset_pairs``, the same key sets):

* a transaction joins the open group when none of its (table, key) pairs — with the
  parent keys its FOREIGN KEY child rows reference — is one a member already changed, and
  the group has fewer than ``N`` members (the documented maximum group size);
* a transaction changing a table without a (PRIMARY / UNIQUE) key, or a table a FOREIGN
  KEY references, is a group alone (the replica could not tell its rows apart);
* DDL is a group alone (its GTID, flags2 ``STANDALONE | ALLOW_PARALLEL | DDL``, carries no
  commit id) and closes the open group, as do the ``--ddl-in-binlog`` prologue groups.

The group's ``commit_id`` is the GTID ``seq_no`` of its first transaction (unique and
increasing; the server writes the ``query_id`` of the group's leader, an equally opaque
number). The writer is told each transaction's *position* in its group
(``BinlogWriter.group_pos``; ``RowsBatch.group_pos``): ``commit_id = seq_no - position``.
As the server writes them (sql/log.cc ``trx_group_commit_leader``; both seen on a real 10.11,
tests/conformance/test_group_commit_server.py):

* a group of ONE transaction carries no commit id (``commit_id = last_in_queue == leader ?
  0 : …``; 0 writes no ``FL_GROUP_COMMIT_ID``: the GTID is 2 bytes shorter), position -1.
  Whether a transaction is alone is known only with the next row transaction, so the batch
  engine keeps a batch's last row transaction for the next batch unless the run or a DDL
  follows (:meth:`GroupCommits.plan_commits`), the per-transaction path looks one ahead, and
  spark_gen replays the whole run on the driver (spark_gen/partition.py ``GroupPlan``);
* the server rotates after the whole group (``rotate()`` once the queue is written): a
  transaction whose successor joins its group holds the rotation back (``Commits.hold``,
  ``BinlogWriter.hold_rotation``), so no group spans two files; a ``--size`` stop that would
  leave a written transaction alone in a group it opened writes the group's second member
  too (``Commits.cut``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from generators.writeset import key_rules, plan_by_transaction, writeset_pairs

__all__ = ["GroupCommits", "Commits", "commit_flags", "group_commit_clock"]

_E = np.zeros(0, dtype=np.int64)


@dataclass
class _State:
    n: int = 0  # groups (binlog event groups) before: run-wide ordinals
    start: int = 0  # ordinal of the open group's first transaction
    closed: bool = True  # the open group takes no more members (none yet, DDL, a lone transaction)
    kt: np.ndarray = field(default_factory=lambda: _E)  # the open group's pairs: table, key, ordinal
    kk: np.ndarray = field(default_factory=lambda: _E)
    kv: np.ndarray = field(default_factory=lambda: _E)


class GroupCommits:
    """The group commits of a run (module docstring); the interface of
    :class:`generators.writeset.WritesetClock` (``plan``, ``plan_batch``, ``commit``,
    ``barrier``, ``after_prologue``, ``state``), its values per transaction being positions
    in the group instead of dependency distances."""

    batch_field = "group_pos"
    """Where the batch engine puts :meth:`plan_batch`'s values (``RowsBatch.group_pos``)."""
    writer_field = "group_pos"
    """Where the per-transaction path puts :meth:`plan`'s value (``BinlogWriter.group_pos``)."""

    def __init__(self, keyless: np.ndarray, barrier: np.ndarray, max_size: int,
                 references: list[tuple[int, int, Any]] | None = None) -> None:
        self.keyless = np.asarray(keyless, dtype=bool)
        self.barrier_table = np.asarray(barrier, dtype=bool)
        self.references = references or []
        self.max_size = max_size
        self.state = _State()

    def barrier(self) -> None:
        """A DDL group was written: alone, the open group closed."""
        self.state = _State(n=self.state.n + 1)

    def after_prologue(self, groups: int) -> None:
        """``groups`` groups were written before the run's transactions (``--ddl-in-binlog``)."""
        if groups:
            self.state = _State(n=groups)

    def commit(self, state: _State) -> None:
        self.state = state

    def plan(self, m: int, op_group: np.ndarray, op_table: np.ndarray, op_key: np.ndarray,
             state: _State | None = None) -> tuple[np.ndarray, _State]:
        """Position in its group of each of the next ``m`` groups (int64) whose row changes
        are ``op_*`` (``op_group`` ascending, 0..m-1), and the state after them (from
        ``state``, default the tracker's). Pure."""
        pos, state_at = self._plan(self.state if state is None else state, m, op_group, op_table, op_key)
        return pos, state_at(m)

    def next_pos(self, state: _State, op_table: np.ndarray, op_key: np.ndarray) -> int:
        """The position the row transaction whose changes are ``op_*`` would take after
        ``state`` (0: it starts a group; > 0: it joins the open one)."""
        pos, _ = self._plan(state, 1, np.zeros(len(op_table), dtype=np.int64), op_table, op_key)
        return int(pos[0])

    def _plan(self, st: _State, m: int, op_group: np.ndarray, op_table: np.ndarray,
              op_key: np.ndarray) -> tuple[np.ndarray, Callable[[int], _State]]:
        """:meth:`plan` from ``st``: the positions and ``state_at(k)``, the state after the
        first ``k`` groups (cheap: no second pass)."""
        op_group = np.asarray(op_group, dtype=np.int64)
        op_table = np.asarray(op_table, dtype=np.int64)
        op_key = np.asarray(op_key, dtype=np.int64)
        pt, pk, pg, bar_g, ser_g = writeset_pairs(self, m, op_group, op_table, op_key)
        alone = (bar_g | ser_g).tolist()
        # the latest earlier transaction (the open group's or this batch's) sharing a pair
        at = np.concatenate((st.kt, pt))
        ak = np.concatenate((st.kk, pk))
        av = np.concatenate((st.kv, st.n + pg))
        src = np.concatenate((np.full(len(st.kt), -1, dtype=np.int64), pg))
        o = np.lexsort((av, ak, at))
        at, ak, av, src = at[o], ak[o], av[o], src[o]
        same = np.zeros(len(at), dtype=bool)
        same[1:] = (at[1:] == at[:-1]) & (ak[1:] == ak[:-1])
        prev = np.where(same, np.concatenate(([-1], av[:-1])), -1)
        mine = src >= 0
        dep = np.full(m, -1, dtype=np.int64)
        np.maximum.at(dep, src[mine], prev[mine])
        pos = np.zeros(m, dtype=np.int64)
        starts = np.zeros(m, dtype=np.int64)
        start, closed, cap = st.start, st.closed, self.max_size
        for g, (d, lone) in enumerate(zip(dep.tolist(), alone, strict=True)):  # greedy: one step a transaction
            o_g = st.n + g
            if closed or lone or d >= start or o_g - start >= cap:
                start = o_g
            pos[g] = o_g - start
            starts[g] = start
            closed = lone
        shut = np.asarray(alone, dtype=bool)

        def state_at(k: int) -> _State:
            if k <= 0:
                return st
            end, start_k = st.n + k, int(starts[k - 1])
            if shut[k - 1]:
                return _State(n=end, start=start_k, closed=True)
            keep = (av >= start_k) & (av < end)  # the open group's pairs
            return _State(n=end, start=start_k, closed=False, kt=at[keep], kk=ak[keep], kv=av[keep])
        return pos, state_at

    def plan_batch(self, n_txn: int, op_txn: np.ndarray, op_table: np.ndarray,
                   op_key: np.ndarray) -> tuple[np.ndarray, Any]:
        """:meth:`plan` for a batch of ``n_txn`` transactions (as
        :meth:`WritesetClock.plan_batch <generators.writeset.WritesetClock.plan_batch>`):
        the position per transaction (0 for one without a group) and ``state_after(c)``."""
        return plan_by_transaction(self.plan, n_txn, op_txn, op_table, op_key, fill=0)

    def plan_commits(self, n_txn: int, op_txn: np.ndarray, op_table: np.ndarray, op_key: np.ndarray,
                     after: int | None | Callable[[_State, GroupCommits], int]) -> Commits:
        """The group commits of a batch of ``n_txn`` transactions whose row changes are
        ``op_*`` (``op_txn`` ascending, 0-based; a transaction without one writes no group)
        and what the batch can write (:class:`Commits`). ``after``: the position of the
        first row transaction after the batch (0 when it starts a group: the run's end, a DDL
        next, or a group of its own), or None when it is not known yet: the batch's last row
        transaction then waits for the next batch (``Commits.n_write``), whose first
        transaction tells whether it was alone; or a function of the state after the batch
        (and this tracker) giving that position (spark_gen: the next transaction is known)."""
        op_txn = np.asarray(op_txn, dtype=np.int64)
        txns, op_group = np.unique(op_txn, return_inverse=True)
        pos, state_at = self._plan(self.state, len(txns), op_group, op_table, op_key)
        n_write = n_txn
        if after is None:
            if not len(txns):  # nothing waits
                return Commits(np.full(n_txn, -1, dtype=np.int64), np.zeros(n_txn, dtype=bool), n_txn, pos, txns,
                               lambda c: self.state)
            n_write, after = int(txns[-1]), 0  # the last one waits (its successor decides its commit id)
        if callable(after):
            after = after(state_at(len(txns)), self)
        gp, hold = commit_flags(txns, pos, n_txn, after)

        def state_after(c: int) -> _State:
            return state_at(int(np.searchsorted(txns, c)))
        return Commits(gp, hold, n_write, pos, txns, state_after)


@dataclass
class Commits:
    """What :meth:`GroupCommits.plan_commits` gives for a batch."""

    group_pos: np.ndarray
    """Per transaction: its position in its group commit (``commit_id = seq_no - group_pos``),
    -1 for a group of one: no commit id (sql/log.cc ``trx_group_commit_leader``:
    ``commit_id = last_in_queue == leader ? 0 : …``, 0 writing no ``FL_GROUP_COMMIT_ID``)."""
    hold: np.ndarray
    """Per transaction: the next row transaction continues its group commit — no rotation
    after it (the server rotates after a whole group: ``rotate()`` once the queue is written)."""
    n_write: int
    """Transactions of the batch that may be written now (all but a last row transaction
    waiting for its successor, and the transactions after it)."""
    pos: np.ndarray
    """The batch's row transactions' positions (``txns`` order)."""
    txns: np.ndarray
    """The batch's row transactions (ascending, 0-based)."""
    state_after: Callable[[int], _State]

    def cut(self, c: int) -> int:
        """A ``--size`` stop before transaction ``c``, moved after the next row transaction
        when that is the second member of its group (its first, written, would be a group of
        one carrying a commit id)."""
        k = int(np.searchsorted(self.txns, c))
        if k < len(self.txns) and self.pos[k] == 1:
            return int(self.txns[k]) + 1
        return c


def commit_flags(txns: np.ndarray, pos: np.ndarray, n_txn: int, after: int) -> tuple[np.ndarray, np.ndarray]:
    """``(group_pos, hold)`` of :class:`Commits` for transactions ``0..n_txn-1`` from the
    positions ``pos`` of the row transactions ``txns`` (ascending) and ``after``, the position
    of the first row transaction after them: a transaction carries a commit id when it is
    not its group's only member (it joined one, or the next joins it)."""
    txns = np.asarray(txns, dtype=np.int64)
    nxt = np.append(pos, after)  # the position of each row transaction's successor: nxt[k + 1]
    grouped = (pos > 0) | (nxt[1:] > 0)
    gp = np.full(n_txn, -1, dtype=np.int64)
    inside = txns < n_txn
    gp[txns[inside]] = np.where(grouped, pos, -1)[inside]
    hold = nxt[np.searchsorted(txns, np.arange(n_txn), side="right")] > 0
    return gp, hold


def group_commit_clock(spec: Any, tables: list[Any]) -> GroupCommits | None:
    """The group commits of a run of ``spec`` (MariaDB with ``parallel_groups`` >= 2, the
    maximum group size), or None (no commit ids: the bytes of earlier runs)."""
    n = spec.parallel_groups or 0
    if not spec.flavor.startswith("mariadb") or n < 2:
        return None
    keyless, barrier, references = key_rules(spec, tables)
    return GroupCommits(keyless, barrier, n, references=references)
