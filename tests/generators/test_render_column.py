"""Canonical values of a whole column from its arrays (generators/truth.py ``render_column``:
integers and DOUBLE as they are, DECIMAL digits from integer units, DATE / DATETIME /
TIMESTAMP from numpy's ISO text cut to the fsp) equal the column's truth renderer applied to
each Python value (``column_renderer``, the families' ``truth_renderer``): same values, same
types. Drawn with tests/generators/test_typed_units.py's columns (every fsp, precisions to
65, scales to 30, units coarser and finer than the scale, the types' limits, years 1 and
9999 and beyond, NULLs) plus integer and float columns."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.schema import parse_tables
from binlogwriter.values.row import ColumnArray
from generators.truth import column_renderer, render_column
from tests.generators.test_typed_units import column


@st.composite
def _numbers(draw: Any) -> tuple[str, ColumnArray]:
    n = draw(st.integers(1, 30))
    nulls = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=np.bool_) \
        if draw(st.booleans()) else None
    if draw(st.booleans()):
        vals = draw(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=n, max_size=n))
        return draw(st.sampled_from(["BIGINT", "INT", "TINYINT"])), ColumnArray("int", np.array(vals, np.int64), nulls)
    sql = draw(st.sampled_from(["DOUBLE", "FLOAT"]))
    vals = draw(st.lists(st.floats(allow_nan=False, width=32 if sql == "FLOAT" else 64), min_size=n, max_size=n))
    return sql, ColumnArray("float", np.array(vals, np.float64), nulls)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=st.one_of(column(), _numbers()), flavor=st.sampled_from(["mysql80", "mariadb1011"]))
def test_column_rendering_equals_the_value_renderer(case: tuple[str, ColumnArray], flavor: str) -> None:
    sql, values = case
    col = parse_tables(f"CREATE TABLE t (c {sql} NULL)", "db", flavor)[0].columns[0]
    fn = column_renderer(col, flavor)
    try:
        want = [None if v is None else fn(v) for v in values.tolist()]
    except (AttributeError, TypeError, ValueError):  # numpy's calendar past year 9999: no Python value
        return
    got = render_column(col, flavor, values)
    assert json.dumps(got) == json.dumps(want)
    assert [type(v) for v in got] == [type(v) for v in want]


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), flavor=st.sampled_from(["mysql80", "mariadb1011"]))
def test_json_document_columns_render_like_the_value_renderer(data: st.DataObject, flavor: str) -> None:
    """A JSON column of documents given as columns (objects, arrays; escapes, multibyte and
    line-separator text, NULL rows): what ``json_texts`` builds is the truth renderer's text
    of each Python document (as truth/final renders the column)."""
    from tests.generators.test_json_texts import json_documents

    n = data.draw(st.integers(1, 10), label="rows")
    docs = data.draw(json_documents(n), label="docs")
    nulls = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n), label="nulls"))
    values = ColumnArray("json", docs, nulls if nulls.any() else None)
    col = parse_tables("CREATE TABLE t (j JSON NULL)", "db", flavor)[0].columns[0]
    fn = column_renderer(col, flavor)
    want = [None if v is None else fn(v) for v in values.tolist()]
    got = render_column(col, flavor, values)
    assert got == want
    assert [type(v) for v in got] == [type(v) for v in want]
