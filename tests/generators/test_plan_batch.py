"""The array planner (generators/plan_batch.py), the array key-state steps (generators/steps.py)
and :func:`generators.batch.apply_batch` built on them give exactly what the per-transaction
reference gives: ``keys.resolve_ops(plan.plan_transaction(...))`` op for op (and the key
cursor after every transaction), ``keys.step`` applied in order state for state, and
:func:`generators.batch.apply_batch_loop` change for change with ``--size`` cuts rolled back
by :meth:`AppliedBatch.keep`.

Drawn: every template (``oltp_write_only``, ``ecommerce``, the generic ``mix``), mixes with
zero weights, rows per transaction (1, 1) to wide ranges, every ``--key-dist`` (uniform,
latest, zipf with s = 1 and s != 1, hotspot), tables with a tiny key space (TINYINT keys:
capacity overflow), keyless tables, FOREIGN KEY parents (``keep_initial``), tables without
mutable columns, ranges starting mid-run (cursor carried), ``--ddl-every`` epochs, and the
tables of the built-in workloads and of custom DDL.
"""

from __future__ import annotations

import dataclasses
import math
from functools import cache
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generators import batch as batch_mod
from generators import keys as keys_mod
from generators.api import make_run
from generators.batch import apply_batch, apply_batch_loop
from generators.engine import generate
from generators.hashing import hash64, salt
from generators.keys import KeyCursor, TableInfo, resolve_ops, step
from generators.plan import ARRAY, SCALAR, exp, log, pick_index, pick_index_array, plan_transaction
from generators.plan_batch import KIND_CODE, resolve_chunks, resolve_range
from generators.spec import Spec
from generators.spec_values import parse_key_dist, parse_mix
from generators.steps import step_many
from tests.generators.edge_schemas import EVERY_FAMILY_DDL

_SMALL_DDL = """
CREATE TABLE tiny (id TINYINT NOT NULL PRIMARY KEY, v INT);
CREATE TABLE nokey (a INT, b VARCHAR(10));
CREATE TABLE onlykey (a SMALLINT NOT NULL, b TINYINT UNSIGNED NOT NULL, PRIMARY KEY (a, b));
"""
_FK_DDL = """
CREATE TABLE line (o BIGINT UNSIGNED NOT NULL, n SMALLINT NOT NULL, q INT,
  PRIMARY KEY (o, n), FOREIGN KEY (o) REFERENCES ord (id));
CREATE TABLE ord (id TINYINT UNSIGNED NOT NULL PRIMARY KEY, who VARCHAR(60) NOT NULL);
CREATE TABLE node (id INT NOT NULL PRIMARY KEY, up INT REFERENCES node (id), label VARCHAR(10));
"""
# (spec settings, templates the tables allow)
_RUNS = {
    "sysbench": (dict(workload="sysbench", tables=3), ("oltp_write_only", "mix")),
    "ecommerce": (dict(workload="ecommerce"), ("ecommerce", "oltp_write_only", "mix")),
    "alltypes": (dict(workload="alltypes"), ("mix", "oltp_write_only")),
    "edge": (dict(workload=None, schema_sql=EVERY_FAMILY_DDL, schema_file="edge.sql"), ("mix", "oltp_write_only")),
    "small": (dict(workload=None, schema_sql=_SMALL_DDL, schema_file="small.sql"), ("mix", "oltp_write_only")),
    "fk": (dict(workload=None, schema_sql=_FK_DDL, schema_file="fk.sql", flavor="mariadb1011"),
           ("mix", "oltp_write_only")),
}
_DISTS = st.one_of(st.sampled_from(["uniform", "latest", "zipf:1", "zipf:1.0", "zipf:1.2", "zipf:0.5", "zipf:3",
                                    "zipf:10", "zipf:0.01", "hotspot:0.1:0.9", "hotspot:0.5:0", "hotspot:0.99:1"]),
                   st.floats(0.05, 4, allow_nan=False).map(lambda s: f"zipf:{s!r}"))


