"""``step_many`` (generators/steps.py: keys.step over a batch's ops, vectorised; the closed
form ``_step_chains`` where every op applies, rounds otherwise) gives, op by op, what
``keys.step`` gives applied in order to the same key states — for random states (keys never
inserted, dead, live; versions near the 2**32 carry), random op sequences and sequences in
which every op applies (the closed form's case: checked to be taken)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from generators import steps as steps_mod
from generators.keys import step
from generators.steps import step_many

_KINDS = ("insert", "update", "delete")


def _oracle(rows, tab, key, kind, epoch, inc=None):
    state = {}
    out = []
    incs = [1] * len(key) if inc is None else inc.tolist()
    for t, k, kd, w in zip(tab.tolist(), key.tolist(), kind.tolist(), incs, strict=True):
        rt = rows[t]
        st_ = state.get((t, k))
        if st_ is None:
            st_ = (bool(rt.live[k]), int(rt.ver[k]), int(rt.born[k])) if k < len(rt.live) else (False, 0, -1)
        res = step(st_, _KINDS[kd], epoch, w)
        if res is None:
            out.append((False, st_[1], st_[1], st_[2]))  # what step_many reports for an op that does nothing
            continue
        new, vb, va = res
        state[(t, k)] = new
        out.append((True, vb, va, new[2]))
    return out


@st.composite
def _batches(draw):
    ntab = draw(st.integers(1, 3))
    rows = []
    for _ in range(ntab):
        m = draw(st.integers(0, 12))
        live = np.array(draw(st.lists(st.booleans(), min_size=m, max_size=m)), dtype=bool)
        gen = draw(st.lists(st.integers(0, 5), min_size=m, max_size=m))
        low = draw(st.lists(st.sampled_from([0, 1, 7, (1 << 32) - 3, (1 << 32) - 1]), min_size=m, max_size=m))
        ver = np.array([(g << 32) | x for g, x in zip(gen, low, strict=True)], dtype=np.int64)
        born = np.array(draw(st.lists(st.sampled_from([-1, 0, 2]), min_size=m, max_size=m)), dtype=np.int32)
        born[~live & (ver == 0)] = draw(st.sampled_from([-1, 0]))
        rows.append(SimpleNamespace(live=live, ver=ver, born=born))
    n = draw(st.integers(0, 60))
    tab = np.array(draw(st.lists(st.integers(0, ntab - 1), min_size=n, max_size=n)), dtype=np.int64)
    key = np.array(draw(st.lists(st.integers(0, 15), min_size=n, max_size=n)), dtype=np.int64)
    valid = draw(st.booleans())
    if valid:  # every op applies: each key's ops follow its state (the closed form's case)
        live_now: dict = {}
        kinds = []
        for t, k in zip(tab.tolist(), key.tolist(), strict=True):
            rt = rows[t]
            lv = live_now.get((t, k), bool(rt.live[k]) if k < len(rt.live) else False)
            kd = draw(st.sampled_from([1, 2])) if lv else 0
            live_now[(t, k)] = kd != 2
            kinds.append(kd)
        kind = np.array(kinds, dtype=np.int64)
    else:
        kind = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), dtype=np.int64)
    epoch = draw(st.integers(0, 3))
    # what an UPDATE adds (keys.update_inc: 1, or 1 << 16 for a counted table's second statement)
    inc = None if draw(st.booleans()) else \
        np.array(draw(st.lists(st.sampled_from([1, 1 << 16]), min_size=n, max_size=n)), dtype=np.int64)
    return rows, tab, key, kind, epoch, valid, inc


@settings(max_examples=500, deadline=None)
@given(_batches())
def test_step_many_equals_keys_step(b) -> None:
    rows, tab, key, kind, epoch, valid, inc = b
    applied, vb, va, born = step_many(rows, tab, key, kind, epoch, inc)
    want = _oracle(rows, tab, key, kind, epoch, inc)
    got = list(zip(applied.tolist(), vb.tolist(), va.tolist(), born.tolist(), strict=True))
    assert got == want


def test_closed_form_is_taken(monkeypatch) -> None:
    """sysbench's oltp_write_only batches (every op applies) go through ``_step_chains``."""
    calls = []
    real = steps_mod.step_chains

    def spy(*a):
        r = real(*a)
        calls.append(r is not None)
        return r
    monkeypatch.setattr(steps_mod, "step_chains", spy)
    rows = [SimpleNamespace(live=np.ones(50, dtype=bool), ver=np.arange(50, dtype=np.int64) << 32,
                            born=np.zeros(50, dtype=np.int32))]
    rng = np.random.default_rng(3)
    key = rng.integers(0, 50, (400, 3))
    key = np.concatenate([key, key[:, 2:]], axis=1).ravel()  # update, update, delete, insert the deleted key
    kind = np.tile(np.array([1, 1, 2, 0]), 400)
    tab = np.zeros(len(key), dtype=np.int64)
    inc = np.tile(np.array([1, 1 << 16, 1, 1]), 400)  # the counted sysbench table's k then c statement
    applied, vb, va, born = step_many(rows, tab, key, kind, 1, inc)
    assert calls == [True]
    got = list(zip(applied.tolist(), vb.tolist(), va.tolist(), born.tolist(), strict=True))
    assert got == _oracle(rows, tab, key, kind, 1, inc)
