"""Generator side of the ``year`` family (YEAR).

YEAR values: uniform in 1990-2030; edges 1901, 2155, 0 (the zero year) and 2000.

Faces (generators/columns/__init__.py, docs/adding-a-type.md "Generator side"):
``generator`` (scalar, ``fn(stream, key) -> value``), ``vector_generator`` (its numpy twin),
``key_generator`` / ``key_capacity`` / ``key_vector_generator`` (values derived from the key
alone, unique below the capacity), ``coerce`` (a spec-file literal as the column's Python
type) and ``sql_literal`` (the value as SQL for snapshot.sql and Rows_query text).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from binlogwriter.schema import Column
from generators.columns._common import START_TIME, with_edges
from generators.columns._vec import between_vec, int_twin, twin_of
from generators.columns.bit import (  # keys and literals of an integer range: the same as BIT's
    coerce,
    key_capacity,
    key_generator,
    key_vector_generator,
    sql_literal,
)
from generators.hashing import Stream

__all__ = ["FAMILY", "SQL_TYPES", "generator", "vector_generator", "key_generator", "key_capacity",
           "key_vector_generator", "coerce", "sql_literal", "sql_literals"]

FAMILY = "year"
SQL_TYPES = ("YEAR",)



def generator(col: Column, table: str, flavor: str, *, edge: bool = False,
              start_time: int = START_TIME, charset_stress: float = 0.0) -> Callable[[Stream, int], Any]:
    """The default generator of a column from its type and name: ``fn(stream, key) -> value``."""
    f = lambda st, k: st.between(1990, 2030)  # noqa: E731
    f.vec = int_twin(between_vec(1990, 2030))
    return with_edges(f, [1901, 2155, 0, 2000], edge)


def vector_generator(col: Column, table: str, flavor: str, *, edge: bool = False,
                     start_time: int = START_TIME):
    """The numpy twin of :func:`generator`: ``fn(h, j) -> (kind, data, extra)``, or None when
    the scalar generator has none (column_vector_generator then replays it on numpy draws)."""
    return twin_of(generator(col, table, flavor, edge=edge, start_time=start_time))


sql_literals = None  # value by value, as bit's: ``str(int(v))`` is one cheap call per value
