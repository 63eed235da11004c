"""The export command's start-up (issue 30): ``binlogwriter export FILE --to parquet DIR``
imports neither pandas (pyarrow's ``pa.array`` imports it for any input: the export builds its
arrays from buffers, binlogwriter/read/arrowbuild.py), nor ``pyarrow.compute`` (``Array.take``
and ``cast`` import it: arrowbuild.take gathers with numpy), nor the generators; and the arrays
arrowbuild makes equal what ``pa.array`` / ``Array.take`` make of the same values."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.read.arrowbuild import booleans, indices, numbers, span_bytes, string_lists, strings, take

_PROBE = """
import sys
from binlogwriter.cli import main
try:
    main(sys.argv[1:], standalone_mode=False)
except SystemExit as exc:
    assert not exc.code, exc.code
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"pandas", "generators", "spark_gen", "faker", "sqlglot"}
               | {m for m in sys.modules if m == "pyarrow.compute"})
print(" ".join(heavy) or "-")
"""


@pytest.mark.parametrize("workload,flavor", [("sysbench", "mariadb1011"), ("ecommerce", "mysql80"),
                                             ("ecommerce", "mariadb1011"), ("alltypes", "mariadb1011")])
def test_export_command_imports_no_pandas(tmp_path: Path, workload: str, flavor: str) -> None:
    subprocess.run([sys.executable, "-m", "binlogwriter", "generate", "--workload", workload, "--flavor", flavor,
                    "--transactions", "300", "--initial-rows", "20", "--seed", "5", "--out", str(tmp_path / "gen"),
                    "--no-progress"], check=True, capture_output=True, timeout=300)
    files = [str(p) for p in sorted((tmp_path / "gen").glob("binlog.0*"))]
    got = subprocess.run([sys.executable, "-c", _PROBE, "export", *files, "--to", "parquet", str(tmp_path / "pq")],
                         check=True, capture_output=True, text=True, timeout=300)
    heavy = got.stdout.splitlines()[-1]
    # alltypes: DECIMAL, temporal and binary values of the reference path still go through
    # pa.array (pandas imports pyarrow.compute); the others take with arrowbuild.take
    assert heavy == ("pandas pyarrow.compute" if workload == "alltypes" else "-"), got.stdout
    assert any((tmp_path / "pq").rglob("*.parquet"))


_INTS = {pa.int64(): np.int64, pa.int32(): np.int32, pa.uint64(): np.uint64}
_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=8)  # multibyte, no surrogates


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(_INTS, key=str)), st.lists(st.tuples(st.integers(0, 2**31 - 1), st.booleans()),
                                                          max_size=40))
def test_numbers_equal_pa_array(typ: pa.DataType, vals: list[tuple[int, bool]]) -> None:
    data = np.array([v for v, _ in vals], dtype=_INTS[typ])
    mask = np.array([m for _, m in vals], dtype=bool)
    want = pa.array([None if m else v for v, m in vals], type=typ)
    got = numbers(data, typ, mask)
    got.validate(full=True)
    assert got.equals(want)
    assert numbers(data, typ).equals(pa.array([v for v, _ in vals], type=typ))
    assert indices(data.astype(np.int64), ~mask).equals(want.cast(pa.int64()))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), max_size=70))
def test_booleans_equal_pa_array(vals: list[bool]) -> None:
    got = booleans(np.array(vals, dtype=bool))
    got.validate(full=True)
    assert got.equals(pa.array(vals, type=pa.bool_()))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.none() | _TEXT, max_size=30))
def test_strings_equal_pa_array(vals: list[str | None]) -> None:
    got = strings(vals)
    got.validate(full=True)
    assert got.equals(pa.array(vals, type=pa.string()))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.none() | st.lists(_TEXT, max_size=5), max_size=20))
def test_string_lists_equal_pa_array(vals: list[list[str] | None]) -> None:
    got = string_lists(vals)
    got.validate(full=True)
    assert got.equals(pa.array(vals, type=pa.list_(pa.string())))


def test_strings_refuse_surrogates_like_pa_array() -> None:
    """export_model._files relies on the UnicodeEncodeError to escape undecodable path bytes."""
    with pytest.raises(UnicodeEncodeError):
        pa.array(["a\udcff"], type=pa.string())
    with pytest.raises(UnicodeEncodeError):
        strings(["a\udcff"])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.none() | st.lists(_TEXT, max_size=4), min_size=1, max_size=4), st.lists(st.integers(0, 3),
                                                                                           max_size=30))
def test_shared_string_lists_equal_pa_array(pool: list[list[str] | None], picks: list[int]) -> None:
    """The export's name lists repeat a few list objects: laid out once each, then taken."""
    vals = [pool[i % len(pool)] for i in picks]
    got = string_lists(vals)
    got.validate(full=True)
    assert got.equals(pa.array(vals, type=pa.list_(pa.string())))


