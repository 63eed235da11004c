"""WRITESET dependency tracking (generators/writeset.py) against a sequential model of the
server's ``Writeset_trx_dependency_tracker`` written here from sql/rpl_trx_tracking.cc's
rule, one transaction at a time, and the writer's ``last_committed``
(binlogwriter/logical_clock.py) against the rotation rule."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.logical_clock import last_committed, last_committed_array
from generators.writeset import WritesetClock


def model(groups, keyless, barrier, cap):
    """Per group (list of (table, key), or None for DDL): the ordinal of its parent as the
    server's tracker computes it in one file with commit-order parent ``i - 1`` (-1: none),
    one transaction after another."""
    history: dict = {}
    start = -1
    out = []
    for i, ops in enumerate(groups):
        commit_parent = i - 1
        if ops is None or any(barrier[t] for t, _ in ops):
            out.append(commit_parent)
            history.clear()
            start = i
            continue
        ws = {(t, k) for t, k in ops if not keyless[t]}
        missing = any(keyless[t] for t, _ in ops)
        exceeds = len(history) + len(ws) > cap
        parent = start
        for h in ws:
            if h in history:
                parent = max(parent, history[h])
                history[h] = i
            elif not exceeds:
                history[h] = i
        out.append(commit_parent if missing else min(parent, commit_parent))
        if exceeds:
            history.clear()
            start = i
    return out


def run_clock(groups, keyless, barrier, cap, cuts):
    """The clock's ``back`` over ``groups`` planned in batches cut at ``cuts`` and at each
    DDL (``barrier()``), as the batch write path plans them."""
    clock = WritesetClock(np.array(keyless), np.array(barrier), cap)
    backs: list[int] = []
    i = 0
    bounds = sorted({c for c in cuts if 0 < c < len(groups)} | {len(groups)})
    for hi in bounds:
        while i < hi:
            if groups[i] is None:
                clock.barrier()
                backs.append(1)
                i += 1
                continue
            j = i
            while j < hi and groups[j] is not None:
                j += 1
            og = [g - i for g in range(i, j) for _ in groups[g]]
            ot = [t for g in range(i, j) for t, _ in groups[g]]
            ok = [k for g in range(i, j) for _, k in groups[g]]
            back, state = clock.plan(j - i, np.array(og, dtype=np.int64), np.array(ot, dtype=np.int64),
                                     np.array(ok, dtype=np.int64))
            clock.commit(state)
            backs.extend(back.tolist())
            i = j
    return backs


_group = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 12)), min_size=1, max_size=5)


@settings(max_examples=400, deadline=None)
@given(groups=st.lists(st.one_of(_group, _group, _group, st.none()), min_size=1, max_size=60),
       keyless4=st.booleans(), barrier3=st.booleans(),
       cap=st.sampled_from([3, 8, 25000]), cuts=st.lists(st.integers(0, 60), max_size=4))
def test_writeset_equals_sequential_model(groups, keyless4, barrier3, cap, cuts):
    """Tables 0-2 keyed, 3 a FOREIGN KEY parent or not, 4 keyless or not; small history
    capacities so that clears happen; any batch cuts."""
    keyless = [False, False, False, False, keyless4]
    barrier = [False, False, False, barrier3, False]
    want = model(groups, keyless, barrier, cap)
    backs = run_clock(groups, keyless, barrier, cap, cuts)
    got = [i - b if b > 0 else -1 for i, b in enumerate(backs)]
    assert got == want


def test_examples():
    # t0 k1 ; t0 k2 ; t0 k1 -> group 0 ; DDL ; t0 k2 -> the DDL (3) ; t0 k9 -> the DDL
    groups = [[(0, 1)], [(0, 2)], [(0, 1)], None, [(0, 2)], [(0, 9)]]
    assert model(groups, [False] * 5, [False] * 5, 25000) == [-1, -1, 0, 2, 3, 3]
    assert run_clock(groups, [False] * 5, [False] * 5, 25000, []) == [0, 0, 2, 1, 1, 2]


def test_last_committed_rotation_rule():
    # in a file: the first group 0; no dependency: 1 (history start after open_binlog's
    # rotate(1)); commit order: seq - 1; a dependency before the file: as none
    assert [last_committed(s, 0) for s in (1, 2, 3, 9)] == [0, 1, 1, 1]
    assert [last_committed(s, 1) for s in (1, 2, 3, 9)] == [0, 1, 2, 8]
    assert [last_committed(s, 3) for s in (1, 2, 3, 4, 9)] == [0, 1, 1, 1, 6]
    seq = np.arange(1, 40)
    for b in (0, 1, 2, 5, 50):
        assert last_committed_array(seq, np.full(len(seq), b)).tolist() == [last_committed(int(s), b) for s in seq]
