"""The typed change-stream truth of DECIMAL / DATETIME / TIMESTAMP / DATE / TIME columns built
straight from their integer units (generators/arrow_typed.py ``typed_units``) equals the
value-by-value path it stands in for (``_typed_values``: canonical text, then parsed back):
same Arrow array, no canonical texts, same Parquet bytes. Drawn: every fsp, precisions up to
65 (decimal128 and decimal256), scales up to 30, units coarser than the scale, negative
values and dates before 1970, the types' limits, NULLs (and all NULL), years 1 and 9999;
where it declines (rounding, beyond the precision, outside years 1-9999) nothing is
claimed."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.schema import parse_tables
from binlogwriter.values.row import ColumnArray
from generators.arrow_typed import typed_units
from generators.changes_arrow import column_arrow_type, typed_array, typed_values

_US_DAY = 86_400_000_000
_LIMITS = {
    "dt": (-62_135_596_800_000_000, 253_402_300_799_999_999),
    "ts": (0, 2_147_483_647_999_999),
    "date": (-719_162, 2_932_896),
    "time": (-(838 * 3600 + 59 * 60 + 59) * 1_000_000, (838 * 3600 + 59 * 60 + 59) * 1_000_000),
}


@st.composite
def column(draw: Any) -> tuple[str, ColumnArray]:
    kind = draw(st.sampled_from(["dec", "dt", "ts", "date", "time"]), label="kind")
    n = draw(st.integers(1, 40), label="rows")
    if kind == "dec":
        prec = draw(st.integers(1, 65))
        scale = draw(st.integers(0, min(prec, 30)))
        meta = draw(st.integers(0, scale + 1))
        top = 10 ** min(18, max(0, prec - (scale - meta)))
        lo, hi = -(top - 1), top - 1
        sql = f"DECIMAL({prec},{scale})"
    else:
        fsp = draw(st.integers(0, 6))
        lo, hi = _LIMITS[kind]
        sql = {"dt": f"DATETIME({fsp})", "ts": f"TIMESTAMP({fsp})", "date": "DATE", "time": f"TIME({fsp})"}[kind]
        meta = None
    edge = st.sampled_from([lo, hi, 0, -1, 1, lo + 1, hi - 1])
    vals = draw(st.lists(st.one_of(st.integers(lo, hi), edge), min_size=n, max_size=n))
    if kind in ("dt", "date") and draw(st.integers(0, 9)) == 0:  # outside years 1-9999: declined
        vals[0] = hi + 1
    nulls = None
    if draw(st.booleans(), label="nullable"):
        nulls = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=np.bool_)
    return sql, ColumnArray(kind, np.array(vals, dtype=np.int64), nulls, meta=meta)


def _parquet(arr: pa.Array) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table({"c": arr}), buf)
    return buf.getvalue()


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=column(), flavor=st.sampled_from(["mysql80", "mariadb1011"]))
def test_units_give_the_rendered_and_parsed_values(case: tuple[str, ColumnArray], flavor: str) -> None:
    sql, values = case
    col = parse_tables(f"CREATE TABLE t (c {sql} NULL)", "db", flavor)[0].columns[0]
    typ = column_arrow_type(col, flavor)
    got = typed_units(col, typ, values)
    if got is None:
        return
    want, texts = typed_values(col, flavor, values.tolist())
    assert not texts
    assert got.type == want.type
    assert got.equals(want), (got.to_pylist()[:5], want.to_pylist()[:5])
    assert _parquet(got) == _parquet(want)
    assert typed_array(col, flavor, values)[0].equals(want)


def test_declines_what_the_text_would_round_or_overflow() -> None:
    col = parse_tables("CREATE TABLE t (c DECIMAL(4,1), d DATE)", "db", "mysql80")[0].columns
    typ = column_arrow_type(col[0], "mysql80")
    assert typed_units(col[0], typ, ColumnArray("dec", np.array([15], dtype=np.int64), meta=2)) is None  # 0.15
    assert typed_units(col[0], typ, ColumnArray("dec", np.array([10_000], dtype=np.int64), meta=1)) is None
    assert typed_units(col[0], typ, ColumnArray("dec", np.array([999, -999], dtype=np.int64), meta=1)) is not None
    dtyp = column_arrow_type(col[1], "mysql80")
    assert typed_units(col[1], dtyp, ColumnArray("date", np.array([2_932_897], dtype=np.int64))) is None
