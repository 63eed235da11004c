"""Canonical DECIMAL / DATE / DATETIME / TIMESTAMP texts made typed by one Arrow cast
(generators/arrow_typed.py ``cast_texts``, used by ``_typed_columns`` for
``truth/final/parquet`` and the merged change images) give what the value-by-value converter
gives (``typed_converter``: ``Decimal`` / Python's calendar, a text for what is not a
calendar value): same array, same texts. Drawn: values rendered by the columns' own truth
renderers from Python values (every fsp, years 1 and 9999, leap days, negative and zero
decimals at precision 1-65), the server's zero date and dates with zero parts, year 0000,
NULLs, and texts a canonical renderer never writes (``T``, a zone, a date alone, seven
fraction digits) that the cast must leave to the converter."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.schema import parse_tables
from binlogwriter.values import MysqlDate, MysqlDateTime
from generators.changes_arrow import column_plan, py_array, typed_columns, typed_converter
from generators.truth import column_renderer

_ODD = ["2024-01-02T03:04:05", "2024-01-02 03:04:05Z", "2024-01-02", "2024-01-02 03:04:05.1234567",
        "0000-01-01 00:00:00", "2024-02-30 00:00:00", "2024-00-00 00:00:00", "0000-00-00 00:00:00.000"]


@st.composite
def _case(draw: Any) -> tuple[str, list]:
    kind = draw(st.sampled_from(["DECIMAL", "DATE", "DATETIME", "TIMESTAMP"]))
    if kind == "DECIMAL":
        p = draw(st.integers(1, 65))
        s = draw(st.integers(0, min(p, 30)))
        sql = f"DECIMAL({p},{s})"
        digits = st.integers(-(10 ** min(p, 30) - 1), 10 ** min(p, 30) - 1)
        pyvals = st.builds(lambda u, e: Decimal(u).scaleb(-e), digits, st.integers(0, s + 1))
    elif kind == "DATE":
        sql = "DATE"
        pyvals = st.one_of(st.dates(), st.builds(MysqlDate, st.sampled_from([0, 2024]), st.integers(0, 12),
                                                 st.integers(0, 28)))
    else:
        sql = f"{kind}({draw(st.integers(0, 6))})"
        tz = dt.UTC if kind == "TIMESTAMP" else None
        pyvals = st.one_of(st.datetimes(timezones=st.just(tz)) if tz else st.datetimes(),
                           st.builds(MysqlDateTime, st.sampled_from([0, 2024]), st.integers(0, 12),
                                     st.integers(0, 28), st.just(0), st.just(0), st.just(0), st.just(0)))
    col = parse_tables(f"CREATE TABLE t (c {sql} NULL)", "db", "mysql80")[0].columns[0]
    render = column_renderer(col, "mysql80")
    vals = [None if v is None else render(v) for v in draw(st.lists(st.one_of(st.none(), pyvals), max_size=30))]
    if kind != "DECIMAL" and draw(st.integers(0, 3)) == 0:
        vals.append(draw(st.sampled_from(_ODD)))
    return sql, vals


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=_case())
def test_one_cast_gives_the_value_by_value_conversion(case: tuple[str, list]) -> None:
    sql, vals = case
    col = parse_tables(f"CREATE TABLE t (c {sql} NULL)", "db", "mysql80")[0].columns[0]
    typ, conv = typed_converter(col, "mysql80")
    pairs = [(None, None) if v is None else conv(v) for v in vals]
    try:
        want = py_array([p[0] for p in pairs], typ)
    except (ValueError, ArithmeticError):  # pyarrow refuses what the type cannot hold; so must the column
        want = None
    want_texts = [None if t is None else [("c", t)] for _, t in pairs]
    try:
        arrays, texts = typed_columns([column_plan(col, "mysql80")], ["c"], [[v] for v in vals])
    except (ValueError, ArithmeticError):
        assert want is None
        return
    assert want is not None
    assert arrays[0].type == want.type
    assert arrays[0].equals(want), (vals[:4], arrays[0].to_pylist()[:4], want.to_pylist()[:4])
    assert texts == want_texts
