"""Hostile values are refused by a typed error naming the place, before any expensive
arithmetic on them (issue 15: range checks come first).

``Decimal('1E+100000000')`` used to expand its coefficient to a 10^10^8 int (minutes of CPU);
a TIMESTAMP given ``2**40`` raised ``OverflowError`` while the message was built; a row given
as ``42`` raised ``TypeError``. Each must now be a ValueEncodeError naming ``db.table[.column]``
and the row, and the huge-number cases must finish at once (checked with a generous 5 s bound
in a child process - a big-int expansion holds the GIL, so a thread could not be timed out;
this tests that no expansion happens, it is not a benchmark).
"""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from binlogwriter.errors import ValueEncodeError
from binlogwriter.format import BinlogFormat
from binlogwriter.schema import Table
from binlogwriter.write.writer import BinlogWriter

SQL = ("CREATE TABLE bad (id INT PRIMARY KEY, d DECIMAL(5,2), d0 DECIMAL(65,30) UNSIGNED, "
       "ts TIMESTAMP NULL, t3 TIMESTAMP(3) NULL, i INT, y YEAR, b BIT(5))")
COLS = ("id", "d", "d0", "ts", "t3", "i", "y", "b")


def _row(row_id: int, **kw: Any) -> dict:
    return {**dict.fromkeys(COLS), "id": row_id, **kw}


def _write(tmp: Path, flavor: str, rows: Any, *, op: str = "insert") -> BaseException | None:
    """Run the INSERT (UPDATE/DELETE); the error it raised, or None."""
    t = Table.from_sql(SQL, database="db", flavor=flavor)
    try:
        with BinlogWriter(tmp / "out", BinlogFormat.preset(flavor)) as w:
            with w.transaction() as tx:
                getattr(tx, op)(t, rows)
    except Exception as exc:  # noqa: BLE001 - the test inspects it
        return exc
    return None


HUGE = [
    # column, bad value, words the rule must contain
    ("d", Decimal("1E+100000000"), "more than 3 integer digits"),
    ("d", Decimal("-1E+100000000"), "more than 3 integer digits"),
    ("d", Decimal("1E-100000000"), "more than 2 fraction digits"),
    ("d", Decimal("123456789E+99999999"), "more than 3 integer digits"),
    ("d0", Decimal("1E+999999999"), "more than 35 integer digits"),
    ("d0", Decimal("-1E+999999999"), "more than 35 integer digits"),
    ("ts", 2 ** 40, "2038-01-19 03:14:07"),
    ("ts", -(2 ** 40), "2038-01-19 03:14:07"),
    ("ts", 10 ** 400, "2038-01-19 03:14:07"),
    ("t3", 2 ** 40, "2038-01-19 03:14:07"),
    ("ts", dt.datetime(9999, 12, 31, tzinfo=dt.UTC), "2038-01-19 03:14:07"),
    ("i", 10 ** 5000, "holds -2147483648..2147483647"),
    ("y", -(10 ** 5000), "holds 1901..2155 or 0"),
    ("b", 10 ** 5000, "holds 5 bits"),
]


@pytest.mark.parametrize("flavor", ["mysql80", "mariadb1011"])
@pytest.mark.parametrize("column,bad,rule", HUGE, ids=[f"{c}-{i}" for i, (c, *_) in enumerate(HUGE)])
def test_huge_value_is_refused_at_once(tmp_path: Path, flavor: str, column: str, bad: Any, rule: str) -> None:
    exc = _write(tmp_path, flavor, [_row(0), _row(1, **{column: bad})])
    assert isinstance(exc, ValueEncodeError), repr(exc)
    msg = str(exc)
    assert f"db.bad.{column} row 1" in msg, msg
    assert rule in msg, msg
    assert len(msg) < 400, msg
    assert exc.column == column and exc.row == 1


def test_huge_values_are_refused_in_time(tmp_path: Path) -> None:
    """Every HUGE case, in a child process that must finish all of them within 30 s (the expansion
    this guards against takes minutes of CPU)."""
    code = (
        "import sys, pathlib, tests.write.test_bad_values_fast as m\n"
        "for n, (c, bad, rule) in enumerate(m.HUGE):\n"
        "    exc = m._write(pathlib.Path(sys.argv[1]) / str(n), 'mysql80', [m._row(0, **{c: bad})])\n"
        "    print(type(exc).__name__, flush=True)\n")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                          timeout=30, cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["ValueEncodeError"] * len(HUGE), proc.stdout


def test_decimal_edges_still_fit(tmp_path: Path) -> None:
    """The early checks keep what fitted: trailing zeros beyond the scale, -0, big exponents
    of zero, the largest value of the precision."""
    ok = [Decimal("999.99"), Decimal("-999.990000"), Decimal("-0"), Decimal("0E+100000000"),
          Decimal("0E-100000000"), Decimal("1.5E+2"), Decimal("12345E-2"), Decimal("100E-2")]
    rows = [_row(i, d=v) for i, v in enumerate(ok)]
    assert _write(tmp_path, "mysql80", rows) is None
    assert _write(tmp_path / "m", "mysql80", [_row(0, d=Decimal("1000"))]) is not None
    assert _write(tmp_path / "n", "mysql80", [_row(0, d=Decimal("0.001"))]) is not None


NOT_ROWS = [
    ("insert", [_row(0), 42], "a row is a mapping (column -> value) or a sequence of 8 values, got int 42",
     "row 1"),
    ("insert", [_row(0), "abcdefgh"], "got str 'abcdefgh'", "row 1"),
    ("delete", [42], "got int 42", "row 0"),
    ("update", [((0,) + (None,) * 7, {"i": 1}), 42], "an UPDATE row is a (before, after) pair, got int 42",
     "row 1"),
    ("update", [(1, 2, 3)], "(before, after) pair", "row 0"),
    ("update", [((0,) + (None,) * 7, 42)], "got int 42", "row 0"),
    ("insert", 42, "rows are an iterable of rows", None),
    ("delete", None, "got NoneType None", None),
    ("update", 42, "iterable of (before, after) pairs", None),
    ("insert", {"id": 5}, "maps each column to a sequence", None),
]


@pytest.mark.parametrize("op,rows,rule,row", NOT_ROWS, ids=[f"{o}-{i}" for i, (o, *_) in enumerate(NOT_ROWS)])
def test_not_a_row_is_a_typed_error(tmp_path: Path, op: str, rows: Any, rule: str, row: str | None) -> None:
    exc = _write(tmp_path, "mysql80", rows, op=op)
    assert isinstance(exc, ValueEncodeError), repr(exc)
    msg = str(exc)
    assert "db.bad" in msg and rule in msg, msg
    if row is not None:
        assert msg.endswith(row), msg
    assert not (tmp_path / "out").exists() or list((tmp_path / "out").iterdir()) == []


class _BadRepr:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


@pytest.mark.parametrize("column,bad,rule", [("i", _BadRepr(), "got _BadRepr <unprintable>"),
                                             ("d", 10.0 ** 300, "more than 3 integer digits"),
                                             ("ts", "2020-01-01", "got str '2020-01-01'")])
def test_odd_values_get_a_message(tmp_path: Path, column: str, bad: Any, rule: str) -> None:
    exc = _write(tmp_path, "mysql80", [_row(0, **{column: bad})])
    assert isinstance(exc, ValueEncodeError), repr(exc)
    assert rule in str(exc) and f"db.bad.{column} row 0" in str(exc), str(exc)
