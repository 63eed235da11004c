"""Generator side of the ``enum_set`` family (ENUM SET).

ENUM members with geometric-ish weights (the first members are the common ones); SET
values from the bits of one draw; edges are the first and last member, '' and the empty
and full sets.

Faces (generators/columns/__init__.py, docs/adding-a-type.md "Generator side"):
``generator`` (scalar, ``fn(stream, key) -> value``), ``vector_generator`` (its numpy twin),
``key_generator`` / ``key_capacity`` / ``key_vector_generator`` (values derived from the key
alone, unique below the capacity), ``coerce`` (a spec-file literal as the column's Python
type) and ``sql_literal`` (the value as SQL for snapshot.sql and Rows_query text).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress
from typing import Any

import numpy as np

from binlogwriter.errors import ValueEncodeError
from binlogwriter.schema import Column
from binlogwriter.values.column_array import ColumnArray
from generators.columns._common import START_TIME, exp_ints, quote, with_edges
from generators.columns._vec import twin_of
from generators.hashing import Stream, draw_array, unit_array
from generators.truth import column_renderer

__all__ = ["FAMILY", "SQL_TYPES", "generator", "vector_generator", "key_generator", "key_capacity",
           "key_vector_generator", "coerce", "sql_literal", "sql_literals"]

FAMILY = "enum_set"
SQL_TYPES = ("ENUM", "SET")


def _enum_gen(col: Column, edge: bool):
    members = col.members
    n = len(members)
    if col.type == "ENUM":
        def gen(st, k):
            # geometric-ish weights: the first members are the common ones (statuses)
            i = min(n - 1, int(st.exp(max(1.0, n / 3))))
            return members[i]
        mean = max(1.0, n / 3)
        pool_t = tuple(members)  # one pool object: encoders keep its encoded members by it
        gen.vec = lambda h, j: ("pool", np.minimum(n - 1, exp_ints(unit_array(draw_array(h, j + 1)), mean)),
                                pool_t)
        return with_edges(gen, [members[0], members[-1], ""], edge)

    def sgen(st, k):
        bits = st.next()
        return frozenset(m for i, m in enumerate(members) if (bits >> (i % 64)) & 1 and (i < 64))
    if n <= _SET_POOL_BITS:
        # a SET of n members reads bits 0..n-1 of its draw: a pick among the 2**n sets, each
        # built by sgen's own rule (one draw, ``bits & (2**n - 1)`` its index)
        sets = tuple(sgen(_Bits(b), None) for b in range(1 << n))
        mask = np.uint64((1 << n) - 1)
        sgen.vec = lambda h, j: ("pool", (draw_array(h, j + 1) & mask).astype(np.int64), sets)
    else:
        sgen.vec = _wide_set_vec(tuple(members))
    return with_edges(sgen, [frozenset(), frozenset(members)], edge)


_SET_POOL_BITS = 10
"""SET columns of up to this many members draw their values as a pool of every subset (2**n
frozensets, built once per column), vectorised and encoded once per subset."""


def _wide_set_vec(members: tuple):
    """The twin of ``sgen`` for a SET of more than ``_SET_POOL_BITS`` members (up to 64): bit
    ``i`` of the draw (little-endian bit order of its 8 bytes) holds member ``i``; each
    row's set is built from its row of bits by one ``compress`` (a list of frozensets)."""
    n = len(members)
    if n > 64:
        return None

    def vec(h: np.ndarray, j: int):
        d = draw_array(h, j + 1).astype("<u8", copy=False)
        bits = np.unpackbits(d.view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")[:, :n]
        return "list", [frozenset(compress(members, r)) for r in bits.tolist()], None
    return vec


class _Bits:
    """A stream whose next draw is ``bits`` (builds the SET pool through ``sgen`` itself)."""

    __slots__ = ("bits",)

    def __init__(self, bits: int) -> None:
        self.bits = bits

    def next(self) -> int:
        return self.bits


def generator(col: Column, table: str, flavor: str, *, edge: bool = False,
              start_time: int = START_TIME, charset_stress: float = 0.0) -> Callable[[Stream, int], Any]:
    """The default generator of a column from its type and name: ``fn(stream, key) -> value``."""
    return _enum_gen(col, edge)


def vector_generator(col: Column, table: str, flavor: str, *, edge: bool = False,
                     start_time: int = START_TIME):
    """The numpy twin of :func:`generator`: ``fn(h, j) -> (kind, data, extra)``, or None when
    the scalar generator has none (column_vector_generator then replays it on numpy draws)."""
    return twin_of(generator(col, table, flavor, edge=edge, start_time=start_time))


def key_capacity(col: Column, flavor: str, prefix: int | None = None) -> int:
    """How many distinct keys :func:`key_generator` can give this column."""
    if col.type == "ENUM":
        return len(col.members)
    return 1 << min(len(col.members), 62)


def key_generator(col: Column, flavor: str, table: str, primary: bool) -> Callable[[int], Any]:
    """``fn(key) -> value``: the key-th member (ENUM), the set of the key's bits (SET)."""
    t = col.type
    if t == "ENUM":
        def member(k: int) -> str:
            if k >= len(col.members):
                raise ValueEncodeError(f"ENUM key space holds {len(col.members)} values; key number {k + 1} "
                                       "does not fit (fewer --initial-rows or a wider key column)",
                                       table=table, column=col.name)
            return col.members[k]
        return member
    if t == "SET":
        return lambda k: frozenset(m for i, m in enumerate(col.members) if (k >> i) & 1)


key_vector_generator = None  # ENUM/SET keys are rare: rows.py takes the scalar key_generator


def coerce(col: Column, v: Any, where: str) -> Any:
    if col.type == "SET":
        return frozenset(v if isinstance(v, list | tuple) else str(v).split(",")) - {""}
    return str(v)


def sql_literal(col: Column, v: Any, flavor: str) -> str:
    if col.type == "SET":
        return quote(column_renderer(col, flavor)(v))
    return quote(str(v))


def sql_literals(col: Column, values: Any, flavor: str) -> list[str] | None:
    """:func:`sql_literal` of many values (None: ``NULL``) of a SET, its canonical form made by
    one renderer; None for an ENUM (value by value: ``quote(str(v))`` is one call)."""
    if col.type != "SET":
        return None
    fn = column_renderer(col, flavor)
    return ["NULL" if v is None else quote(fn(v)) for v in (values.tolist() if isinstance(values, ColumnArray) else values)]
