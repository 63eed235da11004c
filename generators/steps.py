"""keys.step (generators/keys.py, step 2) over a batch's ops at once, as arrays: what
:func:`generators.batch.apply_batch` applies for the ``oltp_write_only`` template.

:func:`step_many` groups the ops by (table, key) — one argsort of a packed key
(:func:`~binlogwriter.batch.unique.lexsort_ints`) — and steps every key's ops from its state
before the batch. Which ops apply is closed form: a key is live after an INSERT (it was
already, or the INSERT makes it so) and dead after a DELETE, an UPDATE changes neither, so a
key is live before an op iff its last INSERT or DELETE before it is an INSERT (or, with none,
it was live before the batch); an INSERT applies to a dead key, an UPDATE or DELETE to a live
one. The versions of the ops that apply are closed form too (:func:`_step_chains`: prefix
counts of INSERTs and UPDATEs per key); round by round (the r-th op of every key at once) only
when a count would carry. tests/generators/test_step_many.py and
tests/generators/test_plan_batch.py hold them to keys.step applied op by op.
"""

from __future__ import annotations

import numpy as np

from binlogwriter.batch.unique import lexsort_ints, unique_ints

__all__ = ["step_many"]


def step_many(rows: list, tab: np.ndarray, key: np.ndarray, kind: np.ndarray, epoch: int | np.ndarray,
              inc: np.ndarray | None = None):
    """keys.step over many ops in order, vectorised: ops are grouped by (table, key) and
    stepped from the state in ``rows`` (not changed here) — which ops apply and their
    versions in closed form (module docstring; :func:`_step_chains`), else the r-th op of every
    key at once (round r). ``epoch``: the DDL epoch of every op (one number or an array);
    ``inc``: what each UPDATE adds to its key's version (keys.update_inc; None: 1).
    Returns (applied mask, version before, version after, born) per op; for an op that does
    nothing: the key's version then and its born
    (tests/generators/test_step_many.py: equal to keys.step op by op)."""
    n = len(key)
    applied = np.zeros(n, dtype=bool)
    vb = np.zeros(n, dtype=np.int64)
    va = np.zeros(n, dtype=np.int64)
    bo = np.zeros(n, dtype=np.int64)
    if not n:
        return applied, vb, va, bo
    ep = np.broadcast_to(np.asarray(epoch, dtype=np.int64), (n,))
    order = lexsort_ints((key, tab))
    t_s, k_s = tab[order], key[order]
    newg = np.ones(n, dtype=bool)
    newg[1:] = (t_s[1:] != t_s[:-1]) | (k_s[1:] != k_s[:-1])
    gstart = np.flatnonzero(newg)
    gid = np.cumsum(newg) - 1
    # initial state of every key (keys beyond the arrays: never inserted)
    g_t, g_k = t_s[gstart], k_s[gstart]
    live = np.zeros(len(gstart), dtype=bool)
    ver = np.zeros(len(gstart), dtype=np.int64)
    born = np.full(len(gstart), -1, dtype=np.int64)
    for t in unique_ints(g_t).tolist():
        rt = rows[t]
        m = np.flatnonzero(g_t == t)
        ks = g_k[m]
        inside = ks < len(rt.live)
        mi, ki = m[inside], ks[inside]
        live[mi] = rt.live[ki]
        ver[mi] = rt.ver[ki]
        born[mi] = rt.born[ki]
    kind_s = kind[order]
    ep_s = ep[order]
    inc_s = np.ones(n, dtype=np.int64) if inc is None else np.asarray(inc, dtype=np.int64)[order]
    if _step_closed(kind_s, gstart, gid, live, ver, born, ep_s, inc_s, order, applied, vb, va, bo):
        return applied, vb, va, bo
    rank = np.arange(n) - gstart[gid]
    by_rank = np.argsort(rank, kind="stable")
    bounds = np.searchsorted(rank[by_rank], np.arange(int(rank.max()) + 2))
    for r in range(len(bounds) - 1):
        pos = by_rank[bounds[r]:bounds[r + 1]]  # sorted positions of the r-th op of each key
        g = gid[pos]
        kd = kind_s[pos]
        lv, vr, bn = live[g], ver[g], born[g]
        ins = (kd == 0) & ~lv
        upd = (kd == 1) & lv
        dele = (kd == 2) & lv
        ok = ins | upd | dele
        new_v = np.where(ins, np.where(bn < 0, 0, ((vr >> 32) + 1) << 32), np.where(upd, vr + inc_s[pos], vr))
        op = order[pos]
        applied[op] = ok
        vb[op] = vr
        va[op] = new_v
        nb = np.where(ins, ep_s[pos], bn)
        bo[op] = nb
        live[g] = np.where(ok, ins | upd, lv)
        ver[g] = np.where(ok, new_v, vr)
        born[g] = np.where(ok, nb, bn)
    return applied, vb, va, bo


