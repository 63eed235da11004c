"""Each column value's mysqlbinlog rendering, from the value its codec decoded (values.md).

``inspect -v/-vv`` prints row images as mariadb-binlog / mysqlbinlog do
(``log_event_print_value``, sql/log_event_client.cc). Their text is a function of the stored
bytes; since every codec decodes those bytes to a value that re-encodes to them exactly
(values.md: lossless both ways), the same text is a function of the decoded value and the
column's metadata, which is what :func:`render_value` computes:

* integers print their stored bits as signed, with the unsigned reading in parentheses when
  negative (``-1 (65535)``); FLOAT ``%-20g`` of the float32, DOUBLE ``%-.20g``;
* DECIMAL every scale digit (``format(d, "f")``); BIT and SET as bit strings ``b'…'`` (SET
  bytes in storage order, least significant byte first); ENUM as its index; YEAR as
  ``byte + 1900`` (so YEAR 0 prints 1900);
* DATE ``'YYYY:MM:DD'``; old DATETIME/TIME quoted; DATETIME2/TIME2 quoted with ``fsp``
  fraction digits; TIMESTAMP/TIMESTAMP2 as Unix seconds (``1.01``), unquoted;
* strings, BLOB/TEXT and GEOMETRY quoted from their stored bytes (text re-encoded in its
  charset; BINARY(n) without the 0x00 pad the server does not log), bytes < 0x20 as ``\\xNN``
  (MySQL also ``'`` and ``\\``).

``render_value`` raises ValueError for a type the printers do not know.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
from collections.abc import Callable
from decimal import Decimal
from functools import lru_cache
from typing import Any

from binlogwriter.values.base import ColumnDesc
from binlogwriter.values.strings import _Text, parse_string_meta
from binlogwriter.values.types import Geometry, MysqlDateTime, MysqlTime

__all__ = ["render_value", "renderer", "quote_bytes", "bit_string"]

_SPECIAL_MARIADB = re.compile(r"[\x00-\x1f]")
_SPECIAL_MYSQL = re.compile(r"[\x00-\x1f'\\]")
_ESCAPE_MARIADB = re.compile(rb"[\x00-\x1f]")
_ESCAPE_MYSQL = re.compile(rb"[\x00-\x1f'\\]")
_TABLE_MARIADB = {c: f"\\x{c:02x}" for c in range(0x20)}
_TABLE_MYSQL = {**_TABLE_MARIADB, 0x27: "\\x27", 0x5C: "\\x5c"}
_UTF8_CODECS = frozenset(("utf_8", "utf-8", "utf8", "ascii"))
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
_INT_WIDTH = {1: 1, 2: 2, 9: 3, 3: 4, 8: 8}


def quote_bytes(data: bytes | memoryview, family: str = "mariadb") -> str:
    """``my_b_write_quoted``: ``'…'`` with bytes < 0x20 as ``\\xNN``; MariaDB writes ``'`` and
    ``\\`` raw (its escape branches are unreachable), MySQL 8 hex-escapes them (UNVERIFIED).
    Non-UTF-8 bytes come back as surrogate escapes.

    Escaping is one ``str.translate`` after decoding: a byte below 0x80 is one character in
    UTF-8 and never part of a multi-byte sequence, so escaping it before or after decoding
    gives the same text."""
    raw = bytes(data)
    text = raw.decode("utf-8", "surrogateescape")
    if (_ESCAPE_MARIADB if family == "mariadb" else _ESCAPE_MYSQL).search(raw) is not None:
        text = text.translate(_TABLE_MARIADB if family == "mariadb" else _TABLE_MYSQL)
    return "'" + text + "'"


def bit_string(data: bytes | memoryview, nbits: int) -> str:
    """``my_b_write_bit``: the last ``nbits`` bits of the first ``ceil(nbits / 8)`` bytes,
    most significant first."""
    if nbits <= 0:
        return "b''"
    value = int.from_bytes(bytes(data[:(nbits + 7) // 8]), "big") & ((1 << nbits) - 1)
    return f"b'{value:0{nbits}b}'"


def _c_double(x: float, spec: str) -> str:
    """C printf of a double; glibc prints ``-nan`` for a NaN with the sign bit set."""
    if math.isnan(x):
        text = "-nan" if math.copysign(1.0, x) < 0 else "nan"
        return text.ljust(20) if spec == "%-20g" else text
    return spec % x


def _frac(usec: int, dec: int) -> str:
    return "." + str(usec // 10 ** (6 - dec)).zfill(dec) if dec else ""


def _fields(v: Any) -> tuple[int, int, int, int, int, int, int]:
    return (v.year, v.month, v.day, getattr(v, "hour", 0), getattr(v, "minute", 0), getattr(v, "second", 0),
            getattr(v, "microsecond", 0))


def _time_us(v: Any) -> int:
    if isinstance(v, MysqlTime):
        return v.total_microseconds()
    return (v.days * 86400 + v.seconds) * 1_000_000 + v.microseconds


def _time_text(v: Any, dec: int) -> str:
    us = _time_us(v)
    neg = us < 0
    secs, frac = divmod(-us if neg else us, 1_000_000)
    return (f"{'-' if neg else ''}{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}"
            f"{_frac(frac, dec)}")


def _unix(v: Any) -> tuple[int, int]:
    """(seconds, microseconds) since the epoch of a decoded TIMESTAMP (zero: 0, 0)."""
    if isinstance(v, MysqlDateTime):
        return 0, 0
    d = v - _EPOCH if v.tzinfo is not None else v - _EPOCH.replace(tzinfo=None)
    return d.days * 86400 + d.seconds, d.microseconds


def _signed32(s: int) -> int:
    """The seconds as C's ``%d`` of the stored 32 bits prints them."""
    return s - (1 << 32) if s >= 1 << 31 else s