@st.composite
def _mixes(draw) -> tuple:
    w = draw(st.lists(st.sampled_from([0, 0, 0.1, 1, 3.7]), min_size=3, max_size=3))
    if not any(w):
        w[draw(st.integers(0, 2))] = 1
    return parse_mix({k: x for k, x in zip(("insert", "update", "delete"), w, strict=True)})


@st.composite
def _plan_specs(draw, template: str) -> Spec:
    a = draw(st.integers(1, 4))
    b = draw(st.sampled_from([a, a + 1, a + draw(st.integers(2, 40))]))
    return dataclasses.replace(Spec(), template=template, mix=draw(_mixes()), rows_per_txn=(a, b),
                               key_dist=parse_key_dist(draw(_DISTS)), ddl_every=draw(st.sampled_from([0, 1, 3, 7, 50])),
                               seed=draw(st.integers(0, 2**40)))


@st.composite
def _infos(draw, n: int) -> list[TableInfo]:
    out = []
    for _ in range(n):
        ff = draw(st.sampled_from([0, 1, 2, 10, 120]))
        cap = draw(st.sampled_from([1, 2, 5, 16, 127, 128, 255, 32767, 2**31 - 1, 2**62, 2**64 - 1]))
        out.append(TableInfo(ff, cap, draw(st.booleans()), draw(st.booleans())))
    return out


@cache
def _run_infos(name: str, initial: int) -> list[TableInfo]:
    kw, _ = _RUNS[name]
    return list(make_run(Spec.from_dict(dict(seed=1, initial_rows=initial, **kw))).infos)


@st.composite
def _cases(draw):
    """(spec, infos, cursor at lo, lo, hi): synthetic tables or a built-in / custom DDL run's."""
    if draw(st.booleans()):
        name = draw(st.sampled_from(sorted(_RUNS)))
        infos = _run_infos(name, draw(st.sampled_from([1, 3, 100])))
        template = draw(st.sampled_from(_RUNS[name][1]))
    else:
        template = draw(st.sampled_from(["oltp_write_only", "ecommerce", "mix"]))
        infos = draw(_infos(4 if template == "ecommerce" else draw(st.integers(1, 5))))
    spec = draw(_plan_specs(template))
    cur = KeyCursor([draw(st.integers(0, 300)) for _ in infos],
                    [x.first_fresh + draw(st.sampled_from([0, 0, 1, 5, 500])) for x in infos])
    lo = draw(st.sampled_from([0, 1, 14, 15, 1000, 123_456_789]))
    return spec, infos, cur, lo, lo + draw(st.integers(0, 70))


def _reference(spec: Spec, infos: list[TableInfo], cur: KeyCursor, lo: int, hi: int):
    """resolve_ops(plan_transaction(i)) for i in lo..hi-1: ops, advances, cursor before each
    transaction and after the last."""
    cur = cur.copy()
    ops, adv, cursors = [], [], []
    for i in range(lo, hi):
        cursors.append((list(cur.new), list(cur.hwm)))
        plan = plan_transaction(spec, len(infos), i)
        adv.append(plan.advance)
        for op in resolve_ops(spec, infos, cur, plan):
            ops.append((i, op.seq, KIND_CODE[op.kind], op.table, op.key, op.epoch))
    cursors.append((list(cur.new), list(cur.hwm)))
    return ops, adv, cursors


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_cases(), st.data())
def test_resolve_range_equals_resolve_ops(case, data) -> None:
    spec, infos, cur, lo, hi = case
    want, adv, cursors = _reference(spec, infos, cur, lo, hi)
    ops, after = resolve_range(spec, infos, cur, lo, hi)
    got = list(zip(ops.txn.tolist(), ops.seq.tolist(), ops.kind.tolist(), ops.table.tolist(), ops.key.tolist(),
                   ops.epoch.tolist(), strict=True))
    assert got == want
    assert ops.advance.tolist() == adv
    assert (after.new, after.hwm) == cursors[-1]
    mid = data.draw(st.integers(lo, hi))
    at = ops.cursor_at(mid)
    assert (at.new, at.hwm) == cursors[mid - lo]
    # in chunks, the cursor carried: the same ops
    chunk = data.draw(st.integers(1, 30))
    parts = list(resolve_chunks(spec, infos, cur, lo, hi, chunk))
    again = [x for p, _ in parts for x in zip(p.txn.tolist(), p.seq.tolist(), p.kind.tolist(), p.table.tolist(),
                                             p.key.tolist(), p.epoch.tolist(), strict=True)]
    assert again == want
    if parts:
        assert (parts[-1][1].new, parts[-1][1].hwm) == cursors[-1]


