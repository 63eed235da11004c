"""Generator side of the ``bit`` family (BIT).

BIT(n) values: uniform in 0 .. 2^n - 1; edges 0, all ones, 1 and the top bit.

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
from generators.columns._common import START_TIME, with_edges
from generators.columns._vec import between_vec, int_twin, twin_of
from generators.columns.integer import int_range
from generators.hashing import Stream, draw_array

__all__ = ["FAMILY", "SQL_TYPES", "generator", "vector_generator", "key_generator", "key_capacity",
           "key_vector_generator", "coerce", "sql_literal", "sql_literals"]

FAMILY = "bit"
SQL_TYPES = ("BIT",)

Vec = ColumnArray


def generator(col: Column, table: str, flavor: str, *, edge: bool = False,
              start_time: int = START_TIME, charset_stress: float = 0.0) -> Callable[[Stream, int], Any]:
    """The default generator of a column from its type and name: ``fn(stream, key) -> value``."""
    lo, hi = int_range(col)
    edges = [lo, hi, 1, 1 << ((col.length or 1) - 1)]
    f = lambda st, k: st.between(lo, hi)  # noqa: E731
    f.vec = int_twin(between_vec(lo, hi)) or _wide_bits_vec(hi)
    return with_edges(f, edges, edge)


def _wide_bits_vec(hi: int):
    """The twin of ``st.between(0, hi)`` for a BIT wider than :func:`between_vec` takes (53
    to 64 bits; ``hi + 1`` a power of two): ``next() % 2**n`` is the draw's low ``n`` bits —
    an int64 array up to 63 bits, Python ints (a list) at 64, where a value may not fit."""
    if hi & (hi + 1) or hi >= 1 << 64:
        return None
    if hi < 1 << 63:
        mask = np.uint64(hi)
        return lambda h, j: ("int", (draw_array(h, j + 1) & mask).view(np.int64), None)
    return lambda h, j: ("list", draw_array(h, j + 1).tolist(), None)


def vector_generator(col: Column, table: str, flavor: str, *, edge: bool = False,
                     start_time: int = START_TIME):
    """The numpy twin of :func:`generator`: ``fn(h, j) -> (kind, data, extra)``, or None when
    the scalar generator has none (column_vector_generator then replays it on numpy draws)."""
    return twin_of(generator(col, table, flavor, edge=edge, start_time=start_time))


def key_capacity(col: Column, flavor: str, prefix: int | None = None) -> int:
    """How many distinct keys :func:`key_generator` can give this column."""
    lo, hi = int_range(col)
    return hi - lo + 1


def key_generator(col: Column, flavor: str, table: str, primary: bool) -> Callable[[int], Any]:
    """``fn(key) -> value``: the range's low end plus the key."""
    lo = int_range(col)[0]
    return lambda k: lo + k


def key_vector_generator(col: Column, primary: bool) -> Callable[[np.ndarray], Vec] | None:
    """:func:`key_generator` for many keys at once."""
    lo = int_range(col)[0]
    return lambda k: Vec("int", lo + k.astype(np.int64))


def coerce(col: Column, v: Any, where: str) -> Any:
    return int(v)


def sql_literal(col: Column, v: Any, flavor: str) -> str:
    return str(int(v))


sql_literals = None  # value by value: ``str(int(v))`` is one cheap call per value