@lru_cache(maxsize=4096)
def renderer(col: ColumnDesc, family: str = "mariadb") -> Callable[[Any], str]:
    """``text(value)`` for the non-NULL values of ``col`` (module docstring)."""
    t = col.type_code
    meta = bytes(col.meta)
    if t in (253, 254) and len(meta) == 2:
        real, length = parse_string_meta(meta)
        if real == 247:
            members = {m: i + 1 for i, m in enumerate(col.enum_values or ())}
            # the index the encoder writes for the value (values/strings.py): a member's, "" → 0
            return lambda v: str(v if isinstance(v, int) else members.get(v, 0))
        if real == 248:
            nbytes = length
            bit = {m: 1 << i for i, m in enumerate(col.set_values or ())}

            def set_text(v: Any) -> str:
                mask = v if isinstance(v, int) else sum(bit[m] for m in v)
                return bit_string(mask.to_bytes(nbytes, "little"), nbytes * 8)
            return set_text
    if t in _INT_WIDTH:
        w = _INT_WIDTH[t]
        full, half = 1 << (8 * w), 1 << (8 * w - 1)

        def int_text(v: int) -> str:
            s = v - full if v >= half else v
            return f"{s} ({s + full})" if s < 0 else str(s)
        return int_text
    if t == 4:
        return lambda v: _c_double(v, "%-20g")
    if t == 5:
        return lambda v: _c_double(v, "%-.20g")
    if t == 246:
        return lambda v: format(v, "f") if isinstance(v, Decimal) else str(v)
    if t == 16:
        nbits = meta[1] * 8 + meta[0]
        nbytes = (nbits + 7) // 8
        return lambda v: bit_string(v.to_bytes(nbytes, "big"), nbits)
    if t == 13:
        return lambda v: f"{v if v else 1900:04d}"
    if t in (10, 14):
        return lambda v: f"'{v.year:04d}:{v.month:02d}:{v.day:02d}'"
    if t == 7:
        return lambda v: str(_signed32(_unix(v)[0]))
    if t == 17:
        dec = min(meta[0], 6)

        def ts2(v: Any) -> str:
            s, us = _unix(v)
            return f"{_signed32(s)}{_frac(us, dec)}"
        return ts2
    if t == 12:
        def dt_old(v: Any) -> str:
            y, mo, d, h, mi, s, _ = _fields(v)
            return f"'{y:04d}-{mo:02d}-{d:02d} {h:02d}:{mi:02d}:{s:02d}'"
        return dt_old
    if t == 18:
        dec = min(meta[0], 6)
        cut = 20 + dec if dec else 19

        def dt2(v: Any) -> str:
            # digits and "-: ." only: nothing quote_bytes would escape
            if type(v) is _dt.datetime:  # isoformat: 4-digit year, 6 fraction digits, cut to fsp
                return "'" + v.isoformat(" ", "microseconds")[:cut] + "'"
            y, mo, d, h, mi, s, us = _fields(v)
            return f"'{y:04d}-{mo:02d}-{d:02d} {h:02d}:{mi:02d}:{s:02d}{_frac(us, dec)}'"
        return dt2
    if t == 11:
        return lambda v: "'" + _time_text(v, 0) + "'"
    if t == 19:
        dec = min(meta[0], 6)
        return lambda v: "'" + _time_text(v, dec) + "'"  # digits and "-:." only: nothing to escape
    if t == 255:
        return lambda v: quote_bytes(v.to_bytes() if isinstance(v, Geometry) else v, family)
    if t == 245 and family == "mysql":
        from binlogwriter.values.types import JsonNull

        special = _SPECIAL_MYSQL

        def json_text(v: Any) -> str:
            if isinstance(v, JsonNull):
                text = "" if v.empty else "null"
            else:
                text = json.dumps(v, ensure_ascii=False, default=str)
            if text.isascii() and special.search(text) is None:  # nothing quote_bytes would change
                return "'" + text + "'"
            return quote_bytes(text.encode("utf-8", "surrogateescape"), family)
        return json_text
    if t in (15, 252, 253, 254):
        text = _Text(col)
        binary_char = t in (253, 254) and text.binary
        if text.text and text.coll is not None and text.coll.codec in _UTF8_CODECS:
            # text decoded as UTF-8 / ASCII re-encodes to the bytes it came from, which print
            # as that same text: only the escapes need looking for (bytes kept when they did
            # not decode go the general way)
            special = _SPECIAL_MARIADB if family == "mariadb" else _SPECIAL_MYSQL

            def utf8_text(v: Any) -> str:
                if type(v) is str and special.search(v) is None:
                    return "'" + v + "'"
                return quote_bytes(v.encode("utf-8") if isinstance(v, str) else bytes(v), family)
            utf8_text.plain_text = special.search  # type: ignore[attr-defined]  # compiled printers inline the first branch
            return utf8_text

        def string_text(v: Any) -> str:
            if isinstance(v, str):
                raw = text.coll.encode(v) if text.text and text.coll is not None else v.encode("utf-8")
            else:
                raw = bytes(v)
                if binary_char:  # BINARY(n) decodes re-padded; the server logs it unpadded
                    raw = raw.rstrip(b"\x00")
            return quote_bytes(raw, family)
        return string_text
    raise ValueError(f"Don't know how to handle column type: {t} meta: {meta.hex()}")


def render_value(col: ColumnDesc, value: Any, family: str = "mariadb") -> str:
    """mysqlbinlog's text of one decoded value of ``col`` (``NULL`` for None)."""
    if value is None:
        return "NULL"
    return renderer(col, family)(value)

