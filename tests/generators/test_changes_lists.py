"""The typed change truth of Python value lists and float arrays built without a canonical
text per value (generators/changes_lists.py) equals the value-by-value path it stands in for
(``_typed_values``: the family's truth renderer, then the text parsed back): same Arrow type,
same texts kept beside the typed values, same Parquet bytes. Drawn: text with trailing spaces,
NULs, multibyte and 4-byte characters, U+2028; bytes shorter and longer than a BINARY's
length; GEOMETRY objects and raw bytes; DATETIME / TIMESTAMP at every fsp (naive, UTC and other
zones; zero dates and zero parts as ``MysqlDateTime``; years 1 and 9999), TIME at every fsp
with negative values that truncate to zero and ``MysqlTime`` values; DOUBLE / FLOAT with
infinities, NaN, -0.0, subnormals and float32's limits; NULLs and all-NULL columns; both
flavors; DECIMAL, DATE and SET lists through ``typed_python`` (SET values rendered once per
distinct value, DECIMAL / calendar texts by one Arrow cast), also as value pools. Where the
list rules decline (None) the other paths are still compared, and they must not decline for
the plain shapes the generators make (checked separately)."""

from __future__ import annotations

import datetime as dt
import io
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.schema import parse_tables
from binlogwriter.values.row import ColumnArray
from binlogwriter.values.types import Geometry, MysqlDate, MysqlDateTime, MysqlTime
from generators.changes_arrow import column_arrow_type, typed_array, typed_python, typed_values
from generators.changes_lists import typed_floats, typed_list
from generators.truth import column_renderer

_TEXT = st.text(alphabet="ab  \x00é€中😀\u2028\t", max_size=12)
_BYTES = st.binary(max_size=10)
_ZONES = [dt.UTC, dt.timezone(dt.timedelta(hours=5, minutes=30)), dt.timezone(dt.timedelta(hours=-8))]
_DATETIMES = st.one_of(
    st.datetimes(min_value=dt.datetime(1, 1, 2), max_value=dt.datetime(9999, 12, 30)),
    st.sampled_from([dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
                     dt.datetime(1969, 12, 31, 23, 59, 59, 999999), dt.datetime(1970, 1, 1)]))
_ZERO = st.sampled_from([MysqlDateTime(0, 0, 0), MysqlDateTime(2024, 0, 5, 1, 2, 3, 450000),
                         MysqlDateTime(2024, 2, 0), MysqlDateTime(2024, 2, 29, 12, 0, 0, 123456)])
_TIMES = st.integers(-(838 * 3600 + 3599) * 1_000_000, (838 * 3600 + 3599) * 1_000_000).map(
    lambda us: dt.timedelta(microseconds=us))
_FLOATS = st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([0.0, -0.0, 5e-324, -2.2250738585072014e-308, 3.4028234663852886e38,
                                     -3.4028234663852886e38, 1.401298464324817e-45, 0.1, 16777217.0]))


def _values(sql: str) -> Any:
    """Values of the column type ``sql`` the generators give as Python values."""
    t = sql.split("(")[0]
    if t in ("VARCHAR", "TEXT", "ENUM", "CHAR", "MEDIUMTEXT"):
        return st.sampled_from(["a", "b ", "中 "]) if t == "ENUM" else _TEXT
    if t in ("BINARY", "VARBINARY", "BLOB"):
        return _BYTES
    if t in ("GEOMETRY", "POINT"):
        return st.one_of(st.builds(Geometry, st.integers(0, 2 ** 32 - 1), _BYTES), _BYTES)
    if t == "DATETIME":
        return st.one_of(_DATETIMES, _ZERO)
    if t == "TIMESTAMP":
        return st.one_of(_DATETIMES.map(lambda v: v.replace(tzinfo=dt.UTC)),
                         st.builds(lambda v, z: v.replace(tzinfo=dt.UTC).astimezone(z),
                                   st.datetimes(min_value=dt.datetime(1971, 1, 1), max_value=dt.datetime(2037, 1, 1)),
                                   st.sampled_from(_ZONES)),
                         st.datetimes(min_value=dt.datetime(1971, 1, 1), max_value=dt.datetime(2037, 1, 1)), _ZERO)
    if t == "TIME":
        return st.one_of(_TIMES, st.integers(-999_999, 999_999).map(lambda us: dt.timedelta(microseconds=us)),
                         st.builds(MysqlTime, st.booleans(), st.integers(0, 838), st.integers(0, 59),
                                   st.integers(0, 59), st.integers(0, 999_999)))
    if t == "DECIMAL":
        return st.decimals(min_value=-10**6, max_value=10**6, allow_nan=False, places=None).filter(
            lambda d: d.is_finite() and d.adjusted() < 6)
    if t == "DATE":
        return st.one_of(st.dates(), st.sampled_from([MysqlDate(0, 0, 0), MysqlDate(2024, 0, 1), MysqlDate(2024, 2, 29)]))
    if t == "SET":
        return st.frozensets(st.sampled_from(["a", "bé", "中", "d"]), max_size=4)
    raise AssertionError(sql)


