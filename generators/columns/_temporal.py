"""Temporal values shared by the ``date``, ``time``, ``datetime`` and ``timestamp`` families:
times drawn back from the run's clock (``start_time``) over three years (ten for DATE),
with ``fsp`` fraction digits; edges are each type's extremes, Feb 29 and the zero dates.
"""

from __future__ import annotations

import datetime as dt

import numpy as np

from binlogwriter.schema import Column
from binlogwriter.values import MysqlDate, MysqlDateTime
from generators.columns._common import _with_edges
from generators.hashing import Stream, draw_array, unit_array

_UTC = dt.UTC
_TS_MAX = 2**31 - 1
_ORD_1970 = dt.date(1970, 1, 1).toordinal()


def _frac(st: Stream, fsp: int) -> int:
    if not fsp:
        return 0
    return st.below(10 ** fsp) * 10 ** (6 - fsp)


def _max_frac(fsp: int) -> int:
    return (10 ** fsp - 1) * 10 ** (6 - fsp) if fsp else 0


def _temporal_gen(col: Column, name: str, edge: bool, start_time: int):
    t = col.type
    fsp = col.fsp or 0
    span = 3 * 365 * 86400
    def frac_vec(h, j):
        if not fsp:
            return 0
        return (draw_array(h, j) % np.uint64(10 ** fsp)).astype(np.int64) * 10 ** (6 - fsp)

    def secs_vec(h, j):
        return start_time - (draw_array(h, j + 1) % np.uint64(span)).astype(np.int64)

    if t == "DATE":
        base = dt.datetime.fromtimestamp(start_time, _UTC).date().toordinal()

        def gen(st, k):
            return dt.date.fromordinal(base - st.below(3650))
        gen.vec = lambda h, j: ("date", base - _ORD_1970 - (draw_array(h, j + 1) % np.uint64(3650)).astype(np.int64),
                                None)
        edges = [dt.date(1000, 1, 1), dt.date(9999, 12, 31), dt.date(2024, 2, 29), MysqlDate(0, 0, 0)]
        return _with_edges(gen, edges, edge)
    if t == "DATETIME":
        def gen(st, k):
            sec = start_time - st.below(span)
            d = dt.datetime.fromtimestamp(sec, _UTC).replace(tzinfo=None)
            return d.replace(microsecond=_frac(st, fsp))
        gen.vec = lambda h, j: ("dt", secs_vec(h, j) * 1_000_000 + frac_vec(h, j + 2), None)
        edges = [dt.datetime(1000, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59, _max_frac(fsp)),
                 dt.datetime(2024, 2, 29, 12, 34, 56, _max_frac(fsp)), MysqlDateTime(0, 0, 0, 0, 0, 0, 0)]
        return _with_edges(gen, edges, edge)
    if t == "TIMESTAMP":
        def gen(st, k):
            sec = max(1, min(_TS_MAX, start_time - st.below(span)))
            return dt.datetime.fromtimestamp(sec, _UTC).replace(microsecond=_frac(st, fsp))
        gen.vec = lambda h, j: ("ts", np.clip(secs_vec(h, j), 1, _TS_MAX) * 1_000_000 + frac_vec(h, j + 2), None)
        edges = [dt.datetime.fromtimestamp(1, _UTC),
                 dt.datetime.fromtimestamp(_TS_MAX, _UTC).replace(microsecond=_max_frac(fsp)),
                 MysqlDateTime(0, 0, 0, 0, 0, 0, 0)]
        return _with_edges(gen, edges, edge)
    if t == "TIME":
        def gen(st, k):
            us = st.below(48 * 3600) * 1_000_000 + _frac(st, fsp)
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
            edges.append(-dt.timedelta(hours=15, minutes=4, seconds=5, microseconds=_max_frac(fsp)))
        return _with_edges(gen, edges, edge)
    raise ValueError(t)

