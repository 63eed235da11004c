"""Spot checks: the worked examples of values.md (bytes from real servers / upstream vectors).

Every expected byte string here is copied from values.md; none is computed by our code.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from binlogwriter.values import (
    ColumnDesc,
    Geometry,
    MysqlDate,
    MysqlDateTime,
    codec_for,
    decode_value,
    encode_json,
    encode_value,
    parse_string_meta,
    string_real_type,
    temporal_text,
)
from binlogwriter.values.char import StringCodec
from binlogwriter.values.enum_set import EnumCodec, SetCodec

UTC = dt.UTC
T = dt.timedelta


def td(h=0, m=0, s=0, us=0, neg=False):
    v = T(hours=h, minutes=m, seconds=s, microseconds=us)
    return -v if neg else v


EXAMPLES = [
    # §3 NEWDECIMAL
    (ColumnDesc(246, bytes([4, 2])), Decimal("-10.55"), "75c8"),
    (ColumnDesc(246, bytes([14, 4])), Decimal("1234567890.1234"), "810dfb38d204d2"),
    (ColumnDesc(246, bytes([14, 4])), Decimal("-1234567890.1234"), "7ef204c72dfb2d"),
    (ColumnDesc(246, bytes([10, 2])), Decimal("-123.45"), "7fffff84d2"),
    (ColumnDesc(246, bytes([30, 30])), Decimal("0.1"), "85f5e100" + "00" * 10),
    # §4 DATETIME2 / TIMESTAMP2 / TIME2 / DATE
    (ColumnDesc(18, b"\x00"), dt.datetime(2016, 10, 28, 15, 30, 42), "999ab8f7aa"),
    (ColumnDesc(18, b"\x04"), dt.datetime(1, 1, 1, 0, 0, 0, 123500), "80038200000 4d3".replace(" ", "")),
    (ColumnDesc(18, b"\x00"), MysqlDateTime(0, 0, 0), "8000000000"),
    (ColumnDesc(17, b"\x00"), dt.datetime(2038, 1, 19, 3, 14, 7, tzinfo=UTC), "7fffffff"),
    (ColumnDesc(17, b"\x02"), dt.datetime(1970, 1, 1, 0, 0, 1, 10000, tzinfo=UTC), "0000000101"),
    (ColumnDesc(17, b"\x00"), MysqlDateTime(0, 0, 0), "00000000"),
    (ColumnDesc(19, b"\x00"), td(15, 4, 5), "80f105"),
    (ColumnDesc(19, b"\x00"), td(s=1, neg=True), "7fffff"),
    (ColumnDesc(19, b"\x00"), td(838, 59, 59, neg=True), "4b9105"),
    (ColumnDesc(19, b"\x02"), td(us=10000, neg=True), "7fffffff"),
    (ColumnDesc(19, b"\x02"), td(15, 4, 5, 120000, neg=True), "7f0efaf4"),
    (ColumnDesc(19, b"\x02"), td(838, 59, 58, 120000, neg=True), "4b9105f4"),
    (ColumnDesc(19, b"\x03"), td(0, 0, 1, 500000, neg=True), "7ffffeec78"),
    (ColumnDesc(10), dt.date(2024, 2, 29), "5dd00f"),
    (ColumnDesc(10), MysqlDate(0, 0, 0), "000000"),
    # §4.1 MariaDB hires old temporals (fsp from the schema)
    (ColumnDesc(11, fsp=3), td(12, 34, 56, 789000, neg=True), "00b15478eb"),
    (ColumnDesc(11, fsp=6), td(us=1, neg=True), "02bf3dde7bff"),
    (ColumnDesc(11, fsp=1), td(838, 59, 59, 900000, neg=True), "00000001"),
    # values.md prints "42 2b b5 9e 98 95" but its own size table (DATETIME(3): 7 bytes) and a
    # real MariaDB 10.11.19 row (test_values_mariadb_capture.py) have the leading 00.
    (ColumnDesc(12, fsp=3), dt.datetime(2024, 2, 29, 12, 34, 56, 789000), "00422bb59e9895"),
    (ColumnDesc(12, fsp=6), dt.datetime(9999, 12, 31, 23, 59, 59, 999999), "04fcee3943bfffff"),
    (ColumnDesc(7, fsp=3), dt.datetime(2001, 2, 3, 4, 5, 6, 123000, tzinfo=UTC), "3a7b8372007b"),
    (ColumnDesc(11), td(838, 59, 59), "a7f57f"),
    (ColumnDesc(12), dt.datetime(9999, 12, 31, 23, 59, 59), "77 87 d1 05 f1 5a 00 00"),
    (ColumnDesc(7), dt.datetime(2038, 1, 19, 3, 14, 7, tzinfo=UTC), "ffffff7f"),
    # §5 CHAR / BINARY
    (ColumnDesc(254, b"\xfe\x0a", collation=8), "ab  ", "026162"),
    (ColumnDesc(254, b"\xfe\x04", collation=63), b"a\x00", "0161"),
    # MariaDB INET4 is BINARY(4), trailing 00 stripped (values.md §1)
    (ColumnDesc(254, b"\xfe\x04", collation=63, flavor="mariadb1011"), bytes([10, 0, 0, 0]), "010a"),
    # §6 BIT
    (ColumnDesc(16, bytes([2, 1])), 0b1010101010, "02aa"),
    # §8 GEOMETRY POINT(1.5 -2)
    (ColumnDesc(255, b"\x04"),
     Geometry(0, bytes.fromhex("0101000000000000000000f83f00000000000000c0")),
     "19000000 00000000 01 01000000 000000000000f83f 00000000000000c0"),
]


@pytest.mark.parametrize("col,value,hexbytes", EXAMPLES, ids=[f"{i}-{c.type_code}" for i, (c, _, _) in enumerate(EXAMPLES)])
def test_worked_example(col, value, hexbytes):
    raw = bytes.fromhex(hexbytes.replace(" ", ""))
    assert encode_value(col, value) == raw
    decoded, pos = decode_value(col, raw + b"\xee", 0)  # a trailing byte of "the next column"
    assert pos == len(raw)
    assert encode_value(col, decoded) == raw


def test_old_datetime_fsp0_text():
    v, _ = decode_value(ColumnDesc(12), bytes.fromhex("7787d105f15a0000"))
    assert temporal_text(v) == "9999-12-31 23:59:59"


def test_string_meta_real_type_trick():
    # CHAR(100) utf8mb4 = 400 bytes -> ee 90; CHAR(255) latin1 -> fe ff; ENUM f7 01; SET f8 01
    assert parse_string_meta(bytes.fromhex("ee90")) == (254, 400)
    assert parse_string_meta(bytes.fromhex("feff")) == (254, 255)
    assert parse_string_meta(bytes.fromhex("f701")) == (247, 1)
    assert parse_string_meta(bytes.fromhex("f801")) == (248, 1)
    assert string_real_type(ColumnDesc(254, bytes.fromhex("f702"))) == 247
    assert isinstance(codec_for(ColumnDesc(254, bytes.fromhex("f702"))), EnumCodec)
    assert isinstance(codec_for(ColumnDesc(254, bytes.fromhex("f801"))), SetCodec)
    assert isinstance(codec_for(ColumnDesc(254, bytes.fromhex("ee90"))), StringCodec)


def test_char_400_bytes_uses_two_length_bytes():
    col = ColumnDesc(254, bytes.fromhex("ee90"), collation=255, name="c", table="t")
    raw = encode_value(col, "é" * 100)
    assert raw[:2] == (200).to_bytes(2, "little") and len(raw) == 202
    assert decode_value(col, raw)[0] == "é" * 100


def test_varchar_prefix_follows_declared_max():
    # VARCHAR(256) utf8mb4 -> metadata 00 04 = 1024 bytes -> 2 length bytes even for 'a'
    col = ColumnDesc(15, bytes.fromhex("0004"), collation=255)
    assert encode_value(col, "a") == b"\x01\x00a"
    col = ColumnDesc(15, (255).to_bytes(2, "little"), collation=8)
    assert encode_value(col, "a") == b"\x01a"


def test_ucs2_char_strips_the_two_byte_space():
    col = ColumnDesc(254, b"\xfe\x0a", collation=35)  # CHAR(5) ucs2
    assert encode_value(col, "ab  ") == b"\x04\x00a\x00b"
    col = ColumnDesc(254, b"\xfe\x14", collation=60)  # CHAR(5) utf32
    assert encode_value(col, "a ") == b"\x04\x00\x00\x00a"
    # a 0x20 low byte that is not a space code unit is kept: U+0120 in ucs2 is 01 20
    col = ColumnDesc(254, b"\xfe\x0a", collation=35)
    assert encode_value(col, "a\u0120") == b"\x04\x00a\x01\x20"


def test_enum_and_set_storage():
    members = tuple(f"m{i}" for i in range(300))
    col = ColumnDesc(254, b"\xf7\x02", enum_values=members)
    assert encode_value(col, "m299") == (300).to_bytes(2, "little")
    assert decode_value(col, b"\x00\x00")[0] == ""  # index 0: the invalid-value entry, not the last member
    scol = ColumnDesc(254, b"\xf8\x08", set_values=tuple(f"s{i}" for i in range(64)))
    assert encode_value(scol, {"s0", "s63"}) == ((1 << 63) | 1).to_bytes(8, "little")


def test_json_worked_examples():
    assert encode_json({"a": 2}) == bytes.fromhex("0001000c000b00010005020061")
    assert encode_json({"a": "b", "c": "d", "ab": "abc", "bc": ["x", "y"]}) == bytes.fromhex(
        "00 04003c00 20000100 21000100 22000200 24000200 0c2600 0c2800 0c2a00 022e00"
        " 616361626263 0162 0164 03616263 02000e000c0a000c0c0001780179".replace(" ", ""))


def test_json_opaque_decimal_with_a_wider_precision_keeps_it():
    from binlogwriter.values import JsonDecimal, decode_json

    # opaque DECIMAL as CAST(DECIMAL(10,2) column AS JSON) would store it: precision 10, scale 2,
    # decimal2bin(10,2) of 1.50 = 80 00 00 01 32 (values.md §3 layout, hand-assembled)
    doc = bytes.fromhex("0ff607" + "0a02" + "8000000132")
    v = decode_json(doc)
    assert isinstance(v, JsonDecimal) and v == Decimal("1.50") and v.precision == 10
    assert encode_json(v) == doc


def test_json_opaque_that_would_not_reencode_stays_opaque():
    from binlogwriter.values import JsonOpaque, decode_json

    doc = bytes.fromhex("0f0a07" + "00000000001e95")  # a DATE opaque of 7 bytes, not 8
    assert decode_json(doc) == JsonOpaque(10, bytes.fromhex("00000000001e95"))
    assert encode_json(decode_json(doc)) == doc
    zero = bytes.fromhex("0f0c08" + "00" * 8)  # zero DATETIME
    assert decode_json(zero) == MysqlDateTime(0, 0, 0) and encode_json(decode_json(zero)) == zero


def test_codecs_satisfy_the_value_codec_protocol():
    col = ColumnDesc(246, bytes([4, 2]), name="c", table="t")
    codec = codec_for(col)
    assert 246 in codec.type_codes
    assert codec.encode(col, Decimal("-10.55")) == bytes.fromhex("75c8")
    assert codec.decode(col, bytes.fromhex("0075c8"), 1) == (Decimal("-10.55"), 3)