_TAKE_TYPES = [pa.int8(), pa.uint16(), pa.int32(), pa.int64(), pa.uint64(), pa.float32(), pa.float64(),
               pa.date32(), pa.timestamp("us"), pa.timestamp("s", tz="UTC"), pa.duration("us"),
               pa.decimal128(20, 4), pa.decimal256(60, 2), pa.binary(3), pa.bool_()]


def _value(typ: pa.DataType, x: int) -> object:
    """A value of ``typ`` from an integer (edge values included: 0, -1, the width's ends)."""
    import datetime as dt
    import decimal

    if pa.types.is_decimal(typ):
        return decimal.Decimal(x % 10**15) / 10**typ.scale
    if pa.types.is_fixed_size_binary(typ):
        return (x % 2**24).to_bytes(3, "little")
    if pa.types.is_boolean(typ):
        return bool(x & 1)
    if pa.types.is_floating(typ):
        return float(x % 2**20) / 7
    if pa.types.is_date(typ):
        return dt.date(1970, 1, 1) + dt.timedelta(days=x % 3000000)
    if pa.types.is_timestamp(typ) or pa.types.is_duration(typ):
        return x % 2**62 - 2**61
    bits = typ.bit_width
    return x % 2**bits - (2 ** (bits - 1) if pa.types.is_signed_integer(typ) else 0)


_EDGE_INTS = st.sampled_from([0, 1, -1, 2**7, 2**15, 2**31 - 1, 2**63 - 1, 2**64 - 1]) | st.integers(-2**70, 2**70)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_take_equals_arrow_take(data: st.DataObject) -> None:
    """arrowbuild.take against pyarrow's own take (indices with nulls, sliced sources, nulls
    in the values) for the fixed-width, text and name-list types the export takes from."""
    kind = data.draw(st.sampled_from(["fixed", "string", "binary", "list"]))
    vals: list
    if kind == "fixed":
        typ = data.draw(st.sampled_from(_TAKE_TYPES))
        vals = [None if v is None else _value(typ, v) for v in data.draw(st.lists(st.none() | _EDGE_INTS,
                                                                                      max_size=40))]
    elif kind == "string":
        typ, vals = pa.string(), data.draw(st.lists(st.none() | _TEXT, max_size=40))
    elif kind == "binary":
        typ, vals = pa.binary(), data.draw(st.lists(st.none() | st.binary(max_size=6), max_size=40))
    else:
        typ, vals = pa.list_(pa.string()), data.draw(st.lists(st.none() | st.lists(st.none() | _TEXT, max_size=4),
                                                                max_size=30))
    arr = pa.array(vals, type=typ)
    lo = data.draw(st.integers(0, len(arr)))
    arr = arr.slice(lo, data.draw(st.integers(0, len(arr) - lo)))
    if len(arr):
        picks = data.draw(st.lists(st.tuples(st.integers(0, len(arr) - 1), st.booleans()), max_size=60))
    else:
        picks = data.draw(st.lists(st.tuples(st.just(0), st.just(False)), max_size=5))
    idx = np.array([i for i, _ in picks], dtype=np.int64)
    valid = np.array([v for _, v in picks], dtype=bool)
    want = arr.take(pa.array([i if v else None for i, v in picks], type=pa.int64()))
    got = take(arr, idx, valid)
    got.validate(full=True)
    assert got.type == want.type and got.equals(want)
    if len(arr):
        got = take(arr, idx)
        got.validate(full=True)
        assert got.equals(arr.take(pa.array(idx, type=pa.int64())))