_TYPES = ["VARCHAR(20)", "TEXT", "MEDIUMTEXT", "ENUM('a','b ','中 ')", "CHAR(8)", "BINARY(6)", "VARBINARY(9)", "BLOB",
          "GEOMETRY", "POINT", "TIME", "DATETIME", "TIMESTAMP", "DECIMAL(12,3)", "DECIMAL(40,0)", "DATE",
          "SET('a','bé','中','d')"]


def _parquet(arr: pa.Array) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table({"c": arr}), buf)
    return buf.getvalue()


def _column(sql: str, flavor: str, fsp: int) -> Any:
    if sql in ("TIME", "DATETIME", "TIMESTAMP") and fsp:
        sql = f"{sql}({fsp})"
    charset = " CHARACTER SET utf8mb4" if sql.split("(")[0] in ("VARCHAR", "CHAR", "TEXT", "MEDIUMTEXT", "ENUM", "SET") else ""
    return parse_tables(f"CREATE TABLE t (c {sql}{charset} NULL)", "db", flavor)[0].columns[0]


@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), sql=st.sampled_from(_TYPES), flavor=st.sampled_from(["mysql80", "mariadb1011"]),
       fsp=st.integers(0, 6))
def test_value_lists_type_like_the_value_path(data, sql: str, flavor: str, fsp: int) -> None:
    col = _column(sql, flavor, fsp)
    n = data.draw(st.integers(0, 12), label="rows")
    vals = data.draw(st.lists(st.one_of(st.none(), _values(sql)), min_size=n, max_size=n), label="values")
    typ = column_arrow_type(col, flavor)
    want, texts = typed_values(col, flavor, vals)
    keep: list = []
    for arr, got_texts in filter(None, [typed_list(col, typ, vals, lambda vs: typed_values(col, flavor, vs)),
                                        typed_python(col, flavor, vals, keep), typed_array(col, flavor, vals)]):
        assert arr.type == want.type == typ
        assert got_texts == texts
        assert arr.equals(want), (arr.to_pylist(), want.to_pylist())
        assert _parquet(arr) == _parquet(want)
    assert keep in ([], [[None if v is None else column_renderer(col, flavor)(v) for v in vals]])


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), sql=st.sampled_from(["DOUBLE", "FLOAT"]), flavor=st.sampled_from(["mysql80", "mariadb1011"]))
def test_float_arrays_type_like_the_value_path(data, sql: str, flavor: str) -> None:
    col = _column(sql, flavor, 0)
    n = data.draw(st.integers(0, 12), label="rows")
    vals = data.draw(st.lists(_FLOATS, min_size=n, max_size=n), label="values")
    nulls = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n), label="nulls"), dtype=np.bool_)
    values = ColumnArray("float", np.array(vals, dtype=np.float64), nulls if nulls.any() else None)
    got = typed_floats(col, column_arrow_type(col, flavor), values)
    try:
        want, texts = typed_values(col, flavor, values.tolist())
    except OverflowError:  # FLOAT beyond float32: the value path raises, the fast path declines
        assert got is None
        return
    assert got is not None and not texts
    assert got.type == want.type
    assert _parquet(got) == _parquet(want)


