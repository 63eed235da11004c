"""truth/final lines built column by column from the typed arrays (generators/final_columns.py
``json_texts`` / ``final_lines``) are the lines of the reference: each row's canonical values
(``render_column`` of the same column values, value by value through ``column_renderer``)
written by ``json.dumps(dict(...), ensure_ascii=False, separators=(",", ":"))`` and
``jsonl_safe`` (``generators.truth.dumps_line``) — and the in-order check takes only rows
whose first values strictly increase.

Drawn: tables of 1-300 columns (sometimes ~1,000) of every shape a column's values come in
(int64 arrays with NULLs and the type limits, BIGINT UNSIGNED past int64, fixed-width ASCII,
pools of utf8mb4 text with quotes, backslashes, controls and line separators, DECIMAL units
at scales 0-30, DATETIME / TIMESTAMP / TIME at every fsp, DATE, floats with NaN-free
edges, the zero date as a Python value), column names that need escaping."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from binlogwriter.schema import parse_tables
from binlogwriter.values.row import ColumnArray
from binlogwriter.values.types import MysqlDate
from generators.changes_arrow import typed_array
from generators.changes_jsonl import object_keys
from generators.final_columns import FirstColumnOrder, final_lines, json_texts
from generators.truth import dumps_line, render_column

_TEXT = st.text(st.sampled_from(list('ab"\\\x00\x1f\n\x85\u2028\u2029é€😀 %s{}')), max_size=8)
_SHAPES = ["int", "bigu", "ascii", "pool", "dec", "dt", "ts", "date", "time", "float", "zero_date", "enum"]


@st.composite
def _column(draw: Any, i: int, n: int) -> tuple[str, Any]:
    shape = draw(st.sampled_from(_SHAPES))
    nulls = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=np.bool_) \
        if draw(st.booleans()) else None
    if shape == "int":
        lo, hi = draw(st.sampled_from([(-128, 127), (-(2**63), 2**63 - 1), (0, 1)]))
        vals = draw(st.lists(st.one_of(st.integers(lo, hi), st.sampled_from([lo, hi])), min_size=n, max_size=n))
        typ = {127: "TINYINT", 1: "BIT(1)"}.get(hi, "BIGINT")
        return f"{typ} NULL", ColumnArray("int", np.array(vals, dtype=np.int64), nulls)
    if shape == "bigu":
        return "BIGINT UNSIGNED NULL", draw(st.lists(st.one_of(st.none(), st.integers(0, 2**64 - 1)),
                                                     min_size=n, max_size=n))
    if shape == "ascii":
        w = draw(st.integers(0, 6))
        data = np.array(draw(st.lists(st.lists(st.sampled_from([0, 32, 34, 92, 65, 97]), min_size=w, max_size=w),
                                      min_size=n, max_size=n)), dtype=np.uint8).reshape(n, w)
        return draw(st.sampled_from([f"CHAR({max(w, 1)})", f"VARCHAR({max(w, 1)})"])) + " NULL", \
            ColumnArray("ascii", data, nulls)
    if shape == "enum":
        members = ("a", "é", 'q"x', "😀", "b\\\\c")
        return "ENUM('a','é','q\"x','😀','b\\\\c') CHARACTER SET utf8mb4 NULL", \
            draw(st.lists(st.one_of(st.none(), st.sampled_from(members)), min_size=n, max_size=n))
    if shape == "pool":
        pool = tuple(draw(st.lists(_TEXT, min_size=1, max_size=5)))
        idx = np.array(draw(st.lists(st.integers(0, len(pool) - 1), min_size=n, max_size=n)), dtype=np.int64)
        return "VARCHAR(40) CHARACTER SET utf8mb4 NULL", ColumnArray("pool", idx, nulls, pool=pool)
    if shape == "dec":
        scale = draw(st.integers(0, 30))
        meta = draw(st.integers(0, scale))
        top = 10 ** min(18, 30 - (scale - meta))
        vals = draw(st.lists(st.one_of(st.integers(-top + 1, top - 1), st.sampled_from([0, 1, -1])),
                             min_size=n, max_size=n))
        return f"DECIMAL(65,{scale}) NULL", ColumnArray("dec", np.array(vals, dtype=np.int64), nulls, meta=meta)
    if shape in ("dt", "ts", "time", "date"):
        fsp = draw(st.integers(0, 6))
        lo, hi = {"dt": (-62_135_596_800_000_000, 253_402_300_799_999_999), "ts": (0, 2_147_483_647_999_999),
                  "date": (-719_162, 2_932_896), "time": (-3_020_399_000_000, 3_020_399_000_000)}[shape]
        vals = draw(st.lists(st.one_of(st.integers(lo, hi), st.sampled_from([lo, hi, 0])), min_size=n, max_size=n))
        sql = {"dt": f"DATETIME({fsp})", "ts": f"TIMESTAMP({fsp})", "date": "DATE", "time": f"TIME({fsp})"}[shape]
        return f"{sql} NULL", ColumnArray(shape, np.array(vals, dtype=np.int64), nulls)
    if shape == "float":
        wide = draw(st.booleans())
        vals = draw(st.lists(st.one_of(st.floats(allow_nan=False, allow_infinity=False, width=64 if wide else 32),
                                       st.sampled_from([0.0, -0.0, 1e-300 if wide else 1e-40])), min_size=n, max_size=n))
        return ("DOUBLE" if wide else "FLOAT") + " NULL", ColumnArray("float", np.array(vals), nulls)
    import datetime as dt
    vals = draw(st.lists(st.one_of(st.none(), st.sampled_from([MysqlDate(0, 0, 0), MysqlDate(2001, 2, 0),
                                                                dt.date(1999, 1, 2), dt.date(1, 1, 1)])),
                         min_size=n, max_size=n))
    return "DATE NULL", vals


@st.composite
def _table(draw: Any) -> tuple[Any, list]:
    ncols = draw(st.one_of(st.integers(1, 6), st.integers(60, 300), st.just(997)))
    n = draw(st.integers(0, 12))
    names = [f"c{i}" for i in range(ncols)]
    if draw(st.booleans()):
        names[0] = 'we"ird\\ná\u2028'
    cols = [draw(_column(i, n)) for i in range(ncols)]
    ddl = ", ".join(f"`{nm}` {sql}" for nm, (sql, _) in zip(names, cols, strict=True))
    flavor = draw(st.sampled_from(["mysql80", "mariadb1011"]))
    return parse_tables(f"CREATE TABLE t ({ddl})", "db", flavor)[0], [v for _, v in cols], n, flavor


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck),
          phases=[Phase.explicit, Phase.reuse, Phase.generate])  # wide tables: shrinking takes minutes
@given(case=_table())
def test_lines_from_typed_arrays_are_the_reference_lines(case: tuple) -> None:
    table, cols, n, flavor = case
    names = [c.name for c in table.columns]
    typed = [typed_array(col, flavor, c) for col, c in zip(table.columns, cols, strict=True)]
    lines = final_lines(object_keys([c.name for c in table.columns], escape=False), [json_texts(col, flavor, c, a, tx) for col, c, (a, tx)
                                              in zip(table.columns, cols, typed, strict=True)])
    canon = [render_column(col, flavor, c.tolist() if isinstance(c, ColumnArray) else c) for col, c
             in zip(table.columns, cols, strict=True)]
    want = [dumps_line(names, list(row)) + "\n" for row in zip(*canon, strict=True)]
    assert lines.to_pylist() == want


@settings(max_examples=200, deadline=None)
@given(text=st.booleans(), data=st.data())
def test_order_takes_strictly_increasing_first_values_only(text: bool, data: Any) -> None:
    value = st.sampled_from(["", "a", "b", "é", "😀", "ab", "\x7f", "\x80"]) if text else st.integers(-5, 5)
    blocks = data.draw(st.lists(st.lists(st.one_of(value, st.none()), max_size=4), min_size=1, max_size=4))
    order = FirstColumnOrder()
    got = True
    for b in blocks:
        got = order.follows(pa.array(b, pa.string() if text else pa.int64()), {}) and got
    flat = [v for b in blocks for v in b]
    want = all(blocks) and None not in flat and all(a < b for a, b in zip(flat, flat[1:], strict=False))
    assert got == want
