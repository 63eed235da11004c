"""Property tests: value -> bytes -> value for every column type, and row images (format.md §13)."""

from __future__ import annotations

import datetime as dt
import struct
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.strategies.codec import (
    ALL_COLUMNS,
    big_json,
    big_json_params,
    bits,
    blobs,
    chars,
    col,
    dates,
    datetimes,
    decimals,
    enum_set_unknown,
    enums,
    floats,
    geometries,
    integers,
    json_expected,
    jsons,
    sets,
    times,
    timestamps,
    unknown_charset_strings,
    varchars,
    years,
)
from binlogwriter.values import (
    ABSENT,
    JsonUInt,
    MysqlDate,
    MysqlDateTime,
    decode_row_image,
    decode_value,
    encode_row_image,
    encode_value,
)
from binlogwriter.values.json_binary import JsonKeptArray, JsonKeptObject


def same(expected, got) -> bool:
    """Equality that also checks types (1 != 1.0 != True here) and float bits."""
    if isinstance(expected, dict):
        return type(got) in (dict, JsonKeptObject) and list(expected) and set(expected) == set(got) and all(
            same(v, got[k]) for k, v in expected.items()) or (expected == {} and got == {})
    if isinstance(expected, list):
        return type(got) in (list, JsonKeptArray) and len(got) == len(expected) and all(
            same(e, g) for e, g in zip(expected, got, strict=True))
    if isinstance(expected, float):
        return type(got) is float and struct.pack("<d", expected) == struct.pack("<d", got)
    if isinstance(expected, bool) or expected is None:
        return got is expected
    if type(expected) is int and expected >= 1 << 63:
        return type(got) in (int, JsonUInt) and got == expected  # JSON: a uint64 node
    if isinstance(expected, Decimal):
        return isinstance(got, Decimal) and got == expected
    if isinstance(expected, dt.datetime) and expected.tzinfo is not None:
        return type(got) is dt.datetime and got == expected and got.utcoffset() == dt.timedelta(0)
    return type(got) is type(expected) and got == expected


def roundtrip(case):
    col, value, expected = case
    raw = encode_value(col, value)
    tail = b"\xa5\x5a"  # bytes of "the next column" must be left alone
    got, pos = decode_value(col, raw + tail, 0)
    assert pos == len(raw), (col, value, raw.hex())
    assert same(expected, got), (col, value, expected, got)
    # decode -> encode is byte-exact
    assert encode_value(col, got) == raw
    # memoryview input works the same
    assert decode_value(col, memoryview(b"\x00" + raw), 1)[1] == len(raw) + 1


@given(integers())
def test_integers_roundtrip(case):
    roundtrip(case)


@given(floats())
def test_float_double_roundtrip(case):
    roundtrip(case)


@given(decimals())
def test_decimal_roundtrip_every_precision_scale(case):
    roundtrip(case)
    col, _, expected = case
    got = decode_value(col, encode_value(col, expected))[0]
    assert -got.as_tuple().exponent == col.meta[1]  # exactly `scale` fraction digits


@given(bits())
def test_bit_roundtrip(case):
    roundtrip(case)


@given(years())
def test_year_roundtrip(case):
    roundtrip(case)


@given(dates())
def test_date_roundtrip(case):
    roundtrip(case)


@given(times())
def test_time_roundtrip_all_fsp_negative_and_old(case):
    roundtrip(case)


@given(datetimes())
def test_datetime_roundtrip_all_fsp_zero_dates_and_old(case):
    roundtrip(case)


@given(timestamps())
def test_timestamp_roundtrip(case):
    roundtrip(case)


@given(varchars())
def test_varchar_roundtrip_charsets_and_lengths(case):
    roundtrip(case)


@given(chars())
def test_char_binary_roundtrip_pad_stripped(case):
    roundtrip(case)


@given(blobs())
def test_blob_text_roundtrip(case):
    roundtrip(case)


@given(unknown_charset_strings())
def test_unknown_collation_strings_stay_bytes(case):
    roundtrip(case)


