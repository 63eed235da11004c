"""Transaction planning: a pure function of (spec, transaction number).

:func:`plan_transaction` gives transaction ``i``'s operations — kind, table, how its key is
addressed, and the 64-bit draw that picks the key — from ``Stream(hash64(salt(seed,
"txn"), i))`` alone. No state is shared between transactions, so a range of transaction
numbers can be planned anywhere (the Spark job plans partitions independently). Turning
a draw into a concrete key (:func:`pick_index` over the keys ever inserted) and finding
out what the operation does to it is generators/keys.py's job: only prefix counters and
the history of that one key matter.

Key addressing (``Op.addr``):

``pick``      a key below the high-water mark chosen by ``--key-dist`` (UPDATE, DELETE;
              nothing happens if it is not live)
``new``       a fresh key (INSERT)
``same``      the key of op ``ref`` (sysbench's DELETE + INSERT of the same id)
``child``     ``key(ref) * 16 + line`` (ecommerce order_items of an order)
``children``  every live ``key(ref) * 16 + line`` (deleting an order's items)
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from generators.hashing import (
    ReplayStream,
    Stream,
    draws_matrix,
    hash64,
    hash64_array,
    mix64_array,
    salt,
    unit,
    unit_array,
)
from generators.spec import Spec

__all__ = ["Op", "TxnPlan", "plan_transaction", "plan_range", "pick_index", "pick_index_array", "ddl_after", "iter_plans"]


class Op(NamedTuple):
    """One planned operation (a named tuple: tens of thousands are made per batch)."""

    kind: str  # insert | update | delete | select (resolve a key only)
    table: int
    addr: str = "pick"
    ref: int = -1
    line: int = 0
    draw: int = 0


@dataclass(frozen=True, slots=True)
class TxnPlan:
    index: int
    ops: tuple[Op, ...]
    advance: int  # seconds the clock moves before this transaction


def ddl_after(spec: Spec, i: int) -> int | None:
    """The DDL number (1, 2, …) that follows transaction ``i``, or None."""
    if spec.ddl_every and (i + 1) % spec.ddl_every == 0:
        return (i + 1) // spec.ddl_every
    return None


def _mix_kind(mix: tuple[tuple[str, float], ...], u: float) -> str:
    acc = 0.0
    for k, w in mix:
        acc += w
        if u < acc:
            return k
    return next(k for k, w in reversed(mix) if w > 0)


def plan_transaction(spec: Spec, ntables: int, i: int) -> TxnPlan:
    """Transaction ``i`` of ``spec`` (resolved) over ``ntables`` tables."""
    return _plan(spec, ntables, i, Stream(hash64(salt(spec.seed, "txn"), i)))


_PLAN_DRAWS = 6  # draws every built-in template's plan takes at most (more are computed as needed)


def plan_range(spec: Spec, ntables: int, lo: int, hi: int) -> list[TxnPlan]:
    """:func:`plan_transaction` of ``lo .. hi-1`` (``lo >= 0``): the same plans, with the
    streams' first draws computed by numpy for the whole range
    (:class:`~generators.hashing.ReplayStream`)."""
    idx = np.arange(lo, hi, dtype=np.int64)
    hs = hash64_array(salt(spec.seed, "txn"), idx)
    pre = draws_matrix(hs, _PLAN_DRAWS).tolist()
    return [_plan(spec, ntables, i, ReplayStream(b, p)) for i, b, p in zip(range(lo, hi), hs.tolist(), pre,
                                                                            strict=True)]


def _plan(spec: Spec, ntables: int, i: int, st: Stream) -> TxnPlan:
    advance = 1 if st.below(4) == 0 else 0
    tpl = spec.template
    ops: list[Op] = []
    if tpl == "oltp_write_only":
        t = st.below(ntables)
        ops = [Op("update", t, draw=st.next()), Op("update", t, draw=st.next()),
               Op("delete", t, draw=st.next()), Op("insert", t, "same", ref=2)]
    elif tpl == "ecommerce":
        ops = _ecommerce_ops(spec, st)
    else:
        a, b = spec.rows_per_txn or (1, 1)
        for _ in range(st.between(a, b)):
            kind = _mix_kind(spec.mix or (("insert", 1.0),), st.u())
            t = st.below(ntables)
            ops.append(Op(kind, t, "new" if kind == "insert" else "pick", draw=st.next()))
    return TxnPlan(i, tuple(ops), advance)


# ecommerce tables: 0 customers, 1 products, 2 orders, 3 order_items
def _ecommerce_ops(spec: Spec, st: Stream) -> list[Op]:
    kind = _mix_kind(spec.mix or (("insert", 1.0),), st.u())
    u = st.u()
    if kind == "insert":
        if u < 0.8:  # place an order: the order, its lines, stock updates of its products
            ops = [Op("insert", 2, "new")]
            for line in range(1 + st.below(4)):
                ops.append(Op("insert", 3, "child", ref=0, line=line))
            ops.append(Op("update", 1, draw=st.next()))
            return ops
        return [Op("insert", 0 if u < 0.95 else 1, "new")]
    if kind == "update":
        if u < 0.6:
            return [Op("update", 2, draw=st.next())]
        if u < 0.8:
            return [Op("update", 1, draw=st.next())]
        if u < 0.9:
            return [Op("update", 3, draw=st.next())]
        return [Op("update", 0, draw=st.next())]
    # cancel an order: find it ("select" resolves a key, writes nothing), its items, the order
    return [Op("select", 2, "pick", draw=st.next()), Op("delete", 3, "children", ref=0),
            Op("delete", 2, "same", ref=0)]


def pick_index(dist: str, draw: int, n: int) -> int:
    """Index in [0, n) for a draw under ``--key-dist`` (rank 0 = hottest).

    The arithmetic is :func:`pick_index_array`'s, step for step, on Python floats: IEEE
    double ``+ - * /``, ``floor``, ``ldexp`` and ``frexp`` are exact the same in both, and the
    powers of ``zipf`` / ``latest`` are :func:`_exp` / :func:`_log` built from them (not
    libm's nor numpy's ``exp`` / ``log``, which differ in the last bit between each other
    and between CPUs). So the scalar and array picks are the same numbers on any machine
    (tests/generators/test_plan_batch.py)."""
    if n <= 1:
        return 0
    u = unit(draw)
    if dist == "uniform":
        return min(n - 1, int(u * n))
    if dist == "latest":
        r = _zipf_rank(1.0, u, n)
        return n - 1 - r
    if dist.startswith("zipf:"):
        return _zipf_rank(float(dist[5:]), u, n)
    if dist.startswith("hotspot:"):
        _, f, p = dist.split(":")
        hot = max(1, int(n * float(f)))
        u2 = unit(hash64(draw, 1))
        if u2 < float(p):
            return min(hot - 1, int(u * hot))
        return hot + min(n - hot - 1, int(u * (n - hot))) if n > hot else min(n - 1, int(u * n))
    raise ValueError(dist)


def _zipf_rank(s: float, u: float, n: int) -> int:
    """Inverse CDF of a continuous power law on [1, n+1): rank in [0, n)."""
    r = _zipf_real(s, u, float(n), SCALAR)
    return min(n - 1, max(0, int(r)))


# -- powers from exact IEEE operations only (the same bits as scalars and as numpy arrays) ----

_LN2_HI = 6.93147180369123816490e-01  # ln 2 split (fdlibm): k * _LN2_HI is exact for |k| < 2**20
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e+00
_SQRT_HALF = 0.70710678118654752440
_EXP_COEF = tuple(1.0 / math.factorial(j) for j in range(13, -1, -1))  # Taylor, |r| <= ln2/2: < 1e-17
_LOG_COEF = tuple(1.0 / (2 * j + 1) for j in range(10, 0, -1))  # atanh series 1/21 .. 1/3, s**2 < 0.03


class _Ops:
    """floor / ldexp / frexp / select for Python floats (``_SCALAR``) or numpy arrays (``_ARRAY``)."""

    def __init__(self, floor, ldexp, frexp, where) -> None:
        self.floor, self.ldexp, self.frexp, self.where = floor, ldexp, frexp, where


SCALAR = _Ops(math.floor, math.ldexp, math.frexp, lambda c, a, b: a if c else b)
ARRAY = _Ops(np.floor, lambda x, k: np.ldexp(x, np.asarray(k).astype(np.int64)), np.frexp, np.where)


def exp(x, m: _Ops):
    """e**x (|x| < 700) from ``+ - *`` and ``ldexp``: ``x = k ln2 + r``, a Taylor polynomial of r."""
    k = m.floor(x * _INV_LN2 + 0.5)
    r = (x - k * _LN2_HI) - k * _LN2_LO
    p = _EXP_COEF[0]
    for c in _EXP_COEF[1:]:
        p = p * r + c
    return m.ldexp(p, k)


def log(x, m: _Ops):
    """ln x (x > 0, normal) from ``frexp`` and ``+ - * /``: ``x = f 2**e`` with f in
    [sqrt(1/2), sqrt(2)), ``ln f = 2 atanh((f - 1) / (f + 1))`` as a series."""
    f, e = m.frexp(x)
    small = f < _SQRT_HALF
    f = m.where(small, f * 2.0, f)
    e = e - small
    g = f - 1.0
    s = g / (g + 2.0)
    z = s * s
    q = _LOG_COEF[0]
    for c in _LOG_COEF[1:]:
        q = q * z + c
    return e * _LN2_HI + (2.0 * s + (2.0 * s) * (z * q) + e * _LN2_LO)


def _zipf_real(s: float, u, n, m: _Ops):
    """The power law's real rank for unit draws ``u`` over ``n`` keys (floats or arrays)."""
    if abs(s - 1.0) < 1e-9:
        return exp(u * log(n + 1.0, m), m) - 1.0
    a = 1.0 - s
    return exp(log((exp(a * log(n + 1.0, m), m) - 1.0) * u + 1.0, m) * (1.0 / a), m) - 1.0


