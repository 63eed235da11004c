"""Generator side of the ``decimal`` family (DECIMAL).

DECIMAL(p, s) values rounded to the scale and below the precision: log-normal amounts for
money-like names, uniform units otherwise (a fifth negative when signed); edges are the
largest value, 0 and one unit (and their negatives).

Faces (generators/columns/__init__.py, docs/adding-a-type.md "Generator side"):
``generator`` (scalar, ``fn(stream, key) -> value``), ``vector_generator`` (its numpy twin),
``key_generator`` / ``key_capacity`` / ``key_vector_generator`` (values derived from the key
alone, unique below the capacity), ``coerce`` (a spec-file literal as the column's Python
type) and ``sql_literal`` (the value as SQL for snapshot.sql and Rows_query text).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import numpy as np

from binlogwriter.schema import Column
from generators.columns._common import (
    CTX,
    START_TIME,
    lognormal_cut,
    lognormal_list,
    lognormal_price,
    quantize,
    with_edges,
)
from generators.columns._vec import twin_of
from generators.hashing import Stream, draw_array, unit_array
from generators.truth import column_renderer, render_column

__all__ = ["FAMILY", "SQL_TYPES", "generator", "vector_generator", "key_generator", "key_capacity",
           "key_vector_generator", "coerce", "sql_literal", "sql_literals"]

FAMILY = "decimal"
SQL_TYPES = ("DECIMAL",)


def _decimal_gen(col: Column, name: str, edge: bool):
    p, s = col.precision or 10, col.scale or 0
    unit = Decimal(1).scaleb(-s)
    maxv = CTX.subtract(CTX.power(Decimal(10), p - s), unit)
    maxmag = min(p - s, 6)
    neg_ok = not col.unsigned
    money = any(w in name for w in ("price", "amount", "total", "cost", "balance", "salary"))

    def gen(st: Stream, k: int) -> Decimal:
        if money:
            v = Decimal(repr(round(lognormal_price(st), 4)))
        else:
            units = st.below(10 ** (maxmag + s)) if maxmag + s > 0 else 0
            v = Decimal(units).scaleb(-s)
            if neg_ok and units and st.chance(0.2):
                v = v.copy_negate()
        v = quantize(v, s)
        if v > maxv:
            v = maxv
        return v
    if money and s <= 12:
        maxu_m = min(10 ** p - 1, (1 << 63) - 1)

        def dvec(h, j):
            # Decimal(repr(round(x, 4))) read as an int of 1/10^4 (its repr has at most 4
            # fraction digits), then quantized to the scale half-even as _q does
            a = round4_units(lognormal_cut(h, j, 1e-4, True))  # the 4-place rounding's ties by math
            if a is not None and (not len(a) or int(a.max()) < (1 << 62) // 10 ** max(0, s - 4)):
                if s >= 4:
                    units = a * 10 ** (s - 4)
                else:
                    d = 10 ** (4 - s)
                    q, rem = np.divmod(a, d)
                    units = q + ((2 * rem > d) | ((2 * rem == d) & (q % 2 == 1)))
                return "dec", np.minimum(units, maxu_m), s
            xs = lognormal_list(h, j)
            u4 = []
            for x in xs:
                r = repr(round(x, 4))
                ip, _, fp = r.partition(".")
                if len(fp) > 4 or not ip.isdigit() or not fp.isdigit():
                    v = Decimal(r).scaleb(4)  # exponent form or the like: the exact value
                    u4.append(int(v) if v == v.to_integral_value() else None)
                else:
                    u4.append(int(ip) * 10000 + int(fp.ljust(4, "0")))
            if None in u4 or max(u4, default=0) >= (1 << 62) // 10 ** max(0, s - 4):
                units = [int(min(quantize(Decimal(repr(round(x, 4))), s), maxv).scaleb(s)) for x in lognormal_list(h, j)]
                return "dec", np.array(units, dtype=np.int64), s
            a = np.array(u4, dtype=np.int64)
            if s >= 4:
                units = a * 10 ** (s - 4)
            else:
                d = 10 ** (4 - s)
                q, rem = np.divmod(a, d)
                units = q + ((2 * rem > d) | ((2 * rem == d) & (q % 2 == 1)))
            return "dec", np.minimum(units, maxu_m), s
        gen.vec = dvec
    elif not money and maxmag + s <= 18:
        top = 10 ** (maxmag + s)
        maxu = min(10 ** p - 1, (1 << 63) - 1)

        def dvec(h, j):
            if top > 1:
                units = (draw_array(h, j + 1) % np.uint64(top)).astype(np.int64)
            else:
                units = np.zeros(len(h), dtype=np.int64)
            if neg_ok:
                neg = (units != 0) & (unit_array(draw_array(h, j + 2)) < 0.2)
                units = np.where(neg, -units, units)
            return "dec", np.minimum(units, maxu), s
        gen.vec = dvec
    elif not money:
        gen.vec = _wide_units_vec(maxmag + s, s, neg_ok)
    edges = [maxv, Decimal(0), unit] + ([maxv.copy_negate(), unit.copy_negate()] if neg_ok else [])
    return with_edges(gen, [quantize(e, s) for e in edges], edge)


def _wide_units_vec(digits: int, s: int, neg_ok: bool):
    """The twin of the uniform DECIMAL generator beyond int64 units (``digits`` = magnitude +
    scale > 18): ``units = next() % 10**digits`` (the draw itself from 20 digits on: a draw is
    below 2**64), negated on draw ``j + 2`` as the scalar path does, each value then made by
    the scalar path's own Decimal operations (a list: the units need not fit int64). No value
    reaches the column's largest (``digits`` is at most the precision): no comparison."""
    top = 10 ** digits
    mod = np.uint64(top) if top < 1 << 64 else None

    def dvec(h, j):
        d = draw_array(h, j + 1)
        units = (d % mod if mod is not None else d).tolist()
        neg = (unit_array(draw_array(h, j + 2)) < 0.2).tolist() if neg_ok else [False] * len(units)
        out = []
        for u, z in zip(units, neg, strict=True):
            v = Decimal(u).scaleb(-s)
            if z and u:
                v = v.copy_negate()
            out.append(quantize(v, s))
        return "list", out, None
    return dvec


