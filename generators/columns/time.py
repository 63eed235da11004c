"""Generator side of the ``time`` family (TIME).

TIME values: +-48 hours with fsp digits (a tenth negative); edges are +-838:59:59.

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
from generators.columns._common import START_TIME, with_edges
from generators.columns._temporal import (  # literals: the canonical text quoted
    frac,
    frac_vector,
    max_frac,
    sql_literal,
    sql_literals,
)
from generators.columns._vec import twin_of
from generators.hashing import Stream, draw_array, unit_array

__all__ = ["FAMILY", "SQL_TYPES", "generator", "vector_generator", "key_generator", "key_capacity",
           "key_vector_generator", "coerce", "sql_literal", "sql_literals"]

FAMILY = "time"
SQL_TYPES = ("TIME",)


def generator(col: Column, table: str, flavor: str, *, edge: bool = False,
              start_time: int = START_TIME, charset_stress: float = 0.0) -> Callable[[Stream, int], Any]:
    """The default generator of a column from its type and name: ``fn(stream, key) -> value``."""
    fsp = col.fsp or 0
    frac_vec = frac_vector(fsp)

    def gen(st, k):
        us = st.below(48 * 3600) * 1_000_000 + frac(st, fsp)
        return dt.timedelta(microseconds=-us if st.chance(0.1) else us)

    def tvec(h, j):
        us = (draw_array(h, j + 1) % np.uint64(48 * 3600)).astype(np.int64) * 1_000_000 + frac_vec(h, j + 2)
        neg = unit_array(draw_array(h, j + (3 if fsp else 2))) < 0.1
        return "time", np.where(neg, -us, us), None
    gen.vec = tvec
    edges = [dt.timedelta(hours=838, minutes=59, seconds=59),
             -dt.timedelta(hours=838, minutes=59, seconds=59), dt.timedelta(0)]
    if fsp:
        edges.append(-dt.timedelta(microseconds=10 ** (6 - fsp)))
        edges.append(-dt.timedelta(hours=15, minutes=4, seconds=5, microseconds=max_frac(fsp)))
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
    return lambda k: dt.timedelta(seconds=k)


key_vector_generator = None  # temporal keys are rare: rows.py takes the scalar key_generator


def coerce(col: Column, v: Any, where: str) -> Any:
    s = str(v)
    neg = s.startswith("-")
    hh, mm, ss = s.lstrip("-").split(":")
    us = round((int(hh) * 3600 + int(mm) * 60 + float(ss)) * 1_000_000)
    return dt.timedelta(microseconds=-us if neg else us)
