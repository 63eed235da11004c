"""Values that do not fit their column are refused with a ValueEncodeError that names
``db.table.column``, the row index and the rule broken — and nothing is left on disk.

Each case writes a two-row INSERT into ``db.bad`` inside ``with BinlogWriter(...) as w:``;
row 0 is valid, row 1 holds the bad value, so the message must say ``row 1``. The error must
escape the ``with`` block and leave no binlog file (no ``.part``, no final name, no index).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pytest

from binlogwriter.errors import ValueEncodeError
from binlogwriter.format import BinlogFormat
from binlogwriter.schema import Table
from binlogwriter.values import MysqlDate
from binlogwriter.write.transaction import SessionSettings
from binlogwriter.write.writer import BinlogWriter

UTC = dt.UTC


class Unserialisable:
    pass


# (column, DDL type, a good value, the bad value, words of the rule the message must contain)
CASES = [
    ("ti", "TINYINT NOT NULL", 1, 128, "holds -128..127, got 128"),
    ("tu", "TINYINT UNSIGNED", 1, -1, "holds 0..255, got -1"),
    ("bu", "BIGINT UNSIGNED", 1, 1 << 64, "holds 0..18446744073709551615"),
    ("si", "SMALLINT", 1, -32769, "holds -32768..32767, got -32769"),
    ("mu", "MEDIUMINT UNSIGNED", 1, 1 << 24, "holds 0..16777215, got 16777216"),
    ("v4", "VARCHAR(3) CHARACTER SET utf8mb4", "a", "😀😀😀😀", "holds 12 bytes, got 16"),
    ("vl", "VARCHAR(4) CHARACTER SET latin1", "a", "abcde", "holds 4 bytes, got 5"),
    ("vc", "VARCHAR(3) CHARACTER SET utf8mb4", "a", "abcd", "holds 3 characters, got 4"),
    ("c2", "CHAR(2) CHARACTER SET utf8mb4", "a", "abc", "holds 2 characters, got 3"),
    ("vu", "VARCHAR(2) CHARACTER SET ucs2", "a", "abc", "holds 4 bytes, got 6"),
    ("cl", "CHAR(2) CHARACTER SET latin1", "a", "中", "cannot be stored in latin1"),
    ("v3", "VARCHAR(10) CHARACTER SET utf8mb3", "a", "a😀", "cannot be stored in utf8mb3"),
    ("en", "ENUM('a','b')", "a", "c", "'c' is not a member"),
    ("st", "SET('a','b')", frozenset({"a"}), frozenset({"a", "z"}), "'z' is not a member"),
    ("dp", "DECIMAL(5,2)", Decimal("1.5"), Decimal("1234.5"), "more than 3 integer digits"),
    ("df", "DECIMAL(5,2)", Decimal("1.5"), Decimal("1.234"), "more than 2 fraction digits"),
    ("dt2", "DATETIME(2)", dt.datetime(2020, 1, 1), dt.datetime(2020, 1, 1, 0, 0, 0, 123456),
     "fsp 2 keeps 2"),
    ("t0", "TIME(0)", dt.timedelta(0), dt.timedelta(microseconds=1), "fsp 0 keeps 0"),
    ("d30", "DATE", dt.date(2020, 1, 1), MysqlDate(2023, 2, 30), "invalid date 2023-02-30"),
    ("d13", "DATE", dt.date(2020, 1, 1), MysqlDate(2023, 13, 1), "out of range"),
    ("tm", "TIME", dt.timedelta(0), dt.timedelta(hours=839), "holds -838:59:59.999999..838:59:59.999999"),
    ("yr", "YEAR", 2000, 1800, "holds 1901..2155 or 0, got 1800"),
    ("bt", "BIT(4)", 1, 16, "holds 4 bits (0..15), got 16"),
    ("it", "INT", 1, "12", "needs an int, got str"),
    ("nn", "INT NOT NULL", 1, None, "NOT NULL"),
    ("bn", "BINARY(2)", b"a", b"abc", "holds 2 bytes, got 3"),
    ("js", "JSON", {"a": 1}, {"a": Unserialisable()}, "has no JSON form"),
    ("ts", "TIMESTAMP NULL", dt.datetime(2020, 1, 1, tzinfo=UTC), dt.datetime(2040, 1, 1, tzinfo=UTC),
     "2038-01-19 03:14:07"),
    ("dbl", "DOUBLE", 1.0, float("nan"), "NaN and infinity are not stored"),
    ("fl", "FLOAT", 1.0, 1e39, "holds at most"),
    ("tt", "TINYTEXT", "a", "x" * 256, "holds 255 bytes, got 256"),
    ("dta", "DATETIME", dt.datetime(2020, 1, 1), dt.datetime(2020, 1, 1, tzinfo=UTC), "no time zone"),
    ("ge", "GEOMETRY", None, 5, "needs a Geometry or bytes"),
]

# MariaDB's JSON is a LONGTEXT: Python JSON values become its text, so the rule differs
MARIADB_RULE = {"js": "not a JSON value"}

SQL = "CREATE TABLE bad (id INT PRIMARY KEY, " + ", ".join(f"{c} {t}" for c, t, *_ in CASES) + ")"


def _table(flavor: str) -> Table:
    return Table.from_sql(SQL, database="db", flavor=flavor)


def _good(table: Table, row_id: int) -> dict:
    row = {"id": row_id, **{c: g for c, _, g, *_ in CASES}}
    return row


def _no_files(directory: Path) -> None:
    left = sorted(p.name for p in directory.iterdir()) if directory.exists() else []
    assert left == [], f"files left behind: {left}"


def test_at_least_25_cases() -> None:
    assert len(CASES) >= 25


@pytest.mark.parametrize("flavor", ["mysql80", "mariadb1011"])
@pytest.mark.parametrize("column,ddl,good,bad,rule", CASES, ids=[c[0] for c in CASES])
def test_bad_value_in_insert(tmp_path: Path, flavor: str, column: str, ddl: str, good, bad, rule: str) -> None:
    if flavor == "mariadb1011":
        rule = MARIADB_RULE.get(column, rule)
    t = _table(flavor)
    out = tmp_path / "out"
    with pytest.raises(ValueEncodeError) as info:
        with BinlogWriter(out, BinlogFormat.preset(flavor)) as w:
            w.ddl("CREATE DATABASE db")
            with w.transaction() as tx:
                tx.insert(t, [_good(t, 0), {**_good(t, 1), column: bad}])
    msg = str(info.value)
    assert f"db.bad.{column}" in msg, msg
    assert "row 1" in msg, msg
    assert rule in msg, msg
    assert info.value.column == column and info.value.row == 1
    _no_files(out)


def test_good_rows_are_accepted(tmp_path: Path) -> None:
    """The same two rows without the bad value are written (the cases test one thing each)."""
    for flavor in ("mysql80", "mariadb1011"):
        t = _table(flavor)
        with BinlogWriter(tmp_path / flavor, BinlogFormat.preset(flavor)) as w:
            with w.transaction() as tx:
                tx.insert(t, [_good(t, 0), _good(t, 1)])
        assert [p.name for p in w.files] == ["binlog.000001"]


def test_missing_pk_value_under_minimal(tmp_path: Path) -> None:
    """binlog_row_image=MINIMAL logs the PK in a DELETE's before image: a row without it is refused."""
    t = Table.from_sql("CREATE TABLE bad (id INT PRIMARY KEY, a INT)", database="db")
    out = tmp_path / "out"
    with pytest.raises(ValueEncodeError) as info:
        with BinlogWriter(out, BinlogFormat.mysql80(), settings=SessionSettings(row_image="MINIMAL")) as w:
            with w.transaction() as tx:
                tx.delete(t, [{"id": 1, "a": 1}, {"a": 2}])
    msg = str(info.value)
    assert "db.bad.id" in msg and "row 1" in msg and "primary key equivalent" in msg, msg
    _no_files(out)