def round4_units(x: np.ndarray) -> np.ndarray | None:
    """``Decimal(repr(round(v, 4))).scaleb(4)`` as int64 for every ``v`` of ``x``, or None
    when numpy cannot tell it exactly for some value. ``round(v, 4)`` rounds the exact
    binary value half-even to 4 places and ``repr`` prints that decimal back (at most 15
    significant digits round-trip). ``rint(v * 1e4)`` gives the same integer unless
    ``v * 1e4`` (one rounding, error far below 1e-6 here) lies within 1e-6 of a half:
    those few are computed as the scalar path computes them. None (the caller's per-value
    path) for a non-finite value or ``|v| >= 1e11`` (past 15 digits)."""
    if not len(x):
        return np.zeros(0, dtype=np.int64)
    if not np.isfinite(x).all() or float(np.abs(x).max()) >= 1e11:
        return None
    f = x * 1e4
    out = np.rint(f).astype(np.int64)
    for i in np.flatnonzero(np.abs(f - np.floor(f) - 0.5) < 1e-6).tolist():  # near a half: as Python does it
        out[i] = int(Decimal(repr(round(float(x[i]), 4))).scaleb(4))
    return out


_TIE_ULPS = 64.0
"""How near a half-unit (in ulps of ``x * 10^s``) :func:`uniform_override_vec` leaves a row
to Python's ``Decimal(repr(x))``: ``repr`` is within half an ulp of ``x`` and the product
rounds once more, so beyond a few ulps both sides of the tie agree."""
_UNITS_LIMIT = float(1 << 52)


def units_half_even(x: np.ndarray, s: int) -> np.ndarray:
    """``int(Decimal(repr(v)).quantize(10^-s, ROUND_HALF_EVEN).scaleb(s))`` for every float
    ``v`` of ``x`` with ``|v * 10^s| < 2^52``: ``rint(v * 10^s)`` (half-even too), except rows
    whose product lies within ``_TIE_ULPS`` ulps of a half, which are done as Python does
    them (the shortest decimal of ``v`` decides on which side of the tie it falls)."""
    f = x * float(10 ** s)
    out = np.rint(f).astype(np.int64)
    frac = np.abs(f - np.floor(f) - 0.5)
    for i in np.flatnonzero(frac <= _TIE_ULPS * np.spacing(np.abs(f))).tolist():
        out[i] = int(quantize(Decimal(repr(float(x[i]))), s).scaleb(s))
    return out