@given(enums())
def test_enum_roundtrip_up_to_300_members(case):
    roundtrip(case)


@given(sets())
def test_set_roundtrip_up_to_64_members(case):
    roundtrip(case)


@given(enum_set_unknown())
def test_enum_set_without_members_are_ints(case):
    roundtrip(case)


@given(geometries())
def test_geometry_roundtrip(case):
    roundtrip(case)


@given(jsons())
def test_json_roundtrip(case):
    roundtrip(case)


@settings(max_examples=15)
@given(big_json_params)
def test_json_large_containers_roundtrip(params):
    value = big_json(*params)
    c = col(245, b"\x04")
    raw = encode_value(c, value)
    doc = raw[4:]
    assert len(doc) > 65535
    # the outermost container holds > 64 KiB, so it is large (type 0x01 / 0x03)
    assert doc[0] in (0x01, 0x03)
    roundtrip((c, value, json_expected(value)))


def test_json_small_large_boundary_is_65535_bytes():
    from binlogwriter.values import decode_json, encode_json

    # array of one string: size = 4 (count, size) + 3 (entry) + 3 (varlen) + n
    at_limit = encode_json(["x" * 65525])
    assert at_limit[0] == 0x02 and at_limit[3:5] == (65535).to_bytes(2, "little")
    over = encode_json(["x" * 65526])
    assert over[0] == 0x03 and over[5:9] == (8 + 5 + 3 + 65526).to_bytes(4, "little")
    assert decode_json(over) == ["x" * 65526]


def test_json_small_container_with_a_large_child_stays_small_if_it_fits():
    # a large array (> 64 KiB) as the last child: the parent's own offsets fit u16 but its
    # size does not, so the parent is large too; a tiny parent of a tiny child stays small.
    from binlogwriter.values import encode_json

    assert encode_json([[1]])[0] == 0x02 and encode_json([[1]])[5] == 0x02
    doc = encode_json({"a": ["x" * 70000]})
    assert doc[0] == 0x01  # object size > 65535 -> large
    assert doc[0] == 0x01 and doc[1:5] == (1).to_bytes(4, "little")


def test_json_int32_inlined_only_in_large_containers():
    from binlogwriter.values import decode_json, encode_json

    small = encode_json([70000])
    assert small == bytes.fromhex("02 0100 0b00 07 0700 70110100".replace(" ", ""))
    big = encode_json([70000, "x" * 70000])
    assert big[0] == 0x03 and big[9:14] == b"\x07" + (70000).to_bytes(4, "little")
    assert decode_json(big) == [70000, "x" * 70000]


def test_json_depth_100_is_accepted():
    from binlogwriter.values import decode_json, encode_json

    v: list = []
    for _ in range(99):
        v = [v]
    assert decode_json(encode_json(v)) == v


# ---------------------------------------------------------------- row images

@st.composite
def row_cases(draw):
    n = draw(st.integers(1, 20))
    cases = [draw(ALL_COLUMNS) for _ in range(n)]
    cols = tuple(c for c, _, _ in cases)
    present = [draw(st.booleans()) for _ in range(n)]
    nulls = [draw(st.integers(0, 3)) == 0 for _ in range(n)]
    values = [ABSENT if not p else None if z else v for (_, v, _), p, z in zip(cases, present, nulls, strict=True)]
    expected = [ABSENT if not p else None if z else e for (_, _, e), p, z in zip(cases, present, nulls, strict=True)]
    pad = draw(st.sampled_from((0, -1)))
    return cols, present, values, expected, pad


