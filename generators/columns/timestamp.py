"""Generator side of the ``timestamp`` family (TIMESTAMP).

TIMESTAMP values (aware, UTC): up to three years before the run's clock, kept
inside 1970-01-01 00:00:01 .. 2038-01-19 03:14:07.

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
from binlogwriter.values import MysqlDateTime
from generators.columns._common import START_TIME, with_edges
from generators.columns._temporal import (  # literals: the canonical text quoted
    SPAN,
    TS_MAX,
    UTC,
    frac,
    frac_vector,
    max_frac,
    secs_vector,
    sql_literal,
    sql_literals,
)
from generators.columns._vec import twin_of
from generators.hashing import Stream

__all__ = ["FAMILY", "SQL_TYPES", "generator", "vector_generator", "key_generator", "key_capacity",
           "key_vector_generator", "coerce", "sql_literal", "sql_literals"]

FAMILY = "timestamp"
SQL_TYPES = ("TIMESTAMP",)


def generator(col: Column, table: str, flavor: str, *, edge: bool = False,
              start_time: int = START_TIME, charset_stress: float = 0.0) -> Callable[[Stream, int], Any]:
    """The default generator of a column from its type and name: ``fn(stream, key) -> value``."""
    fsp = col.fsp or 0
    span = SPAN
    frac_vec, secs_vec = frac_vector(fsp), secs_vector(start_time)

    def gen(st, k):
        sec = max(1, min(TS_MAX, start_time - st.below(span)))
        return dt.datetime.fromtimestamp(sec, UTC).replace(microsecond=frac(st, fsp))
    gen.vec = lambda h, j: ("ts", np.clip(secs_vec(h, j), 1, TS_MAX) * 1_000_000 + frac_vec(h, j + 2), None)
    edges = [dt.datetime.fromtimestamp(1, UTC),
             dt.datetime.fromtimestamp(TS_MAX, UTC).replace(microsecond=max_frac(fsp)),
             MysqlDateTime(0, 0, 0, 0, 0, 0, 0)]
    return with_edges(gen, edges, edge)


def vector_generator(col: Column, table: str, flavor: str, *, edge: bool = False,
                     start_time: int = START_TIME):
    """The numpy twin of :func:`generator`: ``fn(h, j) -> (kind, data, extra)``, or None when
    the scalar generator has none (column_vector_generator then replays it on numpy draws)."""
    return twin_of(generator(col, table, flavor, edge=edge, start_time=start_time))


def key_capacity(col: Column, flavor: str, prefix: int | None = None) -> int:
    """How many distinct keys :func:`key_generator` can give this column."""
    return 2_000_000_000


def key_generator(col: Column, flavor: str, table: str, primary: bool) -> Callable[[int], Any]:
    """``fn(key) -> value``: a time counted from 2000-01-01 (or 0) in the key's units."""
    return lambda k: dt.datetime.fromtimestamp(946684800 + k, UTC)


key_vector_generator = None  # temporal keys are rare: rows.py takes the scalar key_generator


def coerce(col: Column, v: Any, where: str) -> Any:
    d = dt.datetime.fromisoformat(str(v).replace("Z", "+00:00"))
    return d.replace(tzinfo=UTC) if d.tzinfo is None else d.astimezone(UTC)