def uniform_override_vec(col: Column, lo: Any, hi: Any):
    """Vectorised twin of a spec file's ``gen: decimal`` with ``dist: uniform``
    (generators/values.py ``override_generator``): ``min(hi, max(lo, lo + u * (hi - lo)))``
    from draw ``j + 1`` (the same two IEEE operations on the same floats), as Python makes
    it a Decimal (``Decimal(repr(x))`` quantized half-even to the scale, values.md §1) —
    ``fn(h, j) -> ("dec", units, scale)``. None (the scalar path, which raises where a
    value does not fit) when a value could exceed the precision or int64 units, or
    ``lo < 0`` (a negative value rounding to zero is ``-0.00``, which no unit array holds)."""
    p, s = col.precision or 10, col.scale or 0
    if lo < 0 or hi < lo or p > 18:
        return None
    top = float(max(abs(lo), abs(hi))) * float(10 ** s)
    if not top < _UNITS_LIMIT or top + 1 >= 10 ** p:
        return None
    span = hi - lo

    def vec(h, j):
        u = unit_array(draw_array(h, j + 1))
        x = np.minimum(float(hi), np.maximum(float(lo), lo + u * span))
        return "dec", units_half_even(x, s), s
    return vec


def override_vec(col: Column, cg: Any):
    """The numpy twin of a spec file's ``gen: decimal`` (a :class:`~generators.spec.ColumnGen`)
    for ``dist: uniform`` with numeric bounds (:func:`uniform_override_vec`), else None."""
    lo, hi = cg.param("min", 0), cg.param("max", 1000)
    if cg.param("dist", "uniform") != "uniform" or not all(
            isinstance(x, int | float) and not isinstance(x, bool) for x in (lo, hi)):
        return None
    return uniform_override_vec(col, lo, hi)


def generator(col: Column, table: str, flavor: str, *, edge: bool = False,
              start_time: int = START_TIME, charset_stress: float = 0.0) -> Callable[[Stream, int], Any]:
    """The default generator of a column from its type and name: ``fn(stream, key) -> value``."""
    return _decimal_gen(col, col.name.lower(), edge)


def vector_generator(col: Column, table: str, flavor: str, *, edge: bool = False,
                     start_time: int = START_TIME):
    """The numpy twin of :func:`generator`: ``fn(h, j) -> (kind, data, extra)``, or None when
    the scalar generator has none (column_vector_generator then replays it on numpy draws)."""
    return twin_of(generator(col, table, flavor, edge=edge, start_time=start_time))


def key_capacity(col: Column, flavor: str, prefix: int | None = None) -> int:
    """How many distinct keys :func:`key_generator` can give this column."""
    p, s = col.precision or 10, col.scale or 0
    return 10 ** min(p - s, 18) - 1 if p > s else 1  # key + 1 within the integer digits


def key_generator(col: Column, flavor: str, table: str, primary: bool) -> Callable[[int], Any]:
    """``fn(key) -> value``: ``key + 1`` at the column's scale."""
    s = col.scale or 0
    return lambda k: quantize(Decimal(k + 1), s)


key_vector_generator = None  # no numpy form of Decimal keys: rows.py takes the scalar key_generator


def coerce(col: Column, v: Any, where: str) -> Any:
    return quantize(Decimal(str(v)), col.scale or 0)


def sql_literal(col: Column, v: Any, flavor: str) -> str:
    """The canonical text (exactly ``scale`` digits), which is also a valid SQL number."""
    return column_renderer(col, flavor)(v)


def sql_literals(col: Column, values: Any, flavor: str) -> list[str]:
    """:func:`sql_literal` of many values (None: ``NULL``): the canonical texts
    (``render_column``: from the units where it can)."""
    return ["NULL" if c is None else c for c in render_column(col, flavor, values)]