def test_take_of_wide_multibyte_text() -> None:
    """A column of 1000 rows of multibyte text and NULLs, taken in reverse and repeated."""
    vals = [None if i % 7 == 0 else "é€😀" * (i % 13) + str(i) for i in range(1000)]
    arr = pa.array(vals, type=pa.string())
    idx = np.concatenate([np.arange(999, -1, -1), np.zeros(50, dtype=np.int64) + 3])
    assert take(arr, idx).equals(arr.take(pa.array(idx)))


_WIDE_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=60)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_take_of_few_values_equals_arrow_take(data: st.DataObject) -> None:
    """The paths of arrowbuild.take for few distinct values taken many times — values of one
    byte width (gathered a value at a time), long values (joined value by value), name lists
    (joined list by list) — against pyarrow's take: multibyte text, empty strings, NULL values
    and NULL picks, sliced sources."""
    kind = data.draw(st.sampled_from(["width", "string", "binary", "list"]))
    if kind == "width":
        w = data.draw(st.integers(1, 40))
        typ = pa.binary()
        vals: list = data.draw(st.lists(st.none() | st.binary(min_size=w, max_size=w), min_size=1, max_size=5))
    elif kind == "string":
        typ, vals = pa.string(), data.draw(st.lists(st.none() | _WIDE_TEXT, min_size=1, max_size=5))
    elif kind == "binary":
        typ, vals = pa.binary(), data.draw(st.lists(st.none() | st.binary(max_size=80), min_size=1, max_size=5))
    else:
        typ = pa.list_(pa.string())
        vals = data.draw(st.lists(st.none() | st.lists(_WIDE_TEXT, max_size=6), min_size=1, max_size=5))
    arr = pa.array(vals, type=typ)
    lo = data.draw(st.integers(0, len(arr) - 1))
    arr = arr.slice(lo, data.draw(st.integers(1, len(arr) - lo)))
    picks = data.draw(st.lists(st.tuples(st.integers(0, len(arr) - 1), st.booleans()), min_size=len(arr) * 4,
                               max_size=200))
    idx = np.array([i for i, _ in picks], dtype=np.int64)
    valid = np.array([v for _, v in picks], dtype=bool)
    got = take(arr, idx, valid)
    got.validate(full=True)
    assert got.equals(arr.take(pa.array([i if v else None for i, v in picks], type=pa.int64())))
    got = take(arr, idx)
    got.validate(full=True)
    assert got.equals(arr.take(pa.array(idx, type=pa.int64())))


@settings(max_examples=200)
@given(st.binary(max_size=300), st.data())
def test_span_bytes_equal_joined_slices(raw: bytes, data) -> None:
    """arrowbuild.span_bytes: the spans' bytes joined in order, spans of one width (a window
    gather) or of several (slices joined), ``buf`` as long as ``raw`` or longer (PAD)."""
    n = len(raw)
    width = data.draw(st.none() | st.integers(0, n))
    span = (st.integers(0, n - width).map(lambda a: (a, width)) if width is not None
            else st.integers(0, n).flatmap(lambda a: st.tuples(st.just(a), st.integers(0, n - a))))
    spans = data.draw(st.lists(span, max_size=20))
    starts = np.array([a for a, _ in spans], dtype=np.int64)
    lens = np.array([b for _, b in spans], dtype=np.int64)
    buf = np.frombuffer(raw + bytes(data.draw(st.sampled_from((0, 64)))), dtype=np.uint8)
    got = span_bytes(buf, raw, starts, lens)
    assert got.dtype == np.uint8 and got.tobytes() == b"".join(raw[a:a + b] for a, b in spans)
