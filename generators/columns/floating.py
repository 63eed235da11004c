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
           "key_vector_generator", "coerce", "sql_literal"]

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
    if col.type == "FLOAT":
        # n/16 with |n| < 2^20: exact in float32 and printed short by every server
        def gen(st: Stream, k: int) -> float:
            n = st.below(1 << 20)
            if not col.unsigned and n and st.chance(0.2):
                n = -n
            return n / 16

        def fvec(h, j):
            n = (draw_array(h, j + 1) % np.uint64(1 << 20)).astype(np.int64)
            if not col.unsigned:
                n = np.where((n != 0) & (unit_array(draw_array(h, j + 2)) < 0.2), -n, n)
            return "float", n / 16, None
        gen.vec = fvec
        edges = [0.0, 3.4028234663852886e38, 1.1754943508222875e-38, 1.0, 0.5]
        if not col.unsigned:
            edges += [-3.4028234663852886e38, -1.5]
        return with_edges(gen, edges, edge)

    def dgen(st: Stream, k: int) -> float:
        v = lognormal_price(st)
        if not col.unsigned and st.chance(0.2):
            v = -v
        return float(f"{v:.8g}")

    def dvec(h, j):
        out = lognormal_8g(h, j)
        if not col.unsigned:
            out = np.where(unit_array(draw_array(h, j + 3)) < 0.2, -out, out)  # the format is sign-symmetric
        return "float", out, None
    dgen.vec = dvec
    edges = [0.0, 1.7976931348623157e308, 2.2250738585072014e-308, 0.1]
    if not col.unsigned:
        edges += [-1.7976931348623157e308, -2.5]
    return with_edges(dgen, edges, edge)


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
    return 1 << 24 if col.type == "FLOAT" else 1 << 53


def key_generator(col: Column, flavor: str, table: str, primary: bool) -> Callable[[int], Any]:
    """``fn(key) -> value``: ``float(key + 1)``."""
    return lambda k: float(k + 1)


key_vector_generator = None  # float keys are rare: rows.py takes the scalar key_generator


def coerce(col: Column, v: Any, where: str) -> Any:
    return float(v)


def sql_literal(col: Column, v: Any, flavor: str) -> str:
    return repr(float(v))
