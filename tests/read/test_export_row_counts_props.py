"""export_model.skim_rows (rows of an event counted by skipping images by their null bitmap and
column sizes, compiled per rows plan) gives exactly what count_rows (the compiled row decoders
walking the images) gives: the same count for every event, and for a cut event the same
count or the same error. Tables over every type family (tests/read/test_export_columnar_props.py's
strategies: NULLs, edge values, multibyte text, absent columns, padded null bitmaps), and wide
tables of 60-1000 columns."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.read.arrowcols import column_layout
from binlogwriter.read.changes import RowsPlan, TableInfo
from binlogwriter.read.export_model import count_rows, row_skimmer, skim_rows
from binlogwriter.strategies import codec as cs
from tests.read.test_export_columnar_props import events, tables

_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _outcome(fn, *args):
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001 - the error is part of what must agree
        return (type(exc), str(exc))


def _check(data, cols, values) -> None:
    info = TableInfo("db", "t", cols, None)
    for _op, present, after, rows in data.draw(events(cols, values), label="events"):
        plan = RowsPlan(info, present, after)
        want = count_rows(plan, rows)
        assert skim_rows(plan, rows, cols) == want
        skim = row_skimmer(plan, cols)
        if all(column_layout(c) is not None for c in cols):  # the skimmer itself, not its fallback
            assert skim is not None and rows and skim(rows) == want
        for cut in sorted({1, len(rows) // 2, len(rows) - 1}):
            if 0 < cut < len(rows):
                assert _outcome(skim_rows, plan, rows[:cut], cols) == _outcome(count_rows, plan, rows[:cut])


@settings(max_examples=150, **_SETTINGS)
@given(st.data())
def test_skim_rows_equals_count_rows(data) -> None:
    cols, values = data.draw(tables(), label="table")
    _check(data, cols, values)


@settings(max_examples=15, **_SETTINGS)
@given(st.data())
def test_skim_rows_equals_count_rows_on_wide_tables(data) -> None:
    families = (cs.integers, cs.varchars, cs.chars, cs.datetimes, cs.decimals, cs.blobs)
    width = data.draw(st.sampled_from([60, 300, 1000]), label="columns")
    cols, values = data.draw(tables(families, max_columns=width, more_values=1).filter(lambda t: len(t[0]) >= 60),
                             label="table")
    _check(data, cols, values)
