"""Codec-level strategies: ``(ColumnDesc, Python value written, value decoded)`` triples.

These work one level below :mod:`binlogwriter.strategies` (no table, no DDL): each draws the
binlog column metadata too (precision/scale, fsp, collation ids, lengths crossing 255, ENUM
with up to 300 members, SET with up to 64) and a value in one of the *input* forms the codec
accepts (``MysqlTime`` or ``timedelta``, a SET as a frozenset, a comma list or a bitmask, …),
with the value decoding gives back (docs/python-types.md). Use them to property-test a value
codec::

    from hypothesis import given
    from binlogwriter.strategies.codec import ALL_COLUMNS
    from binlogwriter.values import decode_value, encode_value

    @given(ALL_COLUMNS)
    def test_value_roundtrip(case):
        col, value, expected = case
        assert decode_value(col, encode_value(col, value), 0)[0] == expected
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from binlogwriter.charsets import collation
from binlogwriter.values import (
    JSON_NULL,
    ColumnDesc,
    Geometry,
    JsonOpaque,
    JsonTimestamp,
    JsonUInt,
    MysqlDate,
    MysqlDateTime,
    MysqlTime,
)

UTC = dt.UTC
# collation ids: latin1, gbk, ucs2, utf16, utf16le, utf32, utf8mb3, utf8mb4 (MySQL + MariaDB default)
TEXT_COLLATIONS = (8, 28, 35, 54, 56, 60, 33, 255, 45)
BINARY = 63


def col(code, meta=b"", **kw) -> ColumnDesc:
    return ColumnDesc(code, bytes(meta), table="db.t", name=f"c{code}", **kw)


# ---------------------------------------------------------------- numbers

_INT_WIDTH = {1: 1, 2: 2, 9: 3, 3: 4, 8: 8}


@st.composite
def integers(draw):
    code = draw(st.sampled_from(sorted(_INT_WIDTH)))
    unsigned = draw(st.booleans())
    bits = 8 * _INT_WIDTH[code]
    lo, hi = (0, (1 << bits) - 1) if unsigned else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    v = draw(st.one_of(st.integers(lo, hi), st.sampled_from((lo, hi, 0 if unsigned else -1))))
    return col(code, unsigned=unsigned), v, v


@st.composite
def floats(draw):
    if draw(st.booleans()):
        v = draw(st.floats(allow_nan=False, allow_infinity=False))
        return col(5, b"\x08"), v, v
    v = draw(st.floats(min_value=-3.4e38, max_value=3.4e38, allow_nan=False))
    expected = float(np.float32(v))  # the float32 the server keeps (C cast, round half to even)
    return col(4, b"\x04"), v, expected


@st.composite
def decimals(draw):
    p = draw(st.integers(1, 65))
    s = draw(st.integers(0, min(p, 30)))
    intg = p - s
    ipart = draw(st.integers(0, 10 ** intg - 1)) if intg else 0
    fpart = draw(st.integers(0, 10 ** s - 1)) if s else 0
    neg = draw(st.booleans()) and (ipart or fpart)
    text = f"{'-' if neg else ''}{ipart}" + (f".{fpart:0{s}d}" if s else "")
    d = Decimal(text)
    # feed it with fewer fraction digits when the trailing ones are zeros (still exact)
    value = d.normalize() if draw(st.booleans()) and d == d.normalize() and not d.is_zero() else d
    return col(246, bytes([p, s])), value, d


@st.composite
def bits(draw):
    m = draw(st.integers(1, 64))
    v = draw(st.integers(0, (1 << m) - 1))
    return col(16, bytes([m % 8, m // 8])), v, v


@st.composite
def years(draw):
    v = draw(st.one_of(st.just(0), st.integers(1901, 2155)))
    return col(13), v, v


# ---------------------------------------------------------------- temporal

def _trunc(us: int, fsp: int) -> int:
    q = 10 ** (6 - fsp)
    return us // q * q


@st.composite
def dates(draw):
    if draw(st.integers(0, 4)) == 0:
        y, m, d = draw(st.sampled_from([(0, 0, 0), (2016, 0, 28), (2016, 10, 0), (0, 1, 1), (0, 0, 1)]))
        return col(10), MysqlDate(y, m, d), MysqlDate(y, m, d)
    v = draw(st.dates())
    return col(10), v, v


@st.composite
def times(draw):
    """TIME2, and the old TIME with a MariaDB fsp."""
    fsp = draw(st.integers(0, 6))
    old = draw(st.booleans())
    us = draw(st.integers(-(838 * 3600 + 3599) * 10 ** 6 - 999_999, (838 * 3600 + 3599) * 10 ** 6 + 999_999))
    us = _trunc(abs(us), fsp) * (1 if us >= 0 else -1)
    td = dt.timedelta(microseconds=us)
    c = col(11, fsp=fsp, flavor="mariadb1011") if old else col(19, bytes([fsp]))
    form = draw(st.integers(0, 2))
    value = MysqlTime.from_timedelta(td) if form == 1 else td
    if form == 2 and 0 <= us < 86400 * 10 ** 6:
        value = (dt.datetime.min + td).time()
    return c, value, td


@st.composite
def datetimes(draw):
    fsp = draw(st.integers(0, 6))
    old = draw(st.integers(0, 2)) == 0
    c = col(12, fsp=fsp, flavor="mariadb1011") if old else col(18, bytes([fsp]))
    if draw(st.integers(0, 5)) == 0:
        us = _trunc(draw(st.integers(0, 999_999)), fsp)
        y, m, d = draw(st.sampled_from([(0, 0, 0), (2016, 0, 28), (2016, 10, 0), (0, 1, 1)]))
        h, mi, s = (0, 0, 0) if (y, m, d) == (0, 0, 0) and draw(st.booleans()) else (23, 59, 59)
        v = MysqlDateTime(y, m, d, h, mi, s, us)
        return c, v, v
    v = draw(st.datetimes())
    v = v.replace(microsecond=_trunc(v.microsecond, fsp))
    return c, v, v


@st.composite
def timestamps(draw):
    fsp = draw(st.integers(0, 6))
    old = draw(st.integers(0, 2)) == 0
    c = col(7, fsp=fsp, flavor="mariadb1011") if old else col(17, bytes([fsp]))
    if draw(st.integers(0, 9)) == 0:
        return c, draw(st.sampled_from([0, MysqlDateTime(0, 0, 0)])), MysqlDateTime(0, 0, 0)
    secs = draw(st.integers(1, (1 << 31) - 1))
    us = _trunc(draw(st.integers(0, 999_999)), fsp)
    expected = dt.datetime(1970, 1, 1, tzinfo=UTC) + dt.timedelta(seconds=secs, microseconds=us)
    form = draw(st.integers(0, 3))
    if form == 0:
        value = expected
    elif form == 1:
        value = expected.replace(tzinfo=None)  # naive = UTC
    elif form == 2:
        value = expected.astimezone(dt.timezone(dt.timedelta(hours=draw(st.integers(-12, 14)))))
    else:
        if us:
            value = expected
        else:
            value = secs
    return c, value, expected


# ---------------------------------------------------------------- strings

def _alphabet(cid: int):
    cs = collation(cid).charset
    if cs == "latin1":
        return st.characters(codec="cp1252")
    if cs == "gbk":
        return st.characters(codec="gbk")
    if cs in ("ucs2", "utf8mb3"):
        return st.characters(max_codepoint=0xFFFF, exclude_categories=("Cs",))
    return st.characters(exclude_categories=("Cs",))


@st.composite
def text_for(draw, cid: int, max_chars: int, max_bytes: int):
    coll = collation(cid)
    s = draw(st.text(_alphabet(cid), max_size=max_chars))
    s = s[:max_chars]
    while s and len(coll.encode(s)) > max_bytes:
        s = s[:-1]
    assume(coll.decode(coll.encode(s)) == s)  # Python codecs with many-to-one mappings
    return s


@st.composite
def varchars(draw):
    if draw(st.integers(0, 3)) == 0:
        n = draw(st.integers(0, 600))
        c = col(15, n.to_bytes(2, "little"), collation=BINARY)
        v = draw(st.binary(max_size=n))
        return c, v, v
    cid = draw(st.sampled_from(TEXT_COLLATIONS))
    mb = collation(cid).mbmaxlen
    n = draw(st.integers(0, 300))  # n × mbmaxlen crosses 255
    c = col(15, (n * mb).to_bytes(2, "little"), collation=cid)
    v = draw(text_for(cid, n, n * mb))
    return c, v, v


def _char_meta(real: int, length: int) -> bytes:
    return bytes([real ^ ((length & 0x300) >> 4), length & 0xFF])


@st.composite
def chars(draw):
    if draw(st.integers(0, 3)) == 0:
        n = draw(st.integers(0, 255))
        c = col(254, _char_meta(254, n), collation=BINARY)
        v = draw(st.binary(max_size=n))
        return c, v, v.ljust(n, b"\x00")
    cid = draw(st.sampled_from(TEXT_COLLATIONS))
    mb = collation(cid).mbmaxlen
    n = draw(st.integers(0, 255))
    c = col(254, _char_meta(254, n * mb), collation=cid)
    v = draw(text_for(cid, n, n * mb))
    if draw(st.booleans()):
        v = (v + " " * 3)[: max(len(v), n)]  # trailing spaces: not part of a CHAR value
    return c, v, v.rstrip(" ")


@st.composite
def blobs(draw):
    lb = draw(st.integers(1, 4))
    limit = min((1 << (8 * lb)) - 1, 700)
    if draw(st.booleans()):
        c = col(252, bytes([lb]), collation=BINARY)
        v = draw(st.binary(max_size=limit))
        return c, v, v
    cid = draw(st.sampled_from(TEXT_COLLATIONS))
    c = col(252, bytes([lb]), collation=cid)
    v = draw(text_for(cid, limit, limit))
    return c, v, v


@st.composite
def unknown_charset_strings(draw):
    code = draw(st.sampled_from((15, 252, 254)))
    v = draw(st.binary(max_size=200))
    meta = {15: (300).to_bytes(2, "little"), 252: b"\x02", 254: _char_meta(254, 200)}[code]
    return col(code, meta), v, v


@st.composite
def enums(draw):
    n = draw(st.integers(1, 300))
    members = tuple(f"m{i}" for i in range(n))
    storage = 1 if n <= 255 else 2
    c = col(254, bytes([0xF7, storage]), enum_values=members)
    i = draw(st.integers(0, n))
    if i == 0:
        return c, draw(st.sampled_from(("", 0))), ""
    return c, draw(st.sampled_from((members[i - 1], i))), members[i - 1]


@st.composite
def sets(draw):
    n = draw(st.integers(1, 64))
    members = tuple(f"s{i}" for i in range(n))
    storage = next(b for b in (1, 2, 3, 4, 8) if 8 * b >= n)
    c = col(254, bytes([0xF8, storage]), set_values=members)
    chosen = frozenset(draw(st.sets(st.sampled_from(members))))
    form = draw(st.integers(0, 2))
    if form == 0:
        value = chosen
    elif form == 1:
        value = ",".join(sorted(chosen))
    else:
        value = sum(1 << int(m[1:]) for m in chosen)
    return c, value, chosen


@st.composite
def enum_set_unknown(draw):
    if draw(st.booleans()):
        storage = draw(st.sampled_from((1, 2)))
        v = draw(st.integers(0, (1 << (8 * storage)) - 1))
        return col(254, bytes([0xF7, storage])), v, v
    storage = draw(st.sampled_from((1, 2, 3, 4, 8)))
    v = draw(st.integers(0, (1 << (8 * storage)) - 1))
    return col(254, bytes([0xF8, storage])), v, v


@st.composite
def geometries(draw):
    g = Geometry(draw(st.integers(0, (1 << 32) - 1)), draw(st.binary(max_size=100)))
    value = g if draw(st.booleans()) else g.to_bytes()
    return col(255, b"\x04"), value, g


# ---------------------------------------------------------------- JSON

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(1 << 63), (1 << 64) - 1),
    st.integers(0, (1 << 64) - 1).map(JsonUInt),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(st.characters(exclude_categories=("Cs",)), max_size=30),
    st.tuples(st.integers(0, 10 ** 30 - 1), st.integers(-30, 5), st.booleans())
    .map(lambda t: Decimal(f"{'-' if t[2] else ''}{t[0]}E{t[1]}")),
    st.dates(),
    st.datetimes(),
    st.datetimes().map(lambda d: JsonTimestamp(d.year, d.month, d.day, d.hour, d.minute, d.second, d.microsecond)),
    st.timedeltas(min_value=-dt.timedelta(hours=838, minutes=59, seconds=59),
                  max_value=dt.timedelta(hours=838, minutes=59, seconds=59)),
    st.builds(JsonOpaque, st.sampled_from((15, 16, 252, 253, 254, 255)), st.binary(max_size=20)),
)

json_keys = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)

json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(st.lists(children, max_size=6), st.dictionaries(json_keys, children, max_size=6)),
    max_leaves=25,
)


def json_expected(v):
    """What decoding gives back: lists for tuples, decimals with canonical precision, …"""
    if isinstance(v, dict):
        return {k: json_expected(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [json_expected(x) for x in v]
    if isinstance(v, MysqlTime):
        return v.to_timedelta()
    return v


@st.composite
def jsons(draw):
    v = draw(json_values)
    if v is None:
        v = JSON_NULL
    return col(245, b"\x04"), v, json_expected(v)


def big_json(n: int, inner: str, wrap: int):
    """A JSON value holding a container over 64 KiB (built in the test to keep reprs short)."""
    filler = "x" * n
    big = [filler, 70000, -2147483648, JsonUInt(1 << 31), True] if inner == "array" else \
        {"f": filler, "i32": 2147483647, "u32": JsonUInt(70000), "n": None, "d": Decimal("1.5")}
    if wrap == 0:
        return big
    if wrap == 1:
        return {"small": [1, 2], "big": big}
    if wrap == 2:
        return [big, {"k": "v"}, [big]]
    return [[1, 2, 3], "s"] * 3 + [big]


big_json_params = st.tuples(st.integers(65536, 70000), st.sampled_from(("array", "object")), st.integers(0, 3))


ALL_COLUMNS = st.one_of(
    integers(), floats(), decimals(), bits(), years(), dates(), times(), datetimes(), timestamps(),
    varchars(), chars(), blobs(), unknown_charset_strings(), enums(), sets(), enum_set_unknown(),
    geometries(), jsons(),
)

__all__ = [
    "ALL_COLUMNS", "TEXT_COLLATIONS", "integers", "floats", "decimals", "bits", "years", "dates",
    "times", "datetimes", "timestamps", "varchars", "chars", "blobs", "unknown_charset_strings",
    "enums", "sets", "enum_set_unknown", "geometries", "jsons", "json_values", "json_scalars",
    "json_expected", "big_json", "big_json_params", "text_for", "col",
]
