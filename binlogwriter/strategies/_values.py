"""``values(column)``: values a column can hold, in the canonical form decoding gives back.

Every value drawn here is valid for the column as declared and reads back *equal* (``==``, and
the same Python type) from a binlog written with it (docs/python-types.md):

- integers within the declared width and signedness; BIT(m) within m bits; YEAR 0 or
  1901–2155;
- FLOAT only float32-representable values (the server keeps a C ``float``), DOUBLE any finite;
- DECIMAL(p,s) built digit by digit — never through Python's 28-digit default context, which
  would round DECIMAL(65,30) — with exactly ``s`` fraction digits, non-negative if UNSIGNED;
- TIME(fsp) within ±838:59:59 and truncated to ``fsp`` digits (negative fractions included);
  DATETIME(fsp) from 1000-01-01 and the zero date; TIMESTAMP(fsp) as aware UTC datetimes in
  1970-01-01 00:00:01 … 2038-01-19 03:14:07.999999 or the zero ``MysqlDateTime``; DATE from
  1000-01-01 and the zero/partial-zero dates;
- CHAR/VARCHAR/TEXT: characters the column's charset can store and decode back unchanged (MySQL
  latin1 is cp1252 with five undefined bytes, which are left out; ucs2/utf8mb3 are BMP only),
  at most the declared characters (and bytes for TINYTEXT/TEXT); CHAR never ends in a space
  (the server strips trailing spaces of CHAR values); BINARY(n) exactly ``n`` bytes (it is
  right-padded with zero bytes);
- ENUM a member or ``""`` (index 0, the invalid-value entry); SET a frozenset of members;
- JSON: a document (MySQL binary JSON: Python objects; MariaDB: the document's text);
- GEOMETRY/POINT: a POINT in WKB with SRID 0 or 4326.

``key=True`` restricts values to those safe in a unique index on a real server: character
columns hold only ``[a-z0-9]`` (so case-, accent- and pad-insensitive collations cannot make two
different values equal) and FLOAT/DOUBLE are never keys.
"""

from __future__ import annotations

import datetime as dt
import json
import struct
from decimal import Decimal
from functools import cache
from typing import Any

from hypothesis import strategies as st

from binlogwriter.schema import Column
from binlogwriter.values import Geometry, MysqlDate, MysqlDateTime

__all__ = ["values", "CHARSETS", "KEY_ALPHABET"]

UTC = dt.UTC
CHARSETS = ("latin1", "utf8mb3", "utf8mb4", "gbk", "ucs2", "utf16", "utf32", "sjis", "eucjpms", "euckr",
            "cp1251", "keybcs2", "armscii8", "swe7")
"""Character sets the strategies draw for character columns."""
KEY_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"

_INT_BITS = {"TINYINT": 8, "SMALLINT": 16, "MEDIUMINT": 24, "INT": 32, "BIGINT": 64}
_TEXT_BYTES = {"TINYTEXT": 255, "TEXT": 65535, "MEDIUMTEXT": (1 << 24) - 1, "LONGTEXT": (1 << 32) - 1,
               "TINYBLOB": 255, "BLOB": 65535, "MEDIUMBLOB": (1 << 24) - 1, "LONGBLOB": (1 << 32) - 1}
_MAX_TIME_US = (838 * 3600 + 59 * 60 + 59) * 10 ** 6
_ZERO_DATES = ((0, 0, 0), (2016, 0, 28), (2016, 10, 0), (0, 1, 1))
MAX_STRING_DRAW = 200
"""Longest string/blob drawn (characters or bytes): longer ones only slow examples down; the
length-prefix boundaries at 2^8/2^16/2^24 are catalogue entries (binlogwriter.fixtures)."""


def _trunc(us: int, fsp: int) -> int:
    q = 10 ** (6 - fsp)
    return us // q * q


def _signed_trunc(us: int, fsp: int) -> int:
    return _trunc(abs(us), fsp) * (1 if us >= 0 else -1)


