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
increasing; the server writes the ``query_id`` of the group's last thread, an equally
opaque number). The writer is told each transaction's *position* in its group
(``BinlogWriter.group_pos``; ``RowsBatch.group_pos``): ``commit_id = seq_no - position``.
One difference from a server: every row transaction of such a run carries a commit id, a
group of one too (the server writes none then; a replica treats a lone commit id as it
treats none: a group of its own). This keeps every GTID the same size whatever the grouping
(a group's size is known only after its last transaction), so positions and file rotation
do not depend on it. A group may continue in the next binlog file (a server rotates after
the whole group).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from generators.writeset import key_rules, plan_by_transaction, writeset_pairs

__all__ = ["GroupCommits", "group_commit_clock"]

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

    def plan(self, m: int, op_group: np.ndarray, op_table: np.ndarray, op_key: np.ndarray) -> tuple[np.ndarray, _State]:
        """Position in its group of each of the next ``m`` groups (int64) whose row changes
        are ``op_*`` (``op_group`` ascending, 0..m-1), and the state after them. Pure."""
        st = self.state
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
        start, closed, cap = st.start, st.closed, self.max_size
        for g, (d, lone) in enumerate(zip(dep.tolist(), alone, strict=True)):  # greedy: one step a transaction
            o_g = st.n + g
            if closed or lone or d >= start or o_g - start >= cap:
                start = o_g
            pos[g] = o_g - start
            closed = lone
        end = st.n + m
        if closed:
            kt = kk = kv = _E
        else:  # the open group's pairs (ordinals >= start)
            keep = av >= start
            kt, kk, kv = at[keep], ak[keep], av[keep]
        return pos, _State(n=end, start=start, closed=closed, kt=kt, kk=kk, kv=kv)

    def plan_batch(self, n_txn: int, op_txn: np.ndarray, op_table: np.ndarray,
                   op_key: np.ndarray) -> tuple[np.ndarray, Any]:
        """:meth:`plan` for a batch of ``n_txn`` transactions (as
        :meth:`WritesetClock.plan_batch <generators.writeset.WritesetClock.plan_batch>`):
        the position per transaction (0 for one without a group) and ``state_after(c)``."""
        return plan_by_transaction(self.plan, n_txn, op_txn, op_table, op_key, fill=0)


def group_commit_clock(spec: Any, tables: list[Any]) -> GroupCommits | None:
    """The group commits of a run of ``spec`` (MariaDB with ``parallel_groups`` >= 2, the
    maximum group size), or None (no commit ids: the bytes of earlier runs)."""
    n = spec.parallel_groups or 0
    if not spec.flavor.startswith("mariadb") or n < 2:
        return None
    keyless, barrier, references = key_rules(spec, tables)
    return GroupCommits(keyless, barrier, n, references=references)
