"""Helpers shared by several generator families (generators/columns/): edge values, the
DECIMAL quantizer, the log-normal "price" draws, and SQL string quoting.

Every value is a function of a :class:`~generators.hashing.Stream` (generators/values.py
module docstring); a vectorised twin reads the same draws with
:func:`~generators.hashing.draw_array`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Context, Decimal
from typing import Any

import numpy as np

from generators.hashing import Stream, draw_array, unit_array

__all__ = ["ValueFn", "EDGE_P", "START_TIME", "quote"]

ValueFn = Callable[[int, int], Any]
EDGE_P = 0.25  # share of edge values in "edge" mode (alltypes)
START_TIME = 1767225600  # default clock of generated values (2026-01-01T00:00:00Z)


# ------------------------------------------------------------------------------------
# numbers drawn from a stream
# ------------------------------------------------------------------------------------

CTX = Context(prec=100)


def quantize(d: Decimal, s: int) -> Decimal:
    return d.quantize(Decimal(1).scaleb(-s), context=CTX)


def normal(st: Stream) -> float:
    u1 = st.u() or 1e-12
    u2 = st.u()
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2 * math.pi * u2)


def lognormal_price(st: Stream) -> float:
    return math.exp(3.0 + 1.1 * normal(st))  # median ~20, long tail


def lognormal_list(h: np.ndarray, j: int) -> list[float]:
    """:func:`_lognormal_price` of ``Stream(h[i])`` from draw ``j + 1`` on (two draws),
    with the same ``math`` functions on the same floats."""
    u1 = unit_array(draw_array(h, j + 1)).tolist()
    u2 = unit_array(draw_array(h, j + 2)).tolist()
    exp, sqrt, log, cos, tau = math.exp, math.sqrt, math.log, math.cos, 2 * math.pi
    return [exp(3.0 + 1.1 * (sqrt(-2.0 * log(a or 1e-12)) * cos(tau * b))) for a, b in zip(u1, u2, strict=True)]


def lognormal_np(h: np.ndarray, j: int) -> np.ndarray:
    """:func:`_lognormal_list`'s formula by numpy's functions: the same values to a few ulps
    (numpy's ``exp`` / ``log`` / ``cos`` are not ``math``'s to the last bit), for callers that
    cut the value (round it, truncate it) and recompute with :func:`_lognormal_list` the rows
    near a cut (:func:`_lognormal_cut`)."""
    u1 = unit_array(draw_array(h, j + 1))
    u2 = unit_array(draw_array(h, j + 2))
    a = np.where(u1 == 0.0, 1e-12, u1)  # the scalar's ``a or 1e-12``
    return np.exp(3.0 + 1.1 * (np.sqrt(-2.0 * np.log(a)) * np.cos(2 * math.pi * u2)))


_CUT_MARGIN = 1e-4
"""How near a cut (in units of the cut's step) :func:`_lognormal_cut` recomputes a value: the
two formulas differ by a relative 1e-14 at most, values stay below 1e6, steps are 1e-4 and
coarser, so numpy's value is within 1e-6 of a step of ``math``'s."""


def lognormal_cut(h: np.ndarray, j: int, step: float, tie: bool) -> np.ndarray:
    """:func:`_lognormal_list` as a float64 array for a caller that cuts ``v / step`` at the
    integers (``tie`` False: truncation, ``int(x * 100)``) or at the half-integers (``tie``
    True: rounding, ``round(x, 4)``): numpy's values, except rows within ``_CUT_MARGIN`` of a
    cut, which take ``math``'s (the same cut either way for every row)."""
    v = lognormal_np(h, j)
    t = v / step
    f = t - np.floor(t)
    near = np.abs(f - 0.5) < _CUT_MARGIN if tie else (f < _CUT_MARGIN) | (f > 1 - _CUT_MARGIN)
    near |= ~np.isfinite(t)
    rows = np.flatnonzero(near)
    if len(rows):
        v[rows] = lognormal_list(h[rows], j)
    return v


def exp_ints(u: np.ndarray, mean: float) -> np.ndarray:
    """``int(-math.log(1.0 - x) * mean)`` of every ``x`` of ``u`` (units in [0, 1): a
    Stream's ``exp`` truncated, as the scalar generators draw lengths and ranks) as int64:
    numpy's ``log``, the rows within ``_CUT_MARGIN`` of an integer by ``math.log``."""
    t = -np.log(1.0 - u) * mean
    f = t - np.floor(t)
    rows = np.flatnonzero((f < _CUT_MARGIN) | (f > 1 - _CUT_MARGIN) | ~np.isfinite(t))
    out = np.floor(np.where(np.isfinite(t), t, 0.0)).astype(np.int64)
    if len(rows):
        log = math.log
        out[rows] = [int(-log(1.0 - x) * mean) for x in u[rows].tolist()]
    return out


def with_edges(gen, edges, edge: bool, p: float = EDGE_P):
    """``gen`` with a share ``p`` of values taken from ``edges`` (when ``edge``): draw ``j + 1``
    decides (``chance(p)``), draw ``j + 2`` picks the edge, ``gen`` draws from ``j + 2`` on."""
    if not edge:
        return gen
    edges = list(edges)

    def g(st: Stream, k: int):
        if st.chance(p):
            return edges[st.below(len(edges))]
        return gen(st, k)
    g.edges, g.base, g.edge_p = edges, gen, p  # column_vector_generator builds the vectorised twin from them
    g.draws = getattr(gen, "draws", 8) + 2
    base_many = getattr(gen, "many", None)
    if base_many is not None:
        m = np.uint64(len(edges))

        def many(pre: np.ndarray, keys: np.ndarray, j: int) -> list:
            """``g`` on many rows (generators/values.py ``_replay``): draw ``j + 1`` decides,
            draw ``j + 2`` picks the edge, ``gen`` draws from ``j + 2`` on."""
            e = (unit_array(pre[:, j]) < p).tolist()
            ei = (pre[:, j + 1] % m).tolist() if len(edges) else [0] * len(pre)  # no edge: never drawn
            vals = base_many(pre, keys, j + 1)
            return [edges[i] if z else v for z, i, v in zip(e, ei, vals, strict=True)]
        g.many = many
    return g


# ------------------------------------------------------------------------------------
# SQL string literals (snapshot.sql, Rows_query text)
# ------------------------------------------------------------------------------------

_ESC = {"\\": "\\\\", "'": "\\'", "\0": "\\0", "\n": "\\n", "\r": "\\r", "\x1a": "\\Z"}
_ESC_TABLE = str.maketrans(_ESC)


def quote(s: str) -> str:
    return "'" + s.translate(_ESC_TABLE) + "'"
