"""String lengths are refused from the value's length alone, before the value is encoded
into its charset (issue 15: every range check before expensive work). A character takes
at least one byte in every charset, so a value longer than the column's byte limit is too
long whatever it holds; MySQL counts VARCHAR(N) / CHAR(N) in characters."""

from __future__ import annotations

import pytest

from binlogwriter.errors import ValueEncodeError
from binlogwriter.format import BinlogFormat
from binlogwriter.schema import Table
from binlogwriter.write.writer import BinlogWriter

T = Table.from_sql("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10), b VARBINARY(10), "
                   "c CHAR(5) CHARACTER SET latin1, x TINYTEXT, u CHAR(3) CHARACTER SET utf32)", database="db")
HUGE = 10 ** 8


def _insert(tmp_path, **values):
    row = {"id": 1, "v": "a", "b": b"b", "c": "c", "x": "t", "u": "u", **values}
    with BinlogWriter(tmp_path, BinlogFormat.mysql80()) as w:
        with w.transaction() as tx:
            tx.insert(T, [tuple(row[c.name] for c in T.columns)])


@pytest.mark.parametrize(("column", "value", "message"), [
    ("v", "x" * HUGE, "VARCHAR(10) utf8mb4: holds 10 characters, got 100000000 - at db.t.v row 0"),
    ("b", b"y" * HUGE, "VARBINARY(10): holds 10 bytes, got 100000000 - at db.t.b row 0"),
    ("c", "z" * HUGE, "CHAR(5) latin1: holds 5 bytes, got 100000000 characters - at db.t.c row 0"),
    ("x", "w" * HUGE, "TINYTEXT utf8mb4: holds 255 bytes, got 100000000 characters - at db.t.x row 0"),
])
def test_huge_string_refused_by_its_length(tmp_path, column, value, message) -> None:
    with pytest.raises(ValueEncodeError) as info:
        _insert(tmp_path, **{column: value})
    assert str(info.value) == message


@pytest.mark.parametrize(("column", "value"), [
    ("v", "é" * 10),          # 10 characters, 20 bytes: fits VARCHAR(10) utf8mb4
    ("c", "ab" + " " * 500),  # CHAR drops trailing pad: fits
    ("u", "abc   "),           # utf32 CHAR(3): 12 bytes; pad dropped
])
def test_long_but_fitting_values_are_kept(tmp_path, column, value) -> None:
    _insert(tmp_path, **{column: value})


def test_one_character_too_many(tmp_path) -> None:
    with pytest.raises(ValueEncodeError, match=r"VARCHAR\(10\) utf8mb4: holds 10 characters, got 11"):
        _insert(tmp_path, v="é" * 11)
