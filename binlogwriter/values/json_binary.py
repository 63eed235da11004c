"""MySQL binary JSON (type 245) both ways (values.md §7, ``sql-common/json_binary.h``).

Python types of a JSON document:

=====================  ======================================================================
JSON node              Python
=====================  ======================================================================
object                 ``dict`` (str keys; decoded in stored order: by byte length, then bytes)
array                  ``list`` (``tuple`` accepted when encoding)
literal                ``None`` / ``True`` / ``False``
int16/int32/int64      ``int`` (encoding picks the smallest; above INT64_MAX → uint64)
uint16/uint32/uint64   :class:`JsonUInt` (an ``int``; encoding picks the smallest unsigned)
double                 ``float`` (NaN/inf refused)
string                 ``str`` (utf8mb4)
opaque DECIMAL (246)   ``Decimal``; :class:`JsonDecimal` when the stored precision is wider than
                       ``max(1, integer digits) + scale``
opaque DATE (10)       ``datetime.date`` / ``MysqlDate``
opaque DATETIME (12)   naive ``datetime.datetime`` / ``MysqlDateTime``
opaque TIMESTAMP (7)   :class:`JsonTimestamp` (a naive ``datetime``)
opaque TIME (11)       ``datetime.timedelta`` (``MysqlTime`` and ``datetime.time`` accepted)
other opaque           :class:`JsonOpaque` ``(field_type, data)`` — also for mapped opaque
                       nodes whose bytes would not re-encode identically
=====================  ======================================================================

A JSON *column* value is a 4-byte LE length + document. At that level ``None`` is SQL NULL, so
a top-level JSON ``null`` is :data:`JSON_NULL` (``04 00``) or :data:`JSON_NULL_EMPTY` (the
zero-length value, "JSON null" per the server); both compare equal.

Serialization follows the server: containers are written small (u16 counts/offsets) unless
their size exceeds 65535 bytes, then large (u32), each container deciding for itself;
literals/int16/uint16 are inlined in value entries, int32/uint32 only in large containers;
object keys sorted by byte length then bytes; depth limited to 100 (JSON_DOCUMENT_MAX_DEPTH).
"""

from __future__ import annotations

import datetime as _dt
import math
import struct
from decimal import Decimal
from typing import Any

from binlogwriter.values._common import describe
from binlogwriter.values._temporal import (
    _datetime_fields,
    _Reject,
    _time_us,
    date_value,
    datetime_from_packed,
    datetime_packed,
    datetime_value,
    time_from_packed,
    time_packed,
)
from binlogwriter.values.decimals import _pack, decode_decimal, scaled_decimal
from binlogwriter.values.types import (
    JsonDecimal,
    JsonNull,
    JsonOpaque,
    JsonTimestamp,
    JsonUInt,
    MysqlDate,
    MysqlDateTime,
    MysqlTime,
)

__all__ = ["encode_json", "decode_json", "JsonEncodeError", "MAX_DEPTH"]

SMALL_OBJECT, LARGE_OBJECT, SMALL_ARRAY, LARGE_ARRAY = 0x00, 0x01, 0x02, 0x03
LITERAL, INT16, UINT16, INT32, UINT32, INT64, UINT64, DOUBLE, STRING, OPAQUE = (
    0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0F)
MAX_DEPTH = 100

_ALWAYS_INLINE = frozenset((LITERAL, INT16, UINT16))
_LARGE_INLINE = frozenset((LITERAL, INT16, UINT16, INT32, UINT32))

_I16 = struct.Struct("<h")
_U16 = struct.Struct("<H")
_I32 = struct.Struct("<i")
_U32 = struct.Struct("<I")
_I64 = struct.Struct("<q")
_U64 = struct.Struct("<Q")
_DBL = struct.Struct("<d")


class JsonEncodeError(ValueError):
    """A Python value that has no binary JSON form; ``path`` is the JSON path to it."""

    def __init__(self, message: str, path: str = "$") -> None:
        super().__init__(message)
        self.message = message
        self.path = path

    def __str__(self) -> str:
        return f"{self.message} at {self.path}"