def _step_closed(kd: np.ndarray, gstart: np.ndarray, gid: np.ndarray, live: np.ndarray, ver: np.ndarray,
                 born: np.ndarray, ep: np.ndarray, inc: np.ndarray, order: np.ndarray, applied: np.ndarray,
                 vb: np.ndarray, va: np.ndarray, bo: np.ndarray) -> bool:
    """:func:`step_many` without rounds (ops sorted by key; ``order``: their positions in the
    batch): which ops apply from the liveness rule (module docstring), the versions of those
    from :func:`_step_chains`, and for the others the version and born their key has then
    (the last applied op's after-state, or the key's state before the batch). Fills the
    outputs and returns True, or False when :func:`_step_chains` cannot (a count would carry)."""
    n = len(kd)
    idx = np.arange(n)
    insdel = np.maximum.accumulate(np.where(kd != 1, idx, -1))  # last INSERT/DELETE at or before
    prev = np.empty(n, dtype=np.int64)
    prev[0] = -1
    prev[1:] = insdel[:-1]
    gs = gstart[gid]
    lb = np.where(prev >= gs, kd[np.maximum(prev, 0)] == 0, live[gid])
    ok = np.where(kd == 0, ~lb, lb)
    sel = np.flatnonzero(ok)
    # the applied ops, regrouped: keys with none keep their state
    s_new = np.ones(len(sel), dtype=bool)
    s_new[1:] = gid[sel][1:] != gid[sel][:-1]
    s_gid = np.cumsum(s_new) - 1
    s_start = np.flatnonzero(s_new)
    owner = gid[sel][s_start]  # original group of each applied group
    chains = step_chains(kd[sel], s_start, s_gid, live[owner], ver[owner], born[owner], ep[sel], inc[sel]) \
        if len(sel) else \
        (np.zeros(0, np.int64),) * 3
    if chains is None:
        return False
    c_vb, c_va, c_bo = chains
    # ops that do nothing: the state their key has then (after its last applied op before them)
    last_ok = np.maximum.accumulate(np.where(ok, idx, -1))
    prev_ok = np.empty(n, dtype=np.int64)
    prev_ok[0] = -1
    prev_ok[1:] = last_ok[:-1]
    at = np.full(n, -1, dtype=np.int64)
    at[sel] = np.arange(len(sel))
    has = prev_ok >= gs
    pa = at[np.maximum(prev_ok, 0)]
    full_va = np.zeros(n, dtype=np.int64)
    full_bo = np.zeros(n, dtype=np.int64)
    full_va[sel] = c_va
    full_bo[sel] = c_bo
    cur_v = np.where(has, c_va[np.maximum(pa, 0)] if len(sel) else 0, ver[gid])
    cur_b = np.where(has, c_bo[np.maximum(pa, 0)] if len(sel) else 0, born[gid])
    o_vb = cur_v.copy()
    o_va = cur_v.copy()
    o_bo = cur_b.copy()
    o_vb[sel] = c_vb
    o_va[sel] = c_va
    o_bo[sel] = c_bo
    applied[order] = ok
    vb[order] = o_vb
    va[order] = o_va
    bo[order] = o_bo
    return True


def step_chains(kd: np.ndarray, gstart: np.ndarray, gid: np.ndarray, live: np.ndarray,
                ver: np.ndarray, born: np.ndarray, epoch: int | np.ndarray, inc: np.ndarray | None = None):
    """:func:`step_many`'s versions in closed form, for ops sorted by key (``kd``: kinds;
    ``gstart``/``gid``: each key's first op; ``live``/``ver``/``born``: each key's
    state before them), when every op applies — an INSERT exactly where the key is not live
    (the state before an op is the one its predecessor leaves: live unless a DELETE) — and
    no count can carry (an UPDATE adds ``inc``, 1 when None) (``n`` stays below 2**32, the incarnation below 2**31, ``epoch`` >= 0).
    Then, with ``k`` INSERTs and ``u`` UPDATEs before an op since its key's last INSERT (or
    its first op): version before ``(g + k - 1) << 32 | u`` after an INSERT (``g`` the
    incarnation the first INSERT starts: 0 for a key never inserted, else its version's + 1),
    else the key's version + ``u``; an INSERT starts ``(g + k) << 32``, an UPDATE adds 1, a
    DELETE keeps it; born is ``epoch`` from the first INSERT on. (versions before, after,
    born) in the sorted order, or None (then the rounds)."""
    n = len(kd)
    ep = np.broadcast_to(np.asarray(epoch, dtype=np.int64), (n,))
    if n and ep.min() < 0:
        return None
    size = np.diff(np.append(gstart, n))
    w = np.ones(n, dtype=np.int64) if inc is None else inc
    ins = kd == 0
    upd = kd == 1
    wu = np.where(upd, w, 0)  # what each op adds to the version's update count
    total = np.add.reduceat(wu, gstart) if n else np.zeros(0, np.int64)
    if ((ver & 0xFFFFFFFF) + total >= 1 << 32).any() or ((ver >> 32) + size >= 1 << 31).any():
        return None
    lb = np.empty(n, dtype=bool)  # live before each op, if every op before it applied
    lb[1:] = kd[:-1] != 2
    lb[gstart] = live
    if not np.array_equal(ins, ~lb):
        return None
    idx = np.arange(n)
    cins = np.cumsum(ins)
    k = cins - ins
    k -= k[gstart][gid]  # INSERTs before the op, in its group
    has = k > 0
    cupd = np.cumsum(wu) - wu  # what the UPDATEs before the op added
    last = np.maximum.accumulate(np.where(ins, idx, -1))  # the last INSERT at or before the op
    lastx = np.empty(n, dtype=np.int64)
    lastx[0] = -1
    lastx[1:] = last[:-1]
    u = cupd - cupd[np.where(has, lastx + 1, gstart[gid])]
    v0, b0 = ver[gid], born[gid]
    g = np.where(b0 < 0, 0, (v0 >> 32) + 1)
    vb = np.where(has, ((g + k - 1) << 32) + u, v0 + u)
    va = np.where(ins, (g + k) << 32, vb + wu)
    bo = np.where(ins | has, ep[np.maximum(last, 0)], b0)
    return vb, va, bo