@cache
def _charset_chars(charset: str, flavor: str) -> st.SearchStrategy[str]:
    from binlogwriter.charsets import default_collation

    coll = default_collation(charset, flavor)
    if charset == "latin1":
        base = st.characters(codec="cp1252")
    elif charset == "gbk":
        base = st.characters(codec="gbk")
    elif charset in ("ucs2", "utf8mb3"):
        base = st.characters(max_codepoint=0xFFFF, exclude_categories=("Cs",))
    elif charset == "ascii":
        base = st.characters(max_codepoint=0x7F)
    elif charset in _REPERTOIRE:  # the charset's own characters (its codec: docs/charsets.md rule 6),
        return st.sampled_from(_repertoire(coll))  # ASCII first; swe7 lacks some ASCII (its letters)
    else:
        base = st.characters(exclude_categories=("Cs",))

    def keeps(ch: str) -> bool:
        try:
            return coll.decode(coll.encode(ch)) == ch
        except (UnicodeError, ValueError):
            return False

    # ASCII first: hypothesis shrinks towards the first alternative
    return st.one_of(st.characters(min_codepoint=0x20, max_codepoint=0x7E), base.filter(keeps))


_REPERTOIRE = ("sjis", "eucjpms", "euckr", "cp1251", "keybcs2", "armscii8", "swe7")


def _repertoire(coll: Any) -> list[str]:
    """The BMP characters (not controls) a charset's codec encodes and decodes back, in order."""
    out = []
    for cp in range(0x20, 0x10000):
        if 0x7F <= cp < 0xA0 or 0xD800 <= cp < 0xE000:
            continue
        try:
            if coll.decode(coll.encode(chr(cp))) == chr(cp):
                out.append(chr(cp))
        except (UnicodeError, ValueError):
            pass
    return out


def _text(column: Column, flavor: str, max_chars: int, max_bytes: int | None, key: bool,
          strip: bool) -> st.SearchStrategy[str]:
    max_chars = min(max_chars, MAX_STRING_DRAW)
    if key:
        return st.text(st.sampled_from(KEY_ALPHABET), min_size=1 if max_chars else 0, max_size=max_chars)
    coll = column.collation_obj(flavor)
    s = st.text(_charset_chars(coll.charset, flavor), max_size=max_chars)
    if strip:
        s = s.map(lambda v: v.rstrip(" "))
    if max_bytes is not None:
        def fit(v: str) -> str:
            while v and len(coll.encode(v)) > max_bytes:
                v = v[:-1]
            return v
        s = s.map(fit)
    return s


def _decimal(p: int, s: int, unsigned: bool) -> st.SearchStrategy[Decimal]:
    intg = p - s

    @st.composite
    def draw_one(draw) -> Decimal:
        ip = draw(st.integers(0, 10 ** intg - 1)) if intg else 0
        fp = draw(st.integers(0, 10 ** s - 1)) if s else 0
        neg = not unsigned and bool(ip or fp) and draw(st.booleans())
        return Decimal(f"{'-' if neg else ''}{ip}" + (f".{fp:0{s}d}" if s else ""))

    # the largest values in the column (every 9-digit group full) as an explicit edge
    top = ("9" * intg or "0") + (("." + "9" * s) if s else "")
    # Decimal(text), never -Decimal: unary minus rounds to the 28-digit context
    edges = [Decimal(top)] if unsigned else [Decimal(top), Decimal("-" + top)]
    return st.one_of(draw_one(), st.sampled_from(edges))


def _point(x: float, y: float) -> bytes:
    return b"\x01" + (1).to_bytes(4, "little") + struct.pack("<dd", x, y)


JSON_DOCUMENTS = st.recursive(
    st.one_of(st.booleans(), st.integers(-(1 << 63), (1 << 63) - 1),
              st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=10)),
    lambda ch: st.one_of(st.lists(ch, max_size=4), st.dictionaries(st.text(max_size=5), ch, max_size=4)),
    max_leaves=10,
)
"""JSON documents both flavors read back equal (no top-level JSON null: SQL NULL is None)."""


