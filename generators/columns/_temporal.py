"""Helpers shared by the ``date``, ``time``, ``datetime`` and ``timestamp`` generator families:
fractional seconds of ``fsp`` digits and seconds drawn back from the run's clock
(``start_time``), scalar and vectorised; their SQL literals (the canonical text quoted).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np

from binlogwriter.schema import Column
from generators.hashing import Stream, draw_array
from generators.truth import render_column, render_temporal

UTC = dt.UTC
TS_MAX = 2**31 - 1
ORD_1970 = dt.date(1970, 1, 1).toordinal()


def frac(st: Stream, fsp: int) -> int:
    if not fsp:
        return 0
    return st.below(10 ** fsp) * 10 ** (6 - fsp)


def max_frac(fsp: int) -> int:
    return (10 ** fsp - 1) * 10 ** (6 - fsp) if fsp else 0


SPAN = 3 * 365 * 86400  # DATETIME / TIMESTAMP values: up to three years before the run's clock


def frac_vector(fsp: int):
    """Vectorised twin of :func:`_frac` (draw ``j``), ``fn(h, j)``."""
    def frac_vec(h, j):
        if not fsp:
            return 0
        return (draw_array(h, j) % np.uint64(10 ** fsp)).astype(np.int64) * 10 ** (6 - fsp)
    return frac_vec


def secs_vector(start_time: int, span: int = SPAN):
    """Vectorised ``start_time - st.below(span)`` (draw ``j + 1``), ``fn(h, j)``."""
    def secs_vec(h, j):
        return start_time - (draw_array(h, j + 1) % np.uint64(span)).astype(np.int64)
    return secs_vec


def sql_literal(col: Column, v: Any, flavor: str) -> str:
    """The canonical text quoted (the session time zone of snapshot.sql is '+00:00')."""
    return "'" + render_temporal(col, v) + "'"


def sql_literals(col: Column, values: Any, flavor: str) -> list[str]:
    """:func:`sql_literal` of many values (None: ``NULL``): the canonical texts of the column
    (``render_column``: from the arrays where it can), quoted."""
    return ["NULL" if c is None else "'" + c + "'" for c in render_column(col, flavor, values)]
