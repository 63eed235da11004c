"""Vectorised twins shared by several generator families: ``fn(h, j) -> (kind, data, extra)``
(ColumnArray kinds of binlogwriter/values/row.py, "list" for Python values) computing, for
the stream hashes ``h``, what the scalar generator computes from draw ``j + 1`` on.
"""

from __future__ import annotations

from decimal import Decimal
from functools import lru_cache

import numpy as np

from binlogwriter.values.row import ColumnArray
from generators.columns._common import EDGE_P
from generators.hashing import draw_array, hash64_array, mix64_into, unit_array

_SAFE = 1 << 52


def _between_vec(lo: int, hi: int):
    n = hi - lo + 1
    if not (-_SAFE < lo <= hi < _SAFE) or n <= 0:
        return None
    return lambda h, j: lo + (draw_array(h, j + 1) % np.uint64(n)).astype(np.int64)


def _digits_vec(groups: int):
    if groups < 1:
        return None
    width = groups * 12 - 1
    js = np.arange(1, groups + 1, dtype=np.uint64)
    # one group ``%011d`` + "-" as 12 bytes: a little-endian u8 then u4 (packed)
    grp = np.dtype([("a", "<u8"), ("b", "<u4")])
    k6, k10, k11 = np.uint64(1_000_000), np.uint64(10), np.uint64(10 ** 11)
    s40, s24, s16, ffff = np.uint64(40), np.uint64(24), np.uint64(16), np.uint64(0xFFFF)
    tail = np.uint64((ord("-") << 24) + (ord("0") << 16))  # "-", and "0" added to the last digit

    def block(h, j):
        # %011d of below(10**11) = 5 digits of v // 10**6, 5 of (v % 10**6) // 10, then v % 10;
        # mix64 (generators/hashing.py) and the splits in place, on one scratch array
        z = h[:, None] ^ (js + np.uint64(j))[None, :]
        t = np.empty_like(z)
        mix64_into(z, t)
        np.remainder(z, k11, out=z)  # v
        five = _five_digits()
        np.floor_divide(z, k6, out=t)  # v // 10**6
        a = np.take(five, t.view(np.int64), mode="clip")  # in range: no bounds check
        t *= k6
        z -= t  # v % 10**6
        np.floor_divide(z, k10, out=t)
        tm = np.take(five, t.view(np.int64), mode="clip")
        t *= k10
        z -= t  # v % 10
        buf = np.empty(z.shape, dtype=grp)
        np.left_shift(tm, s40, out=t)
        a |= t
        buf["a"] = a
        np.right_shift(tm, s24, out=tm)
        tm &= ffff
        np.left_shift(z, s16, out=z)
        tm |= z
        tm += tail
        buf["b"] = tm
        return buf.view(np.uint8).reshape(len(h), groups * 12)[:, :width]

    def gen(h, j):
        out = np.empty((len(h), width), dtype=np.uint8)
        for s in range(0, len(h), 2048):  # blocks small enough to stay in cache
            out[s:s + 2048] = block(h[s:s + 2048], j)
        return out
    return gen


@lru_cache(maxsize=1)
def _five_digits() -> np.ndarray:
    """ASCII ``%05d`` of 0..99999 in the low 5 bytes of a little-endian uint64."""
    v = np.arange(100_000, dtype=np.uint64)
    out = np.zeros(100_000, dtype=np.uint64)
    for p in range(5):
        out |= ((v // np.uint64(10 ** (4 - p))) % np.uint64(10) + np.uint64(ord("0"))) << np.uint64(8 * p)
    return out


def _int_twin(g):
    return None if g is None else (lambda h, j: ("int", g(h, j), None))


def _pool_vec(entries: tuple):
    """Vectorised twin of ``entries[stream.below(len(entries))]`` (None if an entry is NULL)."""
    if not entries or any(e is None for e in entries):
        return None
    n = np.uint64(len(entries))
    return lambda h, j: ("pool", (draw_array(h, j + 1) % n).astype(np.int64), entries)


def _weighted_vec(vals: tuple, cum: list, tot: float):
    """Vectorised twin of a weighted choice: the first ``i`` with ``u * tot < cum[i]``."""
    if any(v is None for v in vals):
        return None
    c = np.asarray(cum, dtype=np.float64)

    def f(h, j):
        u = unit_array(draw_array(h, j + 1)) * tot
        return "pool", np.minimum(np.searchsorted(c, u, side="right"), len(vals) - 1), vals
    return f


def _edge_twin(scalar):
    """Vectorised twin of ``_with_edges(gen, edges)`` from gen's twin, or None: draw ``j+1``
    decides (``chance(EDGE_P)``), draw ``j+2`` picks the edge, gen draws from ``j+2`` on."""
    edges = scalar.edges
    base = getattr(scalar.base, "vec", None)
    if base is None:
        return None
    m = np.uint64(len(edges))

    def f(h, j):
        kind, data, extra = base(h, j + 1)
        e = unit_array(draw_array(h, j + 1)) < EDGE_P
        ei = (draw_array(h, j + 2) % m).astype(np.int64)
        if kind == "pool":
            if any(x is None for x in edges):
                return None
            return "pool", np.where(e, len(extra) + ei, data), tuple(extra) + tuple(edges)
        if kind == "int" and all(type(x) is int and -(1 << 63) <= x < 1 << 63 for x in edges):
            return "int", np.where(e, np.array(edges, dtype=np.int64)[ei], data), None
        if kind == "dec" and all(isinstance(x, Decimal) and x.as_tuple().exponent == -extra for x in edges):
            eu = np.array([int(x.scaleb(extra)) for x in edges], dtype=object)
            if all(-(1 << 63) < int(u) < 1 << 63 for u in eu):
                return "dec", np.where(e, eu.astype(np.int64)[ei], data), extra
        vals = list(data) if kind == "list" else ColumnArray(kind, data, None, None, extra).tolist()
        for r in np.flatnonzero(e).tolist():
            vals[r] = edges[int(ei[r])]
        return "list", vals, None
    return f


def _draw_bytes(h: np.ndarray, j: int, m: int) -> np.ndarray:
    """Draws ``j+1 .. j+m`` of every stream as little-endian bytes: an (n, 8m) uint8 array
    (``b"".join(st.next().to_bytes(8, "little") for _ in range(m))`` per row)."""
    d = np.empty((len(h), m), dtype="<u8")
    for t in range(m):
        d[:, t] = draw_array(h, j + 1 + t)
    return d.view(np.uint8).reshape(len(h), 8 * m)


def _key_text_vec(fn, base: int):
    """``[fn(k) for k in keys]`` with the per-key hashes made by numpy."""
    def vec(keys: np.ndarray) -> list:
        return [fn(k, h) for k, h in zip(keys.tolist(), hash64_array(base, keys).tolist(), strict=True)]
    return vec


def twin_of(scalar):
    """The vectorised twin of a scalar generator: its own ``vec``, else the twin of its
    edge wrapper (:func:`_edge_twin`), else None."""
    pv = getattr(scalar, "vec", None)
    if pv is not None:
        return pv
    if getattr(scalar, "edges", None) is not None:
        return _edge_twin(scalar)
    return None