def test_plain_generator_shapes_are_not_declined() -> None:
    """The shapes the workloads give (tests/generators: app schema, alltypes) take the fast
    path: declining would be correct but slow."""
    vals = {"VARCHAR(20)": ["x", None], "CHAR(8)": ["a  ", None], "BINARY(6)": [b"ab", None],
            "BLOB": [b"", None], "POINT": [Geometry(0, b"\x01"), None], "TIME": [dt.timedelta(hours=-1), None],
            "DATETIME": [dt.datetime(2020, 1, 1), MysqlDateTime(0, 0, 0), None],
            "TIMESTAMP": [dt.datetime(2020, 1, 1, tzinfo=dt.UTC), None]}
    def refuse(_: list) -> Any:
        raise AssertionError("plain values sent value by value")
    for sql, vs in vals.items():
        col = _column(sql, "mysql80", 3)
        by_value = refuse if sql != "DATETIME" else (lambda xs, c=col: typed_values(c, "mysql80", xs))
        assert typed_list(col, column_arrow_type(col, "mysql80"), vs, by_value) is not None, sql


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), sql=st.sampled_from(_TYPES), flavor=st.sampled_from(["mysql80", "mariadb1011"]),
       fsp=st.integers(0, 6))
def test_pool_columns_type_like_the_value_path(data, sql: str, flavor: str, fsp: int) -> None:
    """A "pool" column (values drawn from a tuple by index) typed through the pool's typed
    form and a take equals the value path over the rows' values, texts at the right rows."""
    col = _column(sql, flavor, fsp)
    pool = tuple(data.draw(st.lists(_values(sql), min_size=1, max_size=6), label="pool"))
    n = data.draw(st.integers(0, 12), label="rows")
    idx = np.array(data.draw(st.lists(st.integers(0, len(pool) - 1), min_size=n, max_size=n)), dtype=np.int64)
    nulls = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n), label="nulls"), dtype=np.bool_)
    values = ColumnArray("pool", idx, nulls if nulls.any() else None, pool=pool)
    got, texts = typed_array(col, flavor, values)
    want, want_texts = typed_values(col, flavor, values.tolist())
    assert texts == want_texts
    assert got.equals(want)
    assert _parquet(got) == _parquet(want)


_INT_TYPES = ["TINYINT", "TINYINT UNSIGNED", "SMALLINT", "SMALLINT UNSIGNED", "MEDIUMINT", "MEDIUMINT UNSIGNED",
              "INT", "INT UNSIGNED", "BIGINT", "BIGINT UNSIGNED", "YEAR", "BIT(7)"]


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), sql=st.sampled_from(_INT_TYPES))
def test_int_arrays_narrow_like_arrows_cast(data, sql: str) -> None:
    """An "int" column narrowed by numpy (``arrow_typed.int_array``) is Arrow's checked cast of the int64
    values: same array and Parquet bytes when the values fit (NULL slots may hold anything),
    the same error when one does not."""
    col = _column(sql, "mysql80", 0)
    typ = column_arrow_type(col, "mysql80")
    if not pa.types.is_integer(typ):
        return
    info = np.iinfo(np.dtype(typ.to_pandas_dtype()))
    lo, hi = max(int(info.min), -(1 << 63)), min(int(info.max), (1 << 63) - 1)
    n = data.draw(st.integers(0, 12), label="rows")
    vals = data.draw(st.lists(st.one_of(st.integers(lo, hi), st.sampled_from([lo, hi, 0])), min_size=n, max_size=n))
    nulls = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n), label="nulls"), dtype=np.bool_)
    raw = np.array(vals, dtype=np.int64)
    if n and data.draw(st.booleans(), label="garbage under NULLs"):
        raw = np.where(nulls, -(1 << 62), raw)
    if n and data.draw(st.integers(0, 5), label="out of range") == 0 and (lo > -(1 << 63) or hi < (1 << 63) - 1):
        raw[0], nulls[0] = (lo - 1 if lo > -(1 << 63) else hi + 1), False
    values = ColumnArray("int", raw, nulls if nulls.any() else None)
    want_err = got_err = None
    try:
        want = pa.Array.from_buffers(pa.int64(), n, [pa.array(~nulls).buffers()[1] if nulls.any() else None,
                                                     pa.py_buffer(raw)]).cast(typ)
    except pa.ArrowInvalid as e:
        want_err = type(e)
    try:
        got, texts = typed_array(col, "mysql80", values)
    except pa.ArrowInvalid as e:
        got_err = type(e)
    assert got_err == want_err
    if want_err is None:
        assert texts == {}
        assert got.type == typ
        assert got.equals(want)
        assert _parquet(got) == _parquet(want)
