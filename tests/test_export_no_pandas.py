"""The export command's start-up (issue 30): ``binlogwriter export FILE --to parquet DIR``
imports neither pandas (pyarrow's ``pa.array`` imports it for any input: the export builds its
arrays from buffers, binlogwriter/read/arrowbuild.py) nor the generators; and the arrays
arrowbuild makes equal what ``pa.array`` makes of the same values."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.read.arrowbuild import booleans, indices, numbers, string_lists, strings

_PROBE = """
import sys
from binlogwriter.cli import main
try:
    main(sys.argv[1:], standalone_mode=False)
except SystemExit as exc:
    assert not exc.code, exc.code
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"pandas", "generators", "spark_gen", "faker", "sqlglot"})
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
    # alltypes: DECIMAL, temporal and binary values of the reference path still go through pa.array
    assert heavy == ("pandas" if workload == "alltypes" else "-"), got.stdout
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