def test_cases_reach_the_rules() -> None:
    """The drawn plans do reach capacity overflow, unresolved picks, FK-parent skips,
    non-mutable skips and children DELETEs (a fixed sample of the cases above)."""
    infos = [TableInfo(2, 5, False, True), TableInfo(0, 3, True, False), TableInfo(3, 2**62, True, True),
             TableInfo(0, 40, True, False)]
    seen = set()
    for tpl, dist in (("mix", "zipf:1.5"), ("ecommerce", "latest"), ("oltp_write_only", "hotspot:0.1:0.9")):
        spec = dataclasses.replace(Spec(), template=tpl, mix=parse_mix("insert=1,update=1,delete=1"),
                                   rows_per_txn=(1, 6), key_dist=dist)
        cur = KeyCursor.start(infos)
        want, _, _ = _reference(spec, infos, cur, 0, 400)
        ops, _ = resolve_range(spec, infos, cur, 0, 400)
        assert len(want) == len(ops.key) > 0
        plans = [plan_transaction(spec, 4, i) for i in range(400)]
        kinds = {(op.kind, op.addr, op.table) for p in plans for op in p.ops}
        seen |= {a for _, a, _ in kinds}
        if tpl == "mix":  # table 0: 2 initial keys of 5, INSERTs overflow; updates dropped
            assert ops.key[(ops.table == 0) & (ops.kind == 0)].size > 3
            assert not ((ops.table == 0) & (ops.kind == 1)).any()
            assert not ((ops.table == 0) & (ops.kind == 2) & (ops.key < 2)).any()
    assert seen == {"pick", "new", "same", "child", "children"}


# -- pick_index ----------------------------------------------------------------------------
@settings(max_examples=400, deadline=None)
@given(_DISTS, st.lists(st.tuples(st.integers(0, 2**64 - 1),
                                  st.one_of(st.integers(0, 5), st.integers(0, 10**6), st.integers(0, 2**62))),
                        min_size=1, max_size=40))
def test_pick_index_array_equals_pick_index(dist: str, pairs) -> None:
    dist = parse_key_dist(dist)
    draws = np.array([d for d, _ in pairs], dtype=np.uint64)
    n = np.array([k for _, k in pairs], dtype=np.int64)
    got = pick_index_array(dist, draws, n).tolist()
    assert got == [pick_index(dist, d, k) for d, k in pairs]
    assert all(0 <= g < max(1, k) for g, (_, k) in zip(got, pairs, strict=True))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(-700, 700, allow_nan=False), min_size=1, max_size=30),
       st.lists(st.floats(1e-300, 1e300, allow_nan=False), min_size=1, max_size=30))
def test_exp_log_are_libm_to_a_few_ulps_and_the_same_as_arrays(xs, ys) -> None:
    """The powers of zipf/latest: close to math.exp / math.log, scalars equal to arrays bit for bit."""
    ex = exp(np.array(xs), ARRAY)
    lg = log(np.array(ys), ARRAY)
    for x, e in zip(xs, ex.tolist(), strict=True):
        assert e == exp(x, SCALAR)
        assert math.isclose(e, math.exp(x), rel_tol=1e-15)
    for y, g in zip(ys, lg.tolist(), strict=True):
        assert g == log(y, SCALAR)
        assert math.isclose(g, math.log(y), rel_tol=1e-15, abs_tol=1e-300)


