"""Generator side of the ``floating`` family (FLOAT DOUBLE).

FLOAT values are n/16 with |n| < 2^20 (exact in float32, printed short by every server);
DOUBLE values are log-normal with 8 significant digits; edges are the extremes of the type.

Faces (generators/columns/__init__.py, docs/adding-a-type.md "Generator side"):
``generator`` (scalar, ``fn(stream, key) -> value``), ``vector_generator`` (its numpy twin),
``key_generator`` / ``key_capacity`` / ``key_vector_generator`` (values derived from the key
alone, unique below the capacity), ``coerce`` (a spec-file literal as the column's Python
type) and ``sql_literal`` (the value as SQL for snapshot.sql and Rows_query text).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from binlogwriter.schema import Column
from generators.columns._common import (
    START_TIME,
    lognormal_list,
    lognormal_np,
    lognormal_price,
    with_edges,
)
from generators.columns._vec import twin_of
from generators.hashing import Stream, draw_array, unit_array

__all__ = ["FAMILY", "SQL_TYPES", "generator", "vector_generator", "key_generator", "key_capacity",
           "key_vector_generator", "coerce", "sql_literal", "sql_literals"]

FAMILY = "floating"
SQL_TYPES = ("FLOAT", "DOUBLE")


_POW10 = np.array([float(10 ** i) for i in range(23)])  # exact doubles
_TIE_MARGIN = 1e-4
"""How far (in units of the 8th significant digit) from a rounding tie, or from the next
power of ten, numpy's value must be for :func:`round_8g` to round it: numpy's ``exp`` /
``log`` / ``cos`` differ from ``math``'s by a few ulps (a relative 1e-14 at most, 1e-6 of a
unit here); rows closer are computed by the scalar formula."""


def round_8g(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``float(f"{x:.8g}")`` of positive finite doubles, as arrays: (values, rows left out).
    The 8 significant digits are ``k = rint(v * 10**p)`` (``p = 7 - floor(log10(v))``,
    10**7 <= k < 10**8) where that product is further than ``_TIE_MARGIN`` from a tie and
    from the digit range's ends; the value is then ``k / 10**p`` (or ``k * 10**-p``): both
    operands exact, IEEE division and product round correctly — the double nearest the
    8-digit decimal, what ``float`` of the formatted text gives. Rows out of those bounds
    (or with ``|p| > 22``) are left out (True in the mask) for the caller to format."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p = 7 - np.floor(np.log10(v)).astype(np.int64)
    ok = (np.abs(p) <= 22) & (v > 0) & np.isfinite(v)
    pc = np.where(ok, p, 0)
    scale = _POW10[np.abs(pc)]
    s = np.where(pc >= 0, v * scale, v / scale)
    k = np.rint(s)
    ok &= (s >= 1e7) & (s < 1e8 - 0.5 - _TIE_MARGIN) & (np.abs(np.abs(s - np.floor(s)) - 0.5) > _TIE_MARGIN)
    out = np.where(pc >= 0, k / scale, k * scale)
    return out, ~ok


def lognormal_8g(h: np.ndarray, j: int) -> np.ndarray:
    """``float(f"{_lognormal_price(st):.8g}")`` of ``Stream(h[i])`` from draw ``j + 1`` on
    (two draws): the log-normal by numpy's functions and :func:`round_8g`; the rows it leaves
    out (near a tie: numpy's functions are not ``math``'s to the last ulp) by the scalar
    formula (:func:`~generators.columns._common.lognormal_list`'s ``math`` functions)."""
    out, left = round_8g(lognormal_np(h, j))
    rows = np.flatnonzero(left)
    if len(rows):
        out[rows] = [float(f"{x:.8g}") for x in lognormal_list(h[rows], j)]
    return out


def _float_gen(col: Column, name: str, edge: bool):
    """FLOAT: n/16 with |n| < 2^20, exact in float32 and printed short by every server; DOUBLE:
    the log-normal of 8 significant digits. FLOAT(M,D) / DOUBLE(M,D): the same, kept to what
    the column holds as given (:func:`fixed_digits`)."""
    fixed = col.precision is not None and col.scale is not None
    ip, dp = fixed_digits(col) if fixed else (0, 0)
    if col.type == "FLOAT":
        if not fixed:
            edges = [0.0, 3.4028234663852886e38, 1.1754943508222875e-38, 1.0, 0.5]
            return _float32_gen(col, 16, 1 << 20, edges + ([-3.4028234663852886e38, -1.5] if not col.unsigned else []),
                                edge)
        den = 1 << dp  # n / 2^d: at most d decimals
        top = min(1 << 20, ((10 ** col.precision - 1) * den) // 10 ** col.scale + 1) if ip <= 15 else 1 << 20
        return _float32_gen(col, den, top, _fixed_edges(col, (top - 1) / den, 1 / den if top > 1 else 0.0), edge)
    if not fixed:
        edges = [0.0, 1.7976931348623157e308, 2.2250738585072014e-308, 0.1]
        return _double_gen(col, None, None, edges + ([-1.7976931348623157e308, -2.5] if not col.unsigned else []),
                           edge)
    p = float(10 ** dp)
    mod = 10 ** (ip + dp) if ip <= 15 else None  # k / 10^d, k below 10^(M-D+d)
    if mod is None:
        return _double_gen(col, p, mod, _fixed_edges(col, 1.7976931348623157e308, 1 / p), edge)
    scale = float(10 ** col.scale)
    edges = [stored_fixed(k, p, scale) for k in (0, mod - 1, 1) + ((1 - mod, -1) if not col.unsigned else ())]
    return _double_gen(col, p, mod, [e for i, e in enumerate(edges) if e not in edges[:i]], edge, scale)


_ROUNDS = 4
"""Times :func:`stored_fixed` applies the servers' rounding: a value it moves is moved once,
rarely twice, and then stays."""


def stored_fixed(k: int, p: float, scale: float) -> float:
    """The double a DOUBLE(M,D) column stores for the decimal ``k / p`` (``p`` = 10^d, the
    decimals generated; ``scale`` = 10^D): the servers round what they are given with
    ``floor(x) + rint((x - floor(x)) * 10^D) / 10^D`` (MySQL and MariaDB
    ``Field_real::truncate``), which is not always the double nearest to ``k / p`` (1.703 into
    DOUBLE(16,4) keeps one unit in the last place less). The value is that rounding applied
    until it gives the value back, so the row events and ``snapshot.sql``'s INSERT leave the
    same double in the table (a keyless table's UPDATE finds its row)."""
    q = int(p)
    x = float(k // q) + (k % q) / p
    for _ in range(_ROUNDS):
        whole = math.floor(x)
        y = whole + float(np.rint((x - whole) * scale)) / scale
        if y == x:
            break
        x = y
    return x


def _stored_fixed_many(k: np.ndarray, p: float, scale: float) -> np.ndarray:
    """:func:`stored_fixed` of many ``k`` (whole floats): floor division and modulo are exact,
    the quotient, the sum and each rounding round as the scalar's do (a value the rounding
    gives back stays where it is)."""
    x = np.floor_divide(k, p) + np.mod(k, p) / p
    for _ in range(_ROUNDS):
        whole = np.floor(x)
        x = whole + np.rint((x - whole) * scale) / scale
    return x


def _float32_gen(col: Column, den: int, top: int, edges: list[float], edge: bool):
    """``n / den`` with ``|n| < top`` (negative on a fifth of the draws of a signed column)."""
    def gen(st: Stream, k: int) -> float:
        n = st.below(top)
        if not col.unsigned and n and st.chance(0.2):
            n = -n
        return n / den

    def fvec(h, j):
        n = (draw_array(h, j + 1) % np.uint64(top)).astype(np.int64)
        if not col.unsigned:
            n = np.where((n != 0) & (unit_array(draw_array(h, j + 2)) < 0.2), -n, n)
        return "float", n / den, None
    gen.vec = fvec
    return with_edges(gen, edges, edge)


def _double_gen(col: Column, p: float | None, mod: int | None, edges: list[float], edge: bool,
                scale: float = 1.0):
    """The log-normal of 8 significant digits (negative on a fifth of the draws of a signed
    column); ``p`` (10^d): rounded to d decimals, ``k / p``, ``k`` modulo ``mod`` (when given:
    the double the column stores, :func:`stored_fixed` with ``scale`` = 10^D)."""
    def dgen(st: Stream, k: int) -> float:
        v = lognormal_price(st)
        neg = not col.unsigned and st.chance(0.2)
        v = float(f"{v:.8g}")
        if p is not None:
            n = round(v * p)
            if mod is not None:  # the double the column stores for n / p, with its sign
                n = n % mod
                return stored_fixed(-n if neg else n, p, scale)
            v = n / p
        return -v if neg else v  # the format and the rounding are sign-symmetric

    def dvec(h, j):
        out = lognormal_8g(h, j)
        neg = None if col.unsigned else unit_array(draw_array(h, j + 3)) < 0.2
        if p is not None:
            n = np.rint(out * p)
            if mod is not None:
                n = np.mod(n, float(mod))
                return "float", _stored_fixed_many(n if neg is None else np.where(neg, -n, n), p, scale), None
            out = n / p
        if neg is not None:
            out = np.where(neg, -out, out)
        return "float", out, None
    dgen.vec = dvec
    return with_edges(dgen, edges, edge)


def fixed_digits(col: Column) -> tuple[int, int]:
    """FLOAT(M,D) / DOUBLE(M,D) (MySQL's deprecated, still accepted, fixed-point display
    form; MariaDB's too): the column keeps ``D`` decimals and ``M - D`` integer digits — the
    server rounds a value it is given in SQL to ``D`` decimals and clips it to
    ±(10^M - 1) / 10^D. Returns (``M - D``, the decimals the generated values keep): ``D``,
    fewer when ``M`` passes 15 digits (the values stay exact integers over a power of ten,
    k / 10^d with k < 2^53, which the server's rounding gives back unchanged). FLOAT keeps
    at most 4 (its values are multiples of 2^-d, exact in float32, up to 1/16)."""
    ip = col.precision - col.scale
    dp = min(col.scale, max(0, 15 - ip))
    return ip, min(dp, 4) if col.type == "FLOAT" else dp


def _fixed_edges(col: Column, big: float, step: float) -> list[float]:
    """0, the largest magnitude, the smallest non-zero step, and their negatives (signed)."""
    edges = [0.0, big, step]
    if not col.unsigned:
        edges += [-big, -step]
    return [e for i, e in enumerate(edges) if e not in edges[:i]]


def generator(col: Column, table: str, flavor: str, *, edge: bool = False,
              start_time: int = START_TIME, charset_stress: float = 0.0) -> Callable[[Stream, int], Any]:
    """The default generator of a column from its type and name: ``fn(stream, key) -> value``."""
    return _float_gen(col, col.name.lower(), edge)


def vector_generator(col: Column, table: str, flavor: str, *, edge: bool = False,
                     start_time: int = START_TIME):
    """The numpy twin of :func:`generator`: ``fn(h, j) -> (kind, data, extra)``, or None when
    the scalar generator has none (column_vector_generator then replays it on numpy draws)."""
    return twin_of(generator(col, table, flavor, edge=edge, start_time=start_time))


def key_capacity(col: Column, flavor: str, prefix: int | None = None) -> int:
    """How many distinct keys :func:`key_generator` can give this column (exact integers)."""
    cap = 1 << 24 if col.type == "FLOAT" else 1 << 53
    ip = fixed_digits(col)[0] if col.precision is not None and col.scale is not None else None
    return min(cap, 10 ** ip - 1) if ip is not None and ip <= 15 else cap  # key + 1 within the integer digits


def key_generator(col: Column, flavor: str, table: str, primary: bool) -> Callable[[int], Any]:
    """``fn(key) -> value``: ``float(key + 1)``."""
    return lambda k: float(k + 1)


key_vector_generator = None  # float keys are rare: rows.py takes the scalar key_generator


def coerce(col: Column, v: Any, where: str) -> Any:
    return float(v)


def sql_literal(col: Column, v: Any, flavor: str) -> str:
    return repr(float(v))


sql_literals = None  # value by value: ``repr(float(v))`` is one cheap call per value