def test_missing_pk_in_update_before_image(tmp_path: Path) -> None:
    t = Table.from_sql("CREATE TABLE bad (id INT PRIMARY KEY, a INT)", database="db")
    out = tmp_path / "out"
    with pytest.raises(ValueEncodeError) as info:
        with BinlogWriter(out, BinlogFormat.mariadb1011(), settings=SessionSettings(row_image="MINIMAL")) as w:
            with w.transaction() as tx:
                tx.update(t, [((1, 1), {"a": 2}), ({"a": 2}, {"a": 3})])
    msg = str(info.value)
    assert "db.bad.id" in msg and "row 1" in msg, msg
    _no_files(out)


def test_bad_value_in_update_after_image(tmp_path: Path) -> None:
    t = Table.from_sql("CREATE TABLE bad (id INT PRIMARY KEY, a TINYINT)", database="db")
    out = tmp_path / "out"
    with pytest.raises(ValueEncodeError) as info:
        with BinlogWriter(out, BinlogFormat.mysql84()) as w:
            with w.transaction() as tx:
                tx.update(t, [((1, 1), {"a": 2}), ((2, 2), {"a": 300})])
    msg = str(info.value)
    assert "db.bad.a" in msg and "row 1" in msg and "holds -128..127, got 300" in msg, msg
    _no_files(out)


def test_null_in_not_null_column_is_refused(tmp_path: Path) -> None:
    """The brief's question: a NULL in a NOT NULL column is refused by the writer."""
    t = Table.from_sql("CREATE TABLE bad (id INT PRIMARY KEY, a VARCHAR(3) NOT NULL)", database="db")
    with pytest.raises(ValueEncodeError, match="NOT NULL"):
        with BinlogWriter(tmp_path / "o", BinlogFormat.mariadb1011()) as w:
            with w.transaction() as tx:
                tx.insert(t, [(1, None)])
    _no_files(tmp_path / "o")