# -- step_many with an epoch per op --------------------------------------------------------
@settings(max_examples=400, deadline=None)
@given(st.data())
def test_step_many_with_epochs_per_op_equals_keys_step(data) -> None:
    m = data.draw(st.integers(0, 10))
    live = np.array(data.draw(st.lists(st.booleans(), min_size=m, max_size=m)), dtype=bool)
    low = data.draw(st.lists(st.sampled_from([0, 3, (1 << 32) - 2, (1 << 32) - 1]), min_size=m, max_size=m))
    gen = data.draw(st.lists(st.sampled_from([0, 1, 1 << 30]), min_size=m, max_size=m))
    ver = np.array([(g << 32) | x for g, x in zip(gen, low, strict=True)], dtype=np.int64)
    born = np.array(data.draw(st.lists(st.sampled_from([-1, 0, 4]), min_size=m, max_size=m)), dtype=np.int32)
    rows = [SimpleNamespace(live=live, ver=ver, born=born)]
    n = data.draw(st.integers(0, 80))
    key = np.array(data.draw(st.lists(st.integers(0, 12), min_size=n, max_size=n)), dtype=np.int64)
    kind = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), dtype=np.int64)
    epoch = np.sort(np.array(data.draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)), dtype=np.int64))
    applied, vb, va, bo = step_many(rows, np.zeros(n, dtype=np.int64), key, kind, epoch)
    state: dict = {}
    for j, (k, kd, e) in enumerate(zip(key.tolist(), kind.tolist(), epoch.tolist(), strict=True)):
        s = state.get(k, (bool(live[k]), int(ver[k]), int(born[k])) if k < m else (False, 0, -1))
        res = step(s, ("insert", "update", "delete")[kd], e)
        if res is None:
            assert (bool(applied[j]), int(vb[j]), int(va[j]), int(bo[j])) == (False, s[1], s[1], s[2])
            continue
        state[k], b, a = res
        assert (bool(applied[j]), int(vb[j]), int(va[j]), int(bo[j])) == (True, b, a, state[k][2])


# -- apply_batch: change for change, state for state, cuts rolled back ----------------------
def _fresh_run(spec: Spec):
    run = make_run(spec)
    for rt in run.rows:
        rt.load_initial(run._initial_keys(rt))
    return run


def _state(run, upto: list[int]) -> tuple:
    """Every key's (live, version, born) below ``upto`` per table (NEVER past the arrays), live
    counts and the key cursor. ``next_key`` itself is a bound, not state: a rolled-back INSERT
    leaves it raised in the loop (keys.NEVER written back), untouched in the array path."""
    out = []
    for rt, n in zip(run.rows, upto, strict=True):
        live = np.zeros(n, dtype=bool)
        ver = np.zeros(n, dtype=np.int64)
        born = np.full(n, -1, dtype=np.int64)
        m = min(n, len(rt.live))
        live[:m], ver[:m], born[:m] = rt.live[:m], rt.ver[:m], rt.born[:m]
        assert not rt.live[n:].any()
        out.append((rt.live_count, live.tolist(), ver.tolist(), born.tolist()))
    return tuple(out), (list(run.cursor.new), list(run.cursor.hwm))


def _same_state(a, b) -> None:
    upto = [max(x.next_key, y.next_key) for x, y in zip(a.rows, b.rows, strict=True)]
    assert _state(a, upto) == _state(b, upto)


