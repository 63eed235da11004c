"""Plans and values are pure functions: partition-independent, order-independent."""

from __future__ import annotations

import random

import pytest

from binlogwriter.values import encode_value
from generators.engine import Run
from generators.hashing import hash64, salt
from generators.plan import iter_plans, pick_index, plan_range, plan_transaction
from generators.spec import Spec, resolve


def _spec(**kw) -> Spec:
    return resolve(Spec.from_dict({"transactions": 100, "initial_rows": 30, **kw}))


@pytest.mark.parametrize("workload", ["sysbench", "ecommerce", "alltypes"])
def test_plans_do_not_depend_on_how_the_range_is_cut(workload: str) -> None:
    s = _spec(workload=workload)
    whole = list(iter_plans(s, 4, 0, 300))
    parts = []
    for a, b in ((200, 300), (0, 7), (7, 200)):  # any order, any partition
        parts.extend(iter_plans(s, 4, a, b))
    assert sorted(parts, key=lambda p: p.index) == whole
    assert plan_transaction(s, 4, 123) == whole[123]


@pytest.mark.parametrize("kw", [{"workload": "sysbench"}, {"workload": "ecommerce"}, {"workload": "alltypes"},
                                {"workload": "alltypes", "rows_per_txn": "3-9",
                                 "mix": "insert=0.3,update=0.5,delete=0.2"}])
def test_plan_range_equals_plan_transaction(kw) -> None:
    """The batch planner (draws computed by numpy for the range) plans what the
    transaction-at-a-time planner plans, also past its precomputed draws (long mixes)."""
    s = _spec(seed=random.randrange(2**32), **kw)
    for lo, hi in ((0, 400), (9_999, 10_050), (2**40, 2**40 + 5)):
        assert plan_range(s, 3, lo, hi) == [plan_transaction(s, 3, i) for i in range(lo, hi)]


def test_values_do_not_depend_on_call_order() -> None:
    run = Run(_spec(workload="alltypes"), out=None)  # type: ignore[arg-type]
    for rt in run.rows:
        pts = [(k, (g << 32) | n) for k in range(5) for g in range(2) for n in range(4)]
        fwd = {p: rt.compute(p[0], p[1], 0) for p in pts}
        random.Random(1).shuffle(pts)
        assert {p: rt.compute(p[0], p[1], 0) for p in pts} == fwd


@pytest.mark.parametrize("workload", ["sysbench", "ecommerce", "alltypes"])
def test_incremental_updates_equal_the_pure_row_function(workload: str) -> None:
    """The engine builds an UPDATE's after image from the before image; recomputing the row
    from (key, version) alone must give the same tuple (what a Spark partition does)."""
    run = Run(_spec(workload=workload), out=None)  # type: ignore[arg-type]
    for rt in run.rows:
        rt.load_initial(range(3))
        if not rt.mutable:
            continue
        for k in range(3):
            for _ in range(25):
                rt.update(k)
            rt.delete(k)
            rt.insert(k, 0)
            for _ in range(7):
                rt.update(k)
            cached = rt.row(k)
            rt.cache.clear()
            assert rt.row(k) == cached


def test_every_generated_value_fits_its_column() -> None:
    for flavor in ("mysql80", "mariadb1011"):
        run = Run(_spec(workload="alltypes", flavor=flavor), out=None)  # type: ignore[arg-type]
        for rt in run.rows:
            descs = rt.table.column_descs(flavor)
            for k in range(60):
                for v in (0, 1, (1 << 32) | 3):
                    row = rt.compute(k, v, 0)
                    for d, x in zip(descs, row, strict=True):
                        if x is not None:
                            encode_value(d, x)  # raises ValueEncodeError if it does not fit


def test_unique_keys_stay_unique() -> None:
    run = Run(_spec(workload="ecommerce"), out=None)  # type: ignore[arg-type]
    cust = run.rows[0]
    ie = cust.table.index_of("email")
    emails = {cust.compute(k, 0, 0)[ie].lower() for k in range(5000)}
    assert len(emails) == 5000
    prods = run.rows[1]
    isku = prods.table.index_of("sku")
    assert len({prods.compute(k, 0, 0)[isku] for k in range(5000)}) == 5000


def test_key_distributions_stay_in_range_and_skew() -> None:
    n = 1000
    for dist in ("uniform", "zipf:1.1", "zipf:0.5", "hotspot:0.01:0.9", "latest"):
        picks = [pick_index(dist, hash64(salt("t", dist), i), n) for i in range(4000)]
        assert min(picks) >= 0 and max(picks) < n
    hot = [pick_index("hotspot:0.01:0.9", hash64(salt("h"), i), n) for i in range(4000)]
    assert sum(p < 10 for p in hot) > 3000
    latest = [pick_index("latest", hash64(salt("l"), i), n) for i in range(4000)]
    assert sum(p >= n - 100 for p in latest) > 2000
    z = [pick_index("zipf:1.1", hash64(salt("z"), i), n) for i in range(4000)]
    assert sum(p < 10 for p in z) > 1000