@settings(max_examples=60)
@given(row_cases())
def test_row_image_roundtrip_with_both_paddings(case):
    cols, present, values, expected, pad = case
    raw = encode_row_image(cols, present, values, null_pad=pad)
    got, got_pad, pos = decode_row_image(cols, present, raw + b"\x99", 0)
    assert pos == len(raw)
    k = sum(present)
    nb = (k + 7) // 8
    assert len(raw) >= nb
    rem = k % 8
    assert got_pad == (((0xFF << rem) & 0xFF) if rem and pad == -1 else 0)
    for e, g in zip(expected, got, strict=True):
        assert (g is e) if e is ABSENT or e is None else same(e, g)
    # byte-exact re-encode with the padding that was read
    assert encode_row_image(cols, present, got, null_pad=got_pad) == raw
    # null bits: 1 = NULL, LSB first over present columns only
    bits = int.from_bytes(raw[:nb], "little")
    present_vals = [v for v, p in zip(values, present, strict=True) if p]
    for j, v in enumerate(present_vals):
        assert bool(bits >> j & 1) == (v is None)


def test_row_image_mysql8_and_mariadb_padding_bytes():
    from binlogwriter.values import ColumnDesc

    cols = tuple(ColumnDesc(1, name=f"c{i}", table="t") for i in range(11))
    vals = list(range(11))
    assert encode_row_image(cols, [True] * 11, vals, null_pad=0)[:2] == b"\x00\x00"
    assert encode_row_image(cols, [True] * 11, vals, null_pad=-1)[:2] == b"\x00\xf8"  # mariadb.md
    only0 = [0] + [None] * 10
    assert encode_row_image(cols, [True] * 11, only0, null_pad=-1)[:2] == b"\xfe\xff"  # mariadb.md


def test_zero_date_classes_compare_equal_whatever_their_strictness():
    assert MysqlDate(0, 0, 0) == MysqlDate(0, 0, 0, strict=False)
    assert MysqlDateTime(2016, 0, 28, 1) == MysqlDateTime(2016, 0, 28, 1, strict=False)
    assert hash(MysqlDate(0, 0, 0)) == hash(MysqlDate(0, 0, 0, strict=False))


def test_json_object_made_large_by_its_keys():
    from binlogwriter.values import decode_json, encode_json

    d = {f"k{i:05d}" * 10: i for i in range(2000)}  # 120 kB of keys, small int values
    doc = encode_json(d)
    assert doc[0] == 0x01 and int.from_bytes(doc[1:5], "little") == 2000
    assert decode_json(doc) == d
    # keys are stored by length then bytes; the int16 values are inlined (4-byte slots)
    assert doc[9 + 2000 * 6] == 0x05


# collation ids: dec8, hp8, swe7, armscii8, keybcs2, geostd8 (codecs from the server's tables,
# docs/charsets.md rule 6), sjis, euckr, eucjpms (Python's codecs less what the server reads otherwise)
_SERVER_TABLE_COLLATIONS = (3, 6, 10, 32, 37, 92, 13, 19, 97)


@given(st.sampled_from(_SERVER_TABLE_COLLATIONS), st.binary(max_size=60))
def test_any_stored_bytes_decode_and_encode_back_in_every_charset(cid, data):
    """Whatever bytes a server stored (armscii8 reads 0xA5 and 0x29 both as ')'), the value
    decoded from them — text, or bytes where the codec cannot decode — encodes to those bytes."""
    c = col(15, (60).to_bytes(2, "little"), collation=cid)
    raw = bytes([len(data)]) + data
    got, pos = decode_value(c, raw, 0)
    assert pos == len(raw)
    assert encode_value(c, got) == raw


@given(st.lists(st.sampled_from(["", "a", "b", "é", "x y"]), min_size=1, max_size=5, unique=True),
       st.integers(0, 5))
def test_enum_index_zero_and_an_empty_member_stay_apart(members, index):
    """Index 0 (the server's value for an invalid one) reads back as ``''`` unless ``''`` is a
    member, then as ``0``: every stored index decodes to a value that encodes to it."""
    c = col(254, bytes([0xF7, 1]), enum_values=tuple(members))
    raw = bytes([min(index, len(members))])
    got, _ = decode_value(c, raw, 0)
    assert encode_value(c, got) == raw
    if raw == b"\x00":
        assert got == ("" if "" not in members else 0) and type(got) is (str if "" not in members else int)