def values(column: Column, flavor: str = "mysql80", *, key: bool = False) -> st.SearchStrategy:
    """Values ``column`` (a :class:`binlogwriter.schema.Column`) can hold in ``flavor``, each
    in the form a binlog reader gives back. NULL is not drawn: :func:`rows` adds it for
    nullable columns. ``key=True``: only values safe in a unique key (see module docs).

    >>> from binlogwriter.schema import Table
    >>> t = Table.from_sql("CREATE TABLE t (d DECIMAL(65,30), c CHAR(4) CHARACTER SET latin1)")
    >>> values(t.columns[0]).example()  # doctest: +SKIP
    Decimal('-12.000000000000000000000000000001')
    """
    t = column.type
    if t in _INT_BITS:
        bits = _INT_BITS[t]
        lo, hi = (0, (1 << bits) - 1) if column.unsigned else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
        return st.one_of(st.integers(lo, hi), st.sampled_from((lo, hi)))
    if t == "DECIMAL":
        return _decimal(column.precision or 10, column.scale or 0, column.unsigned)
    if t == "FLOAT":
        return st.floats(width=32, allow_nan=False, allow_infinity=False,
                         min_value=0.0 if column.unsigned else None)
    if t == "DOUBLE":
        return st.floats(allow_nan=False, allow_infinity=False, min_value=0.0 if column.unsigned else None)
    if t == "BIT":
        return st.integers(0, (1 << (column.length or 1)) - 1)
    if t == "YEAR":
        return st.one_of(st.integers(1901, 2155), st.just(0))
    if t == "DATE":
        dates = st.dates(dt.date(1000, 1, 1))
        return dates if key else st.one_of(dates, st.sampled_from([MysqlDate(*d) for d in _ZERO_DATES]))
    if t == "TIME":
        fsp = column.fsp or 0
        return st.integers(-_MAX_TIME_US, _MAX_TIME_US).map(
            lambda us: dt.timedelta(microseconds=_signed_trunc(us, fsp)))
    if t == "DATETIME":
        fsp = column.fsp or 0
        dts = st.datetimes(dt.datetime(1000, 1, 1)).map(lambda v: v.replace(microsecond=_trunc(v.microsecond, fsp)))
        if key:
            return dts
        zero = st.builds(lambda d, us: MysqlDateTime(*d, 0, 0, 0, _trunc(us, fsp)),
                         st.sampled_from(_ZERO_DATES), st.integers(0, 999_999))
        return st.one_of(dts, zero)
    if t == "TIMESTAMP":
        fsp = column.fsp or 0
        ts = st.tuples(st.integers(1, (1 << 31) - 1), st.integers(0, 999_999)).map(
            lambda p: dt.datetime(1970, 1, 1, tzinfo=UTC) + dt.timedelta(seconds=p[0], microseconds=_trunc(p[1], fsp)))
        return ts if key else st.one_of(ts, st.just(MysqlDateTime(0, 0, 0)))
    if t in ("CHAR", "VARCHAR"):
        n = column.length or 0
        return _text(column, flavor, n, None, key, strip=t == "CHAR")
    if t in ("TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT"):
        return _text(column, flavor, MAX_STRING_DRAW, _TEXT_BYTES[t], key, strip=False)
    if t == "BINARY":
        n = column.length or 0
        return st.binary(min_size=n, max_size=n)
    if t == "VARBINARY":
        return st.binary(max_size=min(column.length or 0, MAX_STRING_DRAW))
    if t in _TEXT_BYTES:  # BLOBs
        return st.binary(max_size=min(_TEXT_BYTES[t], MAX_STRING_DRAW))
    if t == "ENUM":
        return st.sampled_from(column.members + ("",))
    if t == "SET":
        return st.frozensets(st.sampled_from(column.members)) if column.members else st.just(frozenset())
    if t == "JSON":
        if flavor.startswith("mariadb"):  # a LONGTEXT holding the document's text
            return JSON_DOCUMENTS.map(json.dumps)
        return JSON_DOCUMENTS
    if t in ("GEOMETRY", "POINT"):
        coords = st.floats(-1e9, 1e9, allow_nan=False)
        return st.builds(lambda s, x, y: Geometry(s, _point(x, y)), st.sampled_from([0, 4326]), coords, coords)
    from binlogwriter.errors import SchemaError

    raise SchemaError(f"binlogwriter.strategies.values: no strategy for {t} (column {column.name})")