_FIELDS = ("txn", "table", "kind", "key", "ver_before", "ver_after", "born", "advance")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(_RUNS)), st.data())
def test_apply_batch_equals_the_loop(name: str, data) -> None:
    kw, templates = _RUNS[name]
    template = data.draw(st.sampled_from(templates))
    a = data.draw(st.integers(1, 3))
    b = data.draw(st.sampled_from([a, a + 2, a + 25]))
    settings_ = dict(kw, seed=data.draw(st.integers(0, 1000)), initial_rows=data.draw(st.sampled_from([1, 2, 40, 120])),
                     key_dist=data.draw(_DISTS), ddl_every=data.draw(st.sampled_from([0, 4, 9])),
                     rows_per_txn=f"{a}-{b}", mix=dict(data.draw(_mixes())))
    spec = Spec.from_dict(settings_)
    runs = [_fresh_run(spec), _fresh_run(spec)]
    for r in runs:  # any template over these tables (the key rules do not look at columns)
        r.spec = dataclasses.replace(r.spec, template=template)
    _same_state(*runs)
    lo = 0
    for _ in range(data.draw(st.integers(1, 4))):
        hi = lo + data.draw(st.integers(0, 120))
        fast = apply_batch(runs[0], lo, hi)
        slow = apply_batch_loop(runs[1], lo, hi)
        for f in _FIELDS:
            assert getattr(fast, f).tolist() == getattr(slow, f).tolist(), f
        assert fast.counts(hi - lo) == slow.counts(hi - lo)
        cut = data.draw(st.integers(0, hi - lo))
        fast.keep(runs[0], cut)
        slow.keep(runs[1], cut)
        _same_state(*runs)
        lo += cut


# -- the engine's batch path calls no per-transaction planner -------------------------------
@pytest.mark.parametrize("workload", ["ecommerce", "alltypes"])
def test_batch_path_plans_no_transaction_alone(workload: str, tmp_path, monkeypatch) -> None:
    def boom(*a, **k):
        raise AssertionError("per-transaction planning in the batch path")
    for mod, fn in ((batch_mod, "plan_range"), (batch_mod, "resolve_ops"), (batch_mod, "step"),
                    (keys_mod, "resolve_ops"), (keys_mod, "step")):
        monkeypatch.setattr(mod, fn, boom)
    spec = Spec.from_dict(dict(workload=workload, transactions=300, initial_rows=10, key_dist="zipf:1.1", seed=3))
    generate(spec, tmp_path / "out")
    assert (tmp_path / "out" / "binlog.000001").stat().st_size > 1000


# -- spark_gen's partition functions --------------------------------------------------------
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_cases())
def test_partition_counters_and_ops_equal_the_reference(case) -> None:
    from spark_gen import partition
    spec, infos, cur, lo, hi = case
    n = len(infos)
    ref = KeyCursor([0] * n, [0] * n)
    adv = 0
    for i in range(lo, hi):
        p = plan_transaction(spec, n, i)
        adv += p.advance
        resolve_ops(spec, infos, ref, p)
    assert partition.count_new(spec, infos, lo, hi) == (ref.new, adv)
    ref = KeyCursor(list(cur.new), [0] * n)
    for i in range(lo, hi):
        resolve_ops(spec, infos, ref, plan_transaction(spec, n, i))
    assert partition.max_hwm(spec, infos, list(cur.new), lo, hi) == ref.hwm
    want, _, _ = _reference(spec, infos, cur, lo, hi)
    blk = partition.ops_arrays(spec, infos, cur, lo, hi)
    got = list(zip(blk["i"].tolist(), blk["seq"].tolist(), blk["kind"].tolist(), blk["t"].tolist(), blk["k"].tolist(),
                   blk["epoch"].tolist(), strict=True))
    assert got == want


def test_draws_are_the_streams() -> None:
    """A fixed point of the planner's draws (expected values from the scalar Stream, not the arrays)."""
    spec = dataclasses.replace(Spec(), template="mix", mix=parse_mix("insert=1"), rows_per_txn=(3, 3), seed=7)
    infos = [TableInfo(0, 2**31, True, False)] * 2
    ops, _ = resolve_range(spec, infos, KeyCursor.start(infos), 5, 6)
    base = hash64(salt(7, "txn"), 5)
    from generators.hashing import mix64
    tables = [mix64(base ^ (4 + 3 * j)) % 2 for j in range(3)]
    assert ops.table.tolist() == tables
    assert ops.key.tolist() == [tables[:j].count(t) for j, t in enumerate(tables)]
