"""Row images written by a real MariaDB 10.11.19 (local server, ROW format, v1 rows events).

Captured for this test file: ``mariadbd --mysql56-temporal-format=OFF`` (then ON for table
``n``), ``time_zone='+00:00'``, ``sql_mode=''``; the hex is the row image of the
WRITE_ROWS_EVENT_V1 body after ``table_id · flags · width · columns bitmap``. The DDL/INSERT
are in each case's comment. Every image must decode to the inserted values and re-encode
byte-identically (null-bitmap padding included: MariaDB writes ones).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from binlogwriter.values import (
    ABSENT,
    ColumnDesc,
    Geometry,
    MysqlDate,
    MysqlDateTime,
    decode_row_image,
    encode_row_image,
)

UTC = dt.UTC
MDB = "mariadb1011"


def td(h=0, m=0, s=0, us=0, neg=False):
    v = dt.timedelta(hours=h, minutes=m, seconds=s, microseconds=us)
    return -v if neg else v


# CREATE TABLE t (d3 DATETIME(3), d1 DATETIME(1), d6 DATETIME(6), t3 TIME(3), ts3 TIMESTAMP(3) NULL,
#   c1 CHAR(5) CHARACTER SET ucs2, b4 BINARY(4), u UUID)   -- mysql56_temporal_format=OFF
# Table_map types 0c 0c 0c 0b 07 fe fe fe, metadata fe0a fe04 fe10
T_COLS = (
    ColumnDesc(12, fsp=3, name="d3", table="t", flavor=MDB),
    ColumnDesc(12, fsp=1, name="d1", table="t", flavor=MDB),
    ColumnDesc(12, fsp=6, name="d6", table="t", flavor=MDB),
    ColumnDesc(11, fsp=3, name="t3", table="t", flavor=MDB),
    ColumnDesc(7, fsp=3, name="ts3", table="t", flavor=MDB),
    ColumnDesc(254, b"\xfe\x0a", collation=35, name="c1", table="t", flavor=MDB),
    ColumnDesc(254, b"\xfe\x04", collation=63, name="b4", table="t", flavor=MDB),
    ColumnDesc(254, b"\xfe\x10", collation=63, name="u", table="t", flavor=MDB),
)
# INSERT INTO t VALUES ('2024-02-29 12:34:56.789', '2024-02-29 12:34:56.7', '9999-12-31 23:59:59.999999',
#   '-12:34:56.789', '2001-02-03 04:05:06.123', 'ab  ', 'a\0\0\0', '00112233-4455-6677-8899-aabbccddeeff')
T_ROW = ("00 00422bb59e9895 00a965a7fc67 04fcee3943bfffff 00b15478eb 3a7b8372007b 0400610062 0161"
         " 1000112233445566778899aabbccddeeff")
T_VALUES = (
    dt.datetime(2024, 2, 29, 12, 34, 56, 789000),
    dt.datetime(2024, 2, 29, 12, 34, 56, 700000),
    dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
    td(12, 34, 56, 789000, neg=True),
    dt.datetime(2001, 2, 3, 4, 5, 6, 123000, tzinfo=UTC),
    "ab",  # CHAR: trailing spaces are not logged and not returned
    b"a\x00\x00\x00",  # BINARY(4): logged as 'a', returned padded to 4 bytes
    bytes.fromhex("00112233445566778899aabbccddeeff"),
)

# CREATE TABLE o (t0 TIME, d0 DATETIME, s0 TIMESTAMP NULL, t1 TIME(1), t6 TIME(6), s1 TIMESTAMP(1) NULL,
#   dz DATETIME(2), dt0 DATE)   -- mysql56_temporal_format=OFF: types 0b 0c 07 0b 0b 07 0c 0a, no metadata
O_COLS = tuple(ColumnDesc(code, fsp=fsp, name=n, table="o", flavor=MDB) for code, fsp, n in (
    (11, 0, "t0"), (12, 0, "d0"), (7, 0, "s0"), (11, 1, "t1"), (11, 6, "t6"), (7, 1, "s1"),
    (12, 2, "dz"), (10, None, "dt0")))
O_ROWS = [
    # ('-838:59:59', '9999-12-31 23:59:59', '2038-01-19 03:14:07', '-838:59:59.9', '-00:00:00.000001',
    #  '2001-02-03 04:05:06.9', '0000-00-00 00:00:00', '0000-00-00')
    ("00 590a80 7787d105f15a0000 ffffff7f 00000001 02bf3dde7bff 3a7b837209 000000000000 000000",
     (td(838, 59, 59, neg=True), dt.datetime(9999, 12, 31, 23, 59, 59),
      dt.datetime(2038, 1, 19, 3, 14, 7, tzinfo=UTC), td(838, 59, 59, 900000, neg=True),
      td(us=1, neg=True), dt.datetime(2001, 2, 3, 4, 5, 6, 900000, tzinfo=UTC),
      MysqlDateTime(0, 0, 0), MysqlDate(0, 0, 0))),
    # ('12:34:56', '2001-02-03 04:05:06', '1970-01-01 00:00:01', '00:00:00.1', '838:59:59.999999',
    #  '2001-02-03 04:05:06.0', '2016-00-28 15:30:42.12', '2016-10-00')
    ("00 40e201 fa4a0bfd32120000 01000000 01cce061 057e7bbcf7ff 3a7b837200 069725489d54 40c10f",
     (td(12, 34, 56), dt.datetime(2001, 2, 3, 4, 5, 6), dt.datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC),
      td(us=100000), td(838, 59, 59, 999999), dt.datetime(2001, 2, 3, 4, 5, 6, tzinfo=UTC),
      MysqlDateTime(2016, 0, 28, 15, 30, 42, 120000), MysqlDate(2016, 10, 0))),
]

# SET GLOBAL mysql56_temporal_format=ON; CREATE TABLE n (t3 TIME(3), d4 DATETIME(4), s2 TIMESTAMP(2) NULL,
#   j JSON, e ENUM('a','b'), st SET('x','y','z'), bt BIT(10), y YEAR, f FLOAT, c10 CHAR(10) CHARACTER SET utf32)
# types 13 12 11 fc fe fe 10 0d 04 fe, metadata 03 04 02 04 f701 f801 0201 04 fe28 (MariaDB JSON = LONGTEXT)
N_COLS = (
    ColumnDesc(19, b"\x03", name="t3", table="n", flavor=MDB),
    ColumnDesc(18, b"\x04", name="d4", table="n", flavor=MDB),
    ColumnDesc(17, b"\x02", name="s2", table="n", flavor=MDB),
    ColumnDesc(252, b"\x04", collation=46, name="j", table="n", flavor=MDB),
    ColumnDesc(254, b"\xf7\x01", enum_values=("a", "b"), name="e", table="n", flavor=MDB),
    ColumnDesc(254, b"\xf8\x01", set_values=("x", "y", "z"), name="st", table="n", flavor=MDB),
    ColumnDesc(16, b"\x02\x01", name="bt", table="n", flavor=MDB),
    ColumnDesc(13, name="y", table="n", flavor=MDB),
    ColumnDesc(4, b"\x04", name="f", table="n", flavor=MDB),
    ColumnDesc(254, b"\xfe\x28", collation=60, name="c10", table="n", flavor=MDB),
)
N_ROWS = [
    # ('-00:00:01.5', '0000-00-00 00:00:00.0000', '1970-01-01 00:00:01.01', '{"a": 2}', 'b', 'x,z',
    #  b'1010101010', 2155, 0.1, 'a  ')  -- 10 columns: null bitmap 00 fc (padding ones)
    ("00fc 7ffffeec78 80000000000000 0000000101 080000007b2261223a20327d 02 05 02aa ff cdcccc3d 0400000061",
     (td(0, 0, 1, 500000, neg=True), MysqlDateTime(0, 0, 0),
      dt.datetime(1970, 1, 1, 0, 0, 1, 10000, tzinfo=UTC), '{"a": 2}', "b", frozenset({"x", "z"}),
      0b1010101010, 2155, 0.10000000149011612, "a"), 0xFC),
    # INSERT INTO n (t3) VALUES ('01:00:00')  -- the other 9 columns NULL: fe ff
    ("feff 8010000000", (td(1),) + (None,) * 9, 0xFC),
]


def _check(cols, hexrow, expected, pad):
    raw = bytes.fromhex(hexrow.replace(" ", ""))
    present = [True] * len(cols)
    values, got_pad, pos = decode_row_image(cols, present, raw, 0)
    assert pos == len(raw)
    assert values == expected
    assert got_pad == pad
    assert encode_row_image(cols, present, values, null_pad=got_pad) == raw
    assert encode_row_image(cols, present, expected, null_pad=-1) == raw


def test_mariadb_hires_datetime_char_binary_uuid_row():
    _check(T_COLS, T_ROW, T_VALUES, 0)


@pytest.mark.parametrize("hexrow,expected", O_ROWS)
def test_mariadb_old_temporal_rows(hexrow, expected):
    _check(O_COLS, hexrow, expected, 0)


@pytest.mark.parametrize("hexrow,expected,pad", N_ROWS)
def test_mariadb_mysql56_temporal_and_misc_rows(hexrow, expected, pad):
    _check(N_COLS, hexrow, expected, pad)


def test_partial_image_absent_columns():
    raw = bytes.fromhex("feff8010000000")
    present = [True] * 10
    values, _, _ = decode_row_image(N_COLS, present, raw, 0)
    # drop two columns from the image: they come back ABSENT, not NULL
    present2 = [True] * 8 + [False, False]
    img = encode_row_image(N_COLS, present2, values, null_pad=-1)
    back, pad, pos = decode_row_image(N_COLS, present2, img, 0)
    assert back[:8] == values[:8] and back[8:] == (ABSENT, ABSENT) and pos == len(img)
    assert img[:1] == b"\xfe" and pad == 0  # 8 present columns: no padding bits


# CREATE TABLE s (i8 TINYINT, u8 TINYINT UNSIGNED, i24 MEDIUMINT, i64 BIGINT, u64 BIGINT UNSIGNED,
#   dec1 DECIMAL(65,30), dec2 DECIMAL(9,9), dbl DOUBLE, bt64 BIT(64), vc300 VARCHAR(300) CHARACTER SET utf8mb4,
#   vgbk VARCHAR(10) CHARACTER SET gbk, clat CHAR(3) CHARACTER SET latin1, c100 CHAR(100) CHARACTER SET utf8mb4,
#   vbin VARBINARY(300), tt TINYTEXT CHARACTER SET utf8mb3, mb MEDIUMBLOB, e300 ENUM('m0',…,'m299'),
#   s64 SET('s0',…,'s63'), u16 CHAR(3) CHARACTER SET utf16, u16le CHAR(2) CHARACTER SET utf16le, y YEAR,
#   g GEOMETRY, i6 INET6, d DATE)   -- default collation utf8mb4_general_ci (45)
# Table_map types 01 01 09 08 08 f6 f6 05 10 0f 0f fe fe 0f fc fc fe fe fe fe 0d ff fe 0a, metadata
#   411e 0909 08 0008 b004 1400 fe03 ee90 2c01 01 03 f702 f808 fe0c fe08 04 fe10
S_COLS = tuple(ColumnDesc(code, bytes.fromhex(meta), unsigned=u, collation=coll, name=name, table="s", flavor=MDB,
                          enum_values=tuple(f"m{i}" for i in range(300)) if name == "e300" else None,
                          set_values=tuple(f"s{i}" for i in range(64)) if name == "s64" else None)
               for name, code, meta, u, coll in (
    ("i8", 1, "", False, None), ("u8", 1, "", True, None), ("i24", 9, "", False, None),
    ("i64", 8, "", False, None), ("u64", 8, "", True, None), ("dec1", 246, "411e", False, None),
    ("dec2", 246, "0909", False, None), ("dbl", 5, "08", False, None), ("bt64", 16, "0008", False, None),
    ("vc300", 15, "b004", False, 45), ("vgbk", 15, "1400", False, 28), ("clat", 254, "fe03", False, 8),
    ("c100", 254, "ee90", False, 45), ("vbin", 15, "2c01", False, 63), ("tt", 252, "01", False, 33),
    ("mb", 252, "03", False, 63), ("e300", 254, "f702", False, 45), ("s64", 254, "f808", False, 45),
    ("u16", 254, "fe0c", False, 54), ("u16le", 254, "fe08", False, 56), ("y", 13, "", False, None),
    ("g", 255, "04", False, None), ("i6", 254, "fe10", False, 63), ("d", 10, "", False, None)))
# INSERT INTO s VALUES (-128, 255, -8388608, -9223372036854775808, 18446744073709551615,
#   '-12345678901234567890123456789012345.123456789012345678901234567890', 0.000000001, -2.5e-300,
#   b'1000…0001', REPEAT('é', 300), '中文ab', 'é€ ', REPEAT('ü', 99), x'00ff00', 'ab', REPEAT('z', 300),
#   'm299', 's0,s63', 'a😀', 'x ', 2000, ST_GeomFromText('POINT(1.5 -2)', 4326), '::1', '2024-02-29')
S_ROW = (
    '00000080ff0000800000000000000080ffffffffffffffff7f439eb1ca484078caf1cb3fd0f8a086f8a432eaff439eb1ca48'
    '4078fc85800000012f30b7b3a7c9ba8180000000000000015802c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9'
    'c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9'
    'c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9'
    'c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9'
    'c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9'
    'c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9'
    'c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9'
    'c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9'
    'c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9'
    'c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9'
    'c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9'
    'c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9'
    'c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a906d6d0cec4616202e980c600c3bcc3bcc3bcc3bcc3bcc3bc'
    'c3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bc'
    'c3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bc'
    'c3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bc'
    'c3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bc030000ff000261622c01007a7a7a'
    '7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a'
    '7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a'
    '7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a'
    '7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a'
    '7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a'
    '7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a2c0101'
    '00000000000080060061d83dde000278006419000000e61000000101000000000000000000f83f00000000000000c0100000'
    '00000000000000000000000000015dd00f'
)
S_VALUES = (
    -128, 255, -8388608, -(1 << 63), (1 << 64) - 1,
    Decimal("-12345678901234567890123456789012345.123456789012345678901234567890"), Decimal("0.000000001"),
    -2.5e-300, (1 << 63) | 1, "é" * 300, "中文ab", "é€", "ü" * 99, b"\x00\xff\x00", "ab", b"z" * 300,
    "m299", frozenset({"s0", "s63"}), "a😀", "x", 2000,
    Geometry(4326, bytes.fromhex("0101000000000000000000f83f00000000000000c0")),
    bytes(15) + b"\x01", dt.date(2024, 2, 29),
)


def test_mariadb_numbers_strings_charsets_enum300_set64_geometry_inet6_row():
    _check(S_COLS, S_ROW, S_VALUES, 0)