def pick_index_array(dist: str, draws: np.ndarray, n: np.ndarray) -> np.ndarray:
    """:func:`pick_index` elementwise: ``draws`` uint64, ``n`` int64 (key counts), one length;
    int64 indices (0 where ``n <= 1``)."""
    draws = np.asarray(draws, dtype=np.uint64)
    n = np.broadcast_to(np.asarray(n, dtype=np.int64), draws.shape)
    out = np.zeros(len(draws), dtype=np.int64)
    big = np.flatnonzero(n > 1)
    if not len(big):
        return out
    d, nn = draws[big], n[big]
    u = unit_array(d)
    nf = nn.astype(np.float64)
    if dist == "uniform":
        r = np.minimum(nn - 1, (u * nf).astype(np.int64))
    elif dist == "latest" or dist.startswith("zipf:"):
        s = 1.0 if dist == "latest" else float(dist[5:])
        rank = np.minimum(nn - 1, np.maximum(0, _zipf_real(s, u, nf, ARRAY).astype(np.int64)))
        r = nn - 1 - rank if dist == "latest" else rank
    elif dist.startswith("hotspot:"):
        _, f, p = dist.split(":")
        hot = np.maximum(1, (nf * float(f)).astype(np.int64))
        u2 = unit_array(mix64_array(d ^ np.uint64(1)))
        cold = np.where(nn > hot, hot + np.minimum(nn - hot - 1, (u * (nn - hot).astype(np.float64)).astype(np.int64)),
                        np.minimum(nn - 1, (u * nf).astype(np.int64)))
        r = np.where(u2 < float(p), np.minimum(hot - 1, (u * hot.astype(np.float64)).astype(np.int64)), cold)
    else:
        raise ValueError(dist)
    out[big] = r
    return out


def iter_plans(spec: Spec, ntables: int, start: int = 0, stop: int | None = None) -> Iterator[TxnPlan]:
    """Plans of transactions ``start .. stop-1`` (``stop`` None: without end)."""
    i = start
    while stop is None or i < stop:
        yield plan_transaction(spec, ntables, i)
        i += 1
