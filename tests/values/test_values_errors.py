"""Values that do not fit raise ValueEncodeError naming table.column and the rule broken."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from binlogwriter.errors import DecodeError, SchemaError, ValueEncodeError
from binlogwriter.values import (
    ABSENT,
    ColumnDesc,
    Geometry,
    JsonOpaque,
    MysqlDate,
    MysqlDateTime,
    MysqlTime,
    decode_value,
    encode_row_image,
    encode_value,
)


def C(code, meta=b"", **kw):
    return ColumnDesc(code, meta, table="db.t", name="c", **kw)


UTF8MB4, UTF8MB3, LATIN1, BINARY, UCS2, GBK = 255, 33, 8, 63, 35, 28


def _deep_json(n):
    v: list = []
    for _ in range(n - 1):
        v = [v]
    return v


VC10_MB4 = C(15, (40).to_bytes(2, "little"), collation=UTF8MB4)

BAD = [
    # (column, value, fragments that the message must contain)
    (C(1), 128, ["TINYINT", "-128..127", "128"]),
    (C(1, unsigned=True), -1, ["TINYINT UNSIGNED", "0..255"]),
    (C(2), 40000, ["SMALLINT", "-32768..32767"]),
    (C(9, unsigned=True), 1 << 24, ["MEDIUMINT UNSIGNED", "0..16777215"]),
    (C(3), 1 << 31, ["INT", "2147483647"]),
    (C(8, unsigned=True), 1 << 64, ["BIGINT UNSIGNED", "18446744073709551615"]),
    (C(8), 1.5, ["BIGINT", "needs an int", "float"]),
    (C(3), "12", ["INT", "needs an int", "str"]),
    (C(4, b"\x04"), 1e39, ["FLOAT", "at most"]),
    (C(4, b"\x04"), float("nan"), ["FLOAT", "NaN"]),
    (C(5, b"\x08"), float("inf"), ["DOUBLE", "infinity"]),
    (C(5, b"\x08", unsigned=True), -1.0, ["DOUBLE UNSIGNED", "negative"]),
    (C(246, bytes([5, 2])), Decimal("1234.5"), ["DECIMAL(5,2)", "more than 3 integer digits"]),
    (C(246, bytes([5, 2])), Decimal("1.234"), ["DECIMAL(5,2)", "more than 2 fraction digits"]),
    (C(246, bytes([10, 0]), unsigned=True), Decimal("-1"), ["DECIMAL(10,0) UNSIGNED", "negative"]),
    (C(246, bytes([10, 2])), Decimal("NaN"), ["DECIMAL(10,2)", "not a number"]),
    (C(246, bytes([10, 2])), "1.5", ["DECIMAL(10,2)", "needs a Decimal"]),
    (C(16, bytes([2, 1])), 1 << 10, ["BIT(10)", "10 bits"]),
    (C(16, bytes([1, 0])), b"\x01\x00", ["BIT(1)", "holds 1 bytes"]),
    (C(13), 1900, ["YEAR", "1901..2155"]),
    (C(13), 2156, ["YEAR", "1901..2155"]),
    (C(10), MysqlDate(2023, 2, 30), ["DATE", "invalid date 2023-02-30", "28 days"]),
    (C(10), MysqlDate(2024, 13, 1), ["DATE", "out of range"]),
    (C(10), "2024-01-01", ["DATE", "needs a datetime.date"]),
    (C(18, b"\x00"), dt.datetime(2024, 1, 1, 0, 0, 0, 500000), ["DATETIME", "fsp 0 keeps 0"]),
    (C(18, b"\x02"), dt.datetime(2024, 1, 1, 0, 0, 0, 123000), ["DATETIME(2)", ".123 has 3 digits"]),
    (C(18, b"\x00"), dt.datetime(2024, 1, 1, tzinfo=dt.UTC), ["DATETIME", "time zone"]),
    (C(18, b"\x00"), MysqlDateTime(2024, 4, 31), ["DATETIME", "invalid date 2024-04-31"]),
    (C(18, b"\x00"), MysqlDateTime(2024, 4, 1, 24), ["DATETIME", "out of range"]),
    (C(19, b"\x00"), dt.timedelta(hours=839), ["TIME", "838:59:59"]),
    (C(19, b"\x03"), dt.timedelta(microseconds=-1), ["TIME(3)", "fsp 3 keeps 3"]),
    (C(19, b"\x00"), MysqlTime(False, 1, 60), ["TIME", "out of range"]),
    (C(11, fsp=2), dt.timedelta(microseconds=1), ["TIME(2) (old format)", "fsp 2"]),
    (C(17, b"\x00"), dt.datetime(2038, 1, 19, 3, 14, 8, tzinfo=dt.UTC), ["TIMESTAMP", "2038-01-19 03:14:07"]),
    (C(17, b"\x00"), dt.datetime(1969, 12, 31), ["TIMESTAMP", "1970-01-01 00:00:01"]),
    (C(17, b"\x00"), 1.5, ["TIMESTAMP", "needs a datetime"]),
    (VC10_MB4, "x" * 11, ["VARCHAR(10) utf8mb4", "holds 10 characters, got 11"]),
    (VC10_MB4, "😀" * 10 + "é", ["VARCHAR(10) utf8mb4", "holds 40 bytes, got 42"]),
    (VC10_MB4, "é" * 11, ["VARCHAR(10) utf8mb4", "holds 10 characters, got 11"]),
    (VC10_MB4, b"x" * 57, ["VARCHAR(10) utf8mb4", "holds 40 bytes, got 57"]),
    (C(15, (30).to_bytes(2, "little"), collation=UTF8MB3), "a😀", ["utf8mb3", "U+1F600"]),
    (C(15, (30).to_bytes(2, "little"), collation=LATIN1), "日本", ["VARCHAR(30) latin1", "cannot be stored in latin1"]),
    (C(15, (30).to_bytes(2, "little"), collation=UCS2), "😀", ["ucs2", "U+1F600"]),
    (C(15, (30).to_bytes(2, "little"), collation=GBK), "😀", ["gbk", "cannot be stored"]),
    (C(15, (4).to_bytes(2, "little"), collation=BINARY), b"12345", ["VARBINARY(4)", "holds 4 bytes, got 5"]),
    (C(15, (4).to_bytes(2, "little"), collation=UTF8MB4), 5, ["VARCHAR(1) utf8mb4", "needs str or bytes"]),
    (C(15, (4).to_bytes(2, "little")), "abc", ["VARBINARY(4)", "pass bytes"]),
    (C(254, b"\xfe\x04", collation=BINARY), b"abcde", ["BINARY(4)", "holds 4 bytes, got 5"]),
    (C(254, b"\xfe\x14", collation=UTF8MB4), "abcdef", ["CHAR(5) utf8mb4", "holds 5 characters, got 6"]),
    (C(252, b"\x01", collation=BINARY), b"x" * 256, ["TINYBLOB", "holds 255 bytes, got 256"]),
    (C(252, b"\x02", collation=UTF8MB4), "x" * 65536, ["TEXT utf8mb4", "holds 65535 bytes"]),
    (C(254, b"\xf7\x01", enum_values=("a", "b")), "c", ["ENUM('a','b')", "'c' is not a member"]),
    (C(254, b"\xf7\x01", enum_values=("a", "b")), 3, ["ENUM", "index 3 is out of range 0..2"]),
    (C(254, b"\xf7\x01"), "a", ["ENUM", "members unknown"]),
    (C(254, b"\xf8\x01", set_values=("x", "y")), {"x", "q"}, ["SET('x','y')", "'q' is not a member"]),
    (C(254, b"\xf8\x01", set_values=("x", "y")), 4, ["SET", "bits beyond the 2 members"]),
    (C(245, b"\x04"), {"a": float("nan")}, ["JSON", "not a JSON number", "$.a"]),
    (C(245, b"\x04"), [1, {"k": b"raw"}], ["JSON", "bytes", "JsonOpaque", "$[1].k"]),
    (C(245, b"\x04"), {1: 2}, ["JSON", "key 1 is not a str"]),
    (C(245, b"\x04"), 1 << 64, ["JSON", "beyond int64/uint64"]),
    (C(245, b"\x04"), Decimal("1E+70"), ["JSON", "at most 65"]),
    (C(245, b"\x04"), JsonOpaque(300, b""), ["JSON", "field_type must be 0..255"]),
    (C(245, b"\x04"), _deep_json(101), ["JSON", "deeper than 100"]),
    (C(255, b"\x04"), b"\x00\x00", ["GEOMETRY", "4-byte SRID"]),
    (C(255, b"\x04"), Geometry(-1, b""), ["GEOMETRY", "SRID must be a u32"]),
    (C(255, b"\x04"), "POINT(1 2)", ["GEOMETRY", "needs a Geometry or bytes"]),
]


@pytest.mark.parametrize("col,value,fragments", BAD, ids=[f"{i}-{c.type_code}" for i, (c, _, _) in enumerate(BAD)])
def test_bad_value_raises_with_column_and_rule(col, value, fragments):
    with pytest.raises(ValueEncodeError) as info:
        encode_value(col, value)
    msg = str(info.value)
    assert "db.t.c" in msg
    for frag in fragments:
        assert frag in msg, (frag, msg)
    assert info.value.table == "db.t" and info.value.column == "c"


def test_there_are_at_least_25_bad_values():
    assert len(BAD) >= 25


def test_none_and_absent_are_not_values():
    with pytest.raises(ValueEncodeError, match="SQL NULL"):
        encode_value(C(3), None)
    with pytest.raises(ValueEncodeError, match="ABSENT"):
        encode_value(C(3), ABSENT)
    assert encode_value(C(6), None) == b""


def test_row_errors_carry_the_column_and_the_caller_adds_the_row():
    cols = (ColumnDesc(3, table="t", name="a"), ColumnDesc(1, table="t", name="b", nullable=False))
    with pytest.raises(ValueEncodeError) as info:
        encode_row_image(cols, [True, True], [1, 999])
    err = info.value.located(row=7)
    assert str(err) == "TINYINT: holds -128..127, got 999 - at t.b row 7"
    with pytest.raises(ValueEncodeError, match="NOT NULL.* t.b"):
        encode_row_image(cols, [True, True], [1, None])
    with pytest.raises(ValueEncodeError, match="ABSENT"):
        encode_row_image(cols, [True, True], [ABSENT, 1])
    with pytest.raises(ValueEncodeError, match="needs 2 values"):
        encode_row_image(cols, [True, True], [1])


def test_bad_bytes_raise_decode_error_with_the_column():
    with pytest.raises(DecodeError, match="t.c"):
        decode_value(ColumnDesc(8, table="t", name="c"), b"\x00" * 7, 0)
    with pytest.raises(DecodeError, match="runs past the end"):
        decode_value(ColumnDesc(15, b"\x0a\x00", collation=63), b"\x05ab", 0)
    with pytest.raises(DecodeError, match="JSON"):
        decode_value(ColumnDesc(245, b"\x04"), b"\x02\x00\x00\x00\x0e\x00", 0)
    with pytest.raises(DecodeError, match="group out of range"):
        decode_value(ColumnDesc(246, bytes([18, 0])), b"\xff" * 8, 0)


def test_impossible_metadata_is_a_schema_error():
    with pytest.raises(SchemaError, match="metadata must be 2 bytes"):
        encode_value(ColumnDesc(246, b"\x05", table="t", name="c"), Decimal(1))
    with pytest.raises(SchemaError, match="not supported"):
        encode_value(ColumnDesc(0, table="t", name="c"), 1)
    with pytest.raises(SchemaError, match="ENUM storage"):
        encode_value(ColumnDesc(254, b"\xf7\x03"), 1)
