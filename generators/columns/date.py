"""Generator side of the ``date`` family (DATE).

DATE values: up to ten years before the run's clock.

Faces (generators/columns/__init__.py, docs/adding-a-type.md "Generator side"):
``generator`` (scalar, ``fn(stream, key) -> value``), ``vector_generator`` (its numpy twin),
``key_generator`` / ``key_capacity`` / ``key_vector_generator`` (values derived from the key
alone, unique below the capacity), ``coerce`` (a spec-file literal as the column's Python
type) and ``sql_literal`` (the value as SQL for snapshot.sql and Rows_query text).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import numpy as np

from binlogwriter.schema import Column
from binlogwriter.values import MysqlDate
from generators.columns._common import START_TIME, with_edges
from generators.columns._temporal import (  # literals: the canonical text quoted
    ORD_1970,
    UTC,
    sql_literal,
    sql_literals,
)
from generators.columns._vec import twin_of
from generators.hashing import Stream, draw_array

__all__ = ["FAMILY", "SQL_TYPES", "generator", "vector_generator", "key_generator", "key_capacity",
           "key_vector_generator", "coerce", "sql_literal", "sql_literals"]

FAMILY = "date"
SQL_TYPES = ("DATE",)


def generator(col: Column, table: str, flavor: str, *, edge: bool = False,
              start_time: int = START_TIME, charset_stress: float = 0.0) -> Callable[[Stream, int], Any]:
    """The default generator of a column from its type and name: ``fn(stream, key) -> value``."""
    base = dt.datetime.fromtimestamp(start_time, UTC).date().toordinal()

    def gen(st, k):
        return dt.date.fromordinal(base - st.below(3650))
    gen.vec = lambda h, j: ("date", base - ORD_1970 - (draw_array(h, j + 1) % np.uint64(3650)).astype(np.int64),
                            None)
    edges = [dt.date(1000, 1, 1), dt.date(9999, 12, 31), dt.date(2024, 2, 29), MysqlDate(0, 0, 0)]
    return with_edges(gen, edges, edge)


def vector_generator(col: Column, table: str, flavor: str, *, edge: bool = False,
                     start_time: int = START_TIME):
    """The numpy twin of :func:`generator`: ``fn(h, j) -> (kind, data, extra)``, or None when
    the scalar generator has none (column_vector_generator then replays it on numpy draws)."""
    return twin_of(generator(col, table, flavor, edge=edge, start_time=start_time))


def key_capacity(col: Column, flavor: str, prefix: int | None = None) -> int:
    """How many distinct keys :func:`key_generator` can give this column."""
    return 3_000_000


def key_generator(col: Column, flavor: str, table: str, primary: bool) -> Callable[[int], Any]:
    """``fn(key) -> value``: a time counted from 2000-01-01 (or 0) in the key's units."""
    base = dt.date(2000, 1, 1).toordinal()
    return lambda k: dt.date.fromordinal(base + k)


key_vector_generator = None  # temporal keys are rare: rows.py takes the scalar key_generator


def coerce(col: Column, v: Any, where: str) -> Any:
    return dt.date.fromisoformat(str(v))
