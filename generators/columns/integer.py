"""Generator side of the ``integer`` family (TINYINT SMALLINT MEDIUMINT INT BIGINT).

Integers in the column's range: uniform in 0..1,000,000 by default (the whole range, every
bit length alike, for ``--schema`` runs), log-normal cents for money-like names
(price, amount, total, …), small counts for qty/stock, 18-90 for ``age``; alltypes' edge values are
the range ends, 0, 1 and -1 (``--edge-values``: generators/edge_values.py). BIT and YEAR share
:func:`int_range`.

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
from binlogwriter.values.row import ColumnArray
from generators.columns._common import START_TIME, lognormal_cut, lognormal_price, with_edges
from generators.columns._vec import SAFE, between_vec, int_twin, twin_of
from generators.hashing import Stream, draw_array, unit_array
from generators.spec import ColumnGen

__all__ = ["FAMILY", "SQL_TYPES", "generator", "vector_generator", "key_generator", "key_capacity",
           "key_vector_generator", "coerce", "sql_literal", "sql_literals", "full_range_generator"]

FAMILY = "integer"
SQL_TYPES = ("TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT")

Vec = ColumnArray
INT_BITS = {"TINYINT": 8, "SMALLINT": 16, "MEDIUMINT": 24, "INT": 32, "BIGINT": 64}


def int_range(col: Column) -> tuple[int, int]:
    """(min, max) of an integer / YEAR / BIT column."""
    if col.type in INT_BITS:
        b = INT_BITS[col.type]
        return (0, (1 << b) - 1) if col.unsigned else (-(1 << (b - 1)), (1 << (b - 1)) - 1)
    if col.type == "BIT":
        return (0, (1 << (col.length or 1)) - 1)
    if col.type == "YEAR":
        return (1901, 2155)
    raise ValueError(col.type)


def _wide_int(lo: int, hi: int) -> Callable[[Stream, int], Any]:
    """Integers over the whole range ``lo..hi`` of an integer type (values.md §1: TINYINT 8,
    SMALLINT 16, MEDIUMINT 24, INT 32, BIGINT 64 bits, signed two's complement or unsigned),
    every magnitude as likely as any other: draw 1 picks a bit length ``m`` in
    ``0..hi.bit_length()`` (its bit 32 the sign when ``lo < 0``), draw 2 gives the ``m`` top
    bits: ``v`` in ``0..2^m - 1``, a negative value being ``-v - 1``. So 0, 1, 2^31 - 1 and
    -2^63 all come up, not only 19-digit numbers."""
    nm = hi.bit_length() + 1
    signed = lo < 0

    def gen(st: Stream, k: int) -> int:
        d = st.next()
        m = d % nm
        v = st.next() >> (64 - m) if m else 0
        return -v - 1 if signed and (d >> 32) & 1 else v
    gen.draws = 2

    def vec(h, j):
        d = draw_array(h, j + 1)
        m = d % np.uint64(nm)
        sh = np.uint64(64) - np.maximum(m, np.uint64(1))
        v = np.where(m == 0, np.uint64(0), draw_array(h, j + 2) >> sh)
        if not signed:
            if hi >= 1 << 63:  # BIGINT UNSIGNED: above int64, Python ints
                return "list", v.tolist(), None
            return "int", v.astype(np.int64), None
        x = v.astype(np.int64)  # v < 2^63 when signed
        return "int", np.where((d >> np.uint64(32)) & np.uint64(1) == 1, -x - 1, x), None
    gen.vec = vec
    return gen


def _int_gen(col: Column, name: str, edge: bool, full_range: bool = False) -> Callable[[Stream, int], Any]:
    lo, hi = int_range(col)
    a, b = max(lo, 0), min(hi, 1_000_000)
    if any(w in name for w in ("price", "amount", "total", "cost", "balance")):
        def gen(st, k):
            return min(hi, max(a, int(lognormal_price(st) * 100)))
        if hi < 1 << 63:
            def pvec(h, j):
                cents = np.floor(lognormal_cut(h, j, 0.01, False) * 100).astype(np.int64)  # int() of a positive
                return "int", np.minimum(hi, np.maximum(a, cents)), None
            gen.vec = pvec
    elif any(w in name for w in ("qty", "quantity", "stock", "count")):
        top = min(hi, 500)

        def gen(st, k):
            return st.between(a, top)
        gen.vec = int_twin(between_vec(a, top))
    elif name == "age":
        def gen(st, k):
            return st.between(max(a, min(18, hi)), min(hi, 90))
        gen.vec = int_twin(between_vec(max(a, min(18, hi)), min(hi, 90)))
    elif full_range:
        gen = _wide_int(lo, hi)
    else:
        def gen(st, k):
            return st.between(a, b)
        gen.vec = int_twin(between_vec(a, b))
    edges = sorted({lo, hi, 0, 1} | ({-1} if lo < 0 else set()))
    return with_edges(gen, edges, edge)


def uniform_int_vec(col: Column, cg: ColumnGen):
    lo, hi = cg.param("min", 0), cg.param("max", 1000)
    if cg.param("dist", "uniform") != "uniform" or not all(isinstance(x, int) and not isinstance(x, bool)
                                                             and abs(x) < SAFE for x in (lo, hi)) or lo > hi:
        return None
    span = float(hi - lo)
    rlo, rhi = int_range(col) if col.type in INT_BITS else (lo, hi)
    if lo < rlo or hi > rhi:
        return None  # the scalar path raises (coerce does not range-check; the codec does)

    def gen(h, j):
        x = lo + unit_array(draw_array(h, j + 1)) * span
        return np.floor(np.minimum(hi, np.maximum(lo, x))).astype(np.int64)
    return gen


def generator(col: Column, table: str, flavor: str, *, edge: bool = False,
              start_time: int = START_TIME, charset_stress: float = 0.0) -> Callable[[Stream, int], Any]:
    """The default generator of a column from its type and name: ``fn(stream, key) -> value``
    (0..1,000,000 for a column with no telling name: the built-in workloads' values)."""
    return _int_gen(col, col.name.lower(), edge)


def full_range_generator(col: Column) -> Callable[[Stream, int], Any]:
    """:func:`generator` of a ``--schema`` run (generators/values.py ``type_generator``): a
    column with no telling name spans its type's whole range (:func:`_wide_int`)."""
    return _int_gen(col, col.name.lower(), False, True)


def vector_generator(col: Column, table: str, flavor: str, *, edge: bool = False,
                     start_time: int = START_TIME):
    """The numpy twin of :func:`generator`: ``fn(h, j) -> (kind, data, extra)``, or None when
    the scalar generator has none (column_vector_generator then replays it on numpy draws)."""
    return twin_of(generator(col, table, flavor, edge=edge, start_time=start_time))


def key_capacity(col: Column, flavor: str, prefix: int | None = None) -> int:
    """How many distinct keys :func:`key_generator` can give this column."""
    lo, hi = int_range(col)
    return hi - max(lo, 0)


def key_generator(col: Column, flavor: str, table: str, primary: bool) -> Callable[[int], Any]:
    """``fn(key) -> value``, injective in ``key`` below :func:`key_capacity`: ``key + 1`` for a
    primary key, a bijective scramble inside the range for other keys."""
    lo, hi = int_range(col)
    if primary:
        return lambda k: k + 1
    span = hi - max(lo, 0)
    mult = 0x9E3779B97F4A7C15 | 1
    base = max(lo, 0) + 1
    if span & (span + 1) == 0 and span > 1:  # 2^b - 1: scramble inside the range
        # k -> (k * mult) mod 2^b is a bijection onto 0..span; keys below span miss exactly
        # one residue (span's own), which takes the place of span (base + span is past hi)
        spare = (span * mult) & span
        return lambda k: base + (x if (x := (k * mult) & span) != span else spare)
    return lambda k: base + k


def key_vector_generator(col: Column, primary: bool) -> Callable[[np.ndarray], Vec] | None:
    """:func:`key_generator` for many keys at once, or None."""
    lo, hi = int_range(col)
    if primary:
        return lambda k: Vec("int", k.astype(np.int64) + 1)
    span = hi - max(lo, 0)
    base = max(lo, 0) + 1
    if span & (span + 1) == 0 and span > 1:
        mult = np.uint64(0x9E3779B97F4A7C15 | 1)
        spn = np.uint64(span)
        if base + span >= 1 << 63:
            return None
        spare = np.uint64((span * int(mult)) & span)

        def scramble(k: np.ndarray) -> Vec:
            x = (k.astype(np.uint64) * mult) & spn
            return Vec("int", base + np.where(x == spn, spare, x).astype(np.int64))

        return scramble
    return lambda k: Vec("int", base + k.astype(np.int64))


def coerce(col: Column, v: Any, where: str) -> Any:
    return int(v)


def sql_literal(col: Column, v: Any, flavor: str) -> str:
    return str(int(v))


sql_literals = None  # value by value: ``str(int(v))`` is one cheap call per value