class _Bad(Exception):
    """Internal: malformed binary JSON."""


def _varlen(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


# ---------------------------------------------------------------------------------------------
# encoding
# ---------------------------------------------------------------------------------------------

def _decimal_opaque(value: Decimal) -> bytes:
    if not value.is_finite():
        raise JsonEncodeError(f"{value} is not a JSON number")
    _, coeff, exp = value.as_tuple()
    assert isinstance(exp, int)
    scale = max(0, -exp)
    canonical = max(1, _int_digits(coeff, exp)) + scale
    precision = canonical
    if isinstance(value, JsonDecimal) and value.precision:
        if value.precision < canonical:
            raise JsonEncodeError(f"JsonDecimal {value} needs precision {canonical}, "
                                  f"has {value.precision}")
        precision = value.precision
    if precision > 65 or scale > 30:
        raise JsonEncodeError(f"DECIMAL {value} needs precision {precision}, scale {scale}; "
                              "the server holds at most 65, 30")
    negative, scaled = scaled_decimal(value, precision, scale)
    return _opaque(246, bytes((precision, scale)) + _pack(negative, scaled, precision, scale))


def _int_digits(coeff: tuple[int, ...], exp: int) -> int:
    """Number of integer-part digits of a Decimal given its coefficient digits and exponent."""
    return max(0, len(coeff) + exp) if any(coeff) else 0


def _opaque(field_type: int, data: bytes) -> bytes:
    return bytes((field_type,)) + _varlen(len(data)) + data


def _temporal_opaque(value: Any) -> bytes:
    try:
        if isinstance(value, JsonTimestamp):
            return _opaque(7, _I64.pack(datetime_packed(*_datetime_fields(value))))
        if isinstance(value, _dt.datetime | MysqlDateTime):
            return _opaque(12, _I64.pack(datetime_packed(*_datetime_fields(value))))
        if isinstance(value, _dt.date):
            return _opaque(10, _I64.pack(datetime_packed(value.year, value.month, value.day)))
        if isinstance(value, MysqlDate):
            y, m, d = _datetime_fields(value)[:3]
            return _opaque(10, _I64.pack(datetime_packed(y, m, d)))
        return _opaque(11, _I64.pack(time_packed(_time_us(value))))
    except _Reject as exc:
        raise JsonEncodeError(str(exc)) from None


def _scalar(value: Any) -> tuple[int, bytes]:
    """(type, value bytes) of a non-container node."""
    if value is None:
        return LITERAL, b"\x00"
    if value is True:
        return LITERAL, b"\x01"
    if value is False:
        return LITERAL, b"\x02"
    t = type(value)
    if t is str:
        try:
            data = value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise JsonEncodeError(f"string holds a character utf8mb4 cannot store ({exc.reason})") from None
        return STRING, _varlen(len(data)) + data
    if t is int or (isinstance(value, int) and not isinstance(value, JsonUInt | bool)):
        v = int(value)
        if -32768 <= v <= 32767:
            return INT16, _I16.pack(v)
        if -2147483648 <= v <= 2147483647:
            return INT32, _I32.pack(v)
        if -(1 << 63) <= v < (1 << 63):
            return INT64, _I64.pack(v)
        if 0 <= v < (1 << 64):
            return UINT64, _U64.pack(v)
        raise JsonEncodeError(f"integer {v} is beyond int64/uint64")
    if isinstance(value, JsonUInt):
        v = int(value)
        if 0 <= v <= 0xFFFF:
            return UINT16, _U16.pack(v)
        if 0 <= v <= 0xFFFFFFFF:
            return UINT32, _U32.pack(v)
        if 0 <= v < (1 << 64):
            return UINT64, _U64.pack(v)
        raise JsonEncodeError(f"JsonUInt {v} is beyond uint64")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise JsonEncodeError(f"{value} is not a JSON number")
        return DOUBLE, _DBL.pack(value)
    if isinstance(value, Decimal):
        return OPAQUE, _decimal_opaque(value)
    if isinstance(value, JsonOpaque):
        if not (isinstance(value.field_type, int) and 0 <= value.field_type <= 255):
            raise JsonEncodeError(f"JsonOpaque field_type must be 0..255, got {value.field_type!r}")
        return OPAQUE, _opaque(value.field_type, bytes(value.data))
    if isinstance(value, _dt.date | _dt.timedelta | _dt.time | MysqlDate | MysqlDateTime | MysqlTime):
        return OPAQUE, _temporal_opaque(value)
    raise JsonEncodeError(f"{describe(value)} has no JSON form (wrap raw bytes in JsonOpaque)")


def _node(value: Any, depth: int) -> tuple[int, bytes]:
    """(type, bytes after the type byte) of any node."""
    if isinstance(value, dict):
        return _object(value, depth + 1)
    if isinstance(value, list | tuple):
        return _array(value, depth + 1)
    return _scalar(value)


def _layout(keys: list[bytes] | None, children: list[tuple[int, bytes]], large: bool) -> bytes | None:
    """Container bytes after the type byte, or None when a small container would overflow u16."""
    w = 4 if large else 2
    limit = 0xFFFFFFFF if large else 0xFFFF
    n = len(children)
    inline = _LARGE_INLINE if large else _ALWAYS_INLINE
    header = 2 * w + n * (1 + w) + (n * (w + 2) if keys is not None else 0)
    size = header + sum(len(k) for k in keys or ()) + sum(
        len(p) for t, p in children if t not in inline)
    if size > limit:  # every offset is below the size, so this check covers them all
        if not large:
            return None
        raise JsonEncodeError(f"JSON container of {size} bytes is beyond 4 GiB")
    off = header
    key_entries = bytearray()
    if keys is not None:
        for k in keys:
            key_entries += off.to_bytes(w, "little") + len(k).to_bytes(2, "little")
            off += len(k)
    value_entries = bytearray()
    tail = []
    for t, payload in children:
        value_entries.append(t)
        if t in inline:
            value_entries += payload.ljust(w, b"\x00")
        else:
            value_entries += off.to_bytes(w, "little")
            tail.append(payload)
            off += len(payload)
    head = n.to_bytes(w, "little") + size.to_bytes(w, "little")
    return b"".join((head, key_entries, value_entries, *(keys or ()), *tail))


def _container(keys: list[bytes] | None, children: list[tuple[int, bytes]], small_t: int) -> tuple[int, bytes]:
    body = _layout(keys, children, False)
    if body is not None:
        return small_t, body
    body = _layout(keys, children, True)
    assert body is not None
    return small_t + 1, body


def _object(value: dict, depth: int) -> tuple[int, bytes]:
    if depth > MAX_DEPTH:
        raise JsonEncodeError(f"document is deeper than {MAX_DEPTH}")
    items = []
    for k, v in value.items():
        if not isinstance(k, str):
            raise JsonEncodeError(f"object key {k!r} is not a str")
        try:
            kb = k.encode("utf-8")
        except UnicodeEncodeError:
            raise JsonEncodeError(f"object key {k!r} is not valid utf8mb4") from None
        if len(kb) > 0xFFFF:
            raise JsonEncodeError(f"object key of {len(kb)} bytes is longer than 65535")
        items.append((len(kb), kb, k, v))
    items.sort(key=lambda it: (it[0], it[1]))
    keys = []
    children = []
    for _, kb, k, v in items:
        try:
            children.append(_node(v, depth))
        except JsonEncodeError as exc:
            exc.path = "$." + (k if k.isidentifier() else repr(k)) + exc.path[1:]
            raise
        keys.append(kb)
    return _container(keys, children, SMALL_OBJECT)


def _array(value: list | tuple, depth: int) -> tuple[int, bytes]:
    if depth > MAX_DEPTH:
        raise JsonEncodeError(f"document is deeper than {MAX_DEPTH}")
    children = []
    for i, v in enumerate(value):
        try:
            children.append(_node(v, depth))
        except JsonEncodeError as exc:
            exc.path = f"$[{i}]" + exc.path[1:]
            raise
    return _container(None, children, SMALL_ARRAY)


def encode_json(value: Any) -> bytes:
    """The binary JSON document of ``value`` (no length prefix); JsonEncodeError if it has none.

    ``None`` is the null literal here; :data:`JSON_NULL` too, :data:`JSON_NULL_EMPTY` gives b"".
    A :class:`JsonKeptObject` / :class:`JsonKeptArray` whose content is still what its
    ``binary`` holds gives those bytes back.
    """
    if isinstance(value, JsonNull):
        return b"" if value.empty else b"\x04\x00"
    t, body = _node(value, 0)
    doc = bytes((t,)) + body
    kept = getattr(value, "binary", None) if type(value) in (JsonKeptObject, JsonKeptArray) else None
    if kept is not None and doc != kept:
        try:
            same = encode_json(decode_json(kept)) == doc
        except (ValueError, RecursionError):
            same = False
        if same:
            return kept
    return doc


class JsonKeptObject(dict):
    """A JSON object read from a binlog: a plain ``dict`` for every use, whose ``binary``
    keeps the document's bytes. :func:`encode_json` gives them back while the content is
    unchanged, so a document not in the shortest form the encoder writes (MySQL leaves unused
    bytes in one updated in place, see ``JSON_STORAGE_FREE``; values.md §7) re-encodes to
    the bytes read."""

    __slots__ = ("binary",)


class JsonKeptArray(list):
    """The :class:`JsonKeptObject` of an array."""

    __slots__ = ("binary",)


__all__ += ["JsonKeptObject", "JsonKeptArray"]


# ---------------------------------------------------------------------------------------------
# decoding
# ---------------------------------------------------------------------------------------------

def _read_varlen(buf: Any, pos: int, end: int) -> tuple[int, int]:
    n = 0
    for i in range(5):
        if pos >= end:
            raise _Bad("variable-length integer runs past the end")
        b = buf[pos]
        pos += 1
        n |= (b & 0x7F) << (7 * i)
        if not b & 0x80:
            if n > 0xFFFFFFFF:
                break
            return n, pos
    raise _Bad("variable-length integer longer than 5 bytes")


def _opaque_value(ft: int, data: bytes) -> Any:
    """Python value of an opaque node; JsonOpaque unless it maps back to the same bytes."""
    value: Any = None
    try:
        if ft == 246:
            if len(data) >= 2:
                p, s = data[0], data[1]
                if s <= p:
                    d, end = decode_decimal(data, 2, p, s)
                    if end == len(data):
                        value = d
                        _, coeff, exp = d.as_tuple()
                        assert isinstance(exp, int)
                        if p != max(1, _int_digits(coeff, exp)) + s:
                            value = JsonDecimal(d, p)
        elif ft in (7, 10, 11, 12) and len(data) == 8:
            nr = _I64.unpack(data)[0]
            if ft == 11:
                value = _dt.timedelta(microseconds=time_from_packed(nr))
            elif nr >= 0:
                y, m, d, h, mi, s, us = datetime_from_packed(nr)
                if ft == 10:
                    if not (h or mi or s or us):
                        value = date_value(y, m, d)
                elif ft == 12:
                    value = datetime_value(y, m, d, h, mi, s, us)
                else:
                    dtv = datetime_value(y, m, d, h, mi, s, us)
                    if isinstance(dtv, _dt.datetime):
                        value = JsonTimestamp(y, m, d, h, mi, s, us)
    except (ValueError, ArithmeticError, OverflowError):
        value = None
    if value is not None:
        try:
            if _scalar(value)[1] == _opaque(ft, data):
                return value
        except JsonEncodeError:
            pass
    return JsonOpaque(ft, data)


def _value(buf: Any, t: int, pos: int, end: int, depth: int) -> Any:
    """Decode the node of type ``t`` whose bytes start at ``pos`` (after the type byte)."""
    if t <= LARGE_ARRAY:
        return _container_value(buf, t, pos, end, depth + 1)
    if t == LITERAL:
        if pos >= end:
            raise _Bad("literal runs past the end")
        b = buf[pos]
        if b == 0:
            return None
        if b == 1:
            return True
        if b == 2:
            return False
        raise _Bad(f"unknown literal {b:#x}")
    if t == STRING:
        n, pos = _read_varlen(buf, pos, end)
        if pos + n > end:
            raise _Bad("string runs past the end")
        try:
            return bytes(buf[pos:pos + n]).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _Bad(f"string is not utf8mb4: {exc.reason}") from None
    if t == OPAQUE:
        if pos >= end:
            raise _Bad("opaque runs past the end")
        ft = buf[pos]
        n, pos = _read_varlen(buf, pos + 1, end)
        if pos + n > end:
            raise _Bad("opaque value runs past the end")
        return _opaque_value(ft, bytes(buf[pos:pos + n]))
    st = _FIXED.get(t)
    if st is None:
        raise _Bad(f"unknown JSON node type {t:#04x}")
    if pos + st.size > end:
        raise _Bad("number runs past the end")
    v = st.unpack_from(buf, pos)[0]
    return JsonUInt(v) if t in (UINT16, UINT32, UINT64) else v


_FIXED = {INT16: _I16, UINT16: _U16, INT32: _I32, UINT32: _U32, INT64: _I64, UINT64: _U64, DOUBLE: _DBL}


def _container_value(buf: Any, t: int, start: int, end: int, depth: int) -> Any:
    if depth > MAX_DEPTH + 1:
        raise _Bad(f"document deeper than {MAX_DEPTH}")
    large = t in (LARGE_OBJECT, LARGE_ARRAY)
    is_obj = t in (SMALL_OBJECT, LARGE_OBJECT)
    w = 4 if large else 2
    if start + 2 * w > end:
        raise _Bad("container header runs past the end")
    count = int.from_bytes(buf[start:start + w], "little")
    size = int.from_bytes(buf[start + w:start + 2 * w], "little")
    cend = start + size
    if cend > end:
        raise _Bad(f"container of {size} bytes runs past the end")
    pos = start + 2 * w
    hdr_end = pos + count * ((w + 2 if is_obj else 0) + 1 + w)
    if hdr_end > cend:
        raise _Bad(f"{count} entries do not fit a container of {size} bytes")
    keys = []
    if is_obj:
        for _ in range(count):
            ko = int.from_bytes(buf[pos:pos + w], "little")
            kl = buf[pos + w] | buf[pos + w + 1] << 8
            pos += w + 2
            if start + ko + kl > cend:
                raise _Bad("object key runs past the container")
            try:
                keys.append(bytes(buf[start + ko:start + ko + kl]).decode("utf-8"))
            except UnicodeDecodeError:
                raise _Bad("object key is not utf8mb4") from None
    inline = _LARGE_INLINE if large else _ALWAYS_INLINE
    values = []
    for _ in range(count):
        vt = buf[pos]
        if vt in inline:
            v = _value(buf, vt, pos + 1, pos + 1 + w, depth)
        else:
            off = int.from_bytes(buf[pos + 1:pos + 1 + w], "little")
            if off >= size:
                raise _Bad(f"value offset {off} is outside the container of {size} bytes")
            v = _value(buf, vt, start + off, cend, depth)
        values.append(v)
        pos += 1 + w
    if is_obj:
        return dict(zip(keys, values, strict=True))
    return values


def decode_json(doc: bytes | memoryview) -> Any:
    """Python value of a binary JSON document; ``b""`` (the empty value) is ``None`` (JSON null).

    Raises ValueError for malformed bytes.
    """
    if len(doc) == 0:
        return None
    try:
        return _value(doc, doc[0], 1, len(doc), 0)
    except _Bad as exc:
        raise ValueError(f"bad binary JSON: {exc}") from None
    except (IndexError, struct.error) as exc:
        raise ValueError(f"bad binary JSON: truncated ({exc})") from None
