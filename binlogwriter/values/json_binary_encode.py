"""Binary JSON encoding: Python value -> node bytes (values.md §7, ``sql-common/json_binary.cc``).

The node type codes, the inlining rules and the writer of each node; the public entry point,
its types table and the serialization rules are in :mod:`binlogwriter.values.json_binary`, the
reader in :mod:`binlogwriter.values.json_binary_decode`.
"""

from __future__ import annotations

import datetime as _dt
import math
import struct
from decimal import Decimal
from typing import Any

from binlogwriter.values._common import describe
from binlogwriter.values._temporal import Reject, datetime_fields, time_us
from binlogwriter.values.decimal_binary import pack, scaled_decimal
from binlogwriter.values.temporal_layout import datetime_packed, time_packed
from binlogwriter.values.types import (
    JsonDecimal,
    JsonOpaque,
    JsonTimestamp,
    JsonUInt,
    MysqlDate,
    MysqlDateTime,
    MysqlTime,
)

SMALL_OBJECT, LARGE_OBJECT, SMALL_ARRAY, LARGE_ARRAY = 0x00, 0x01, 0x02, 0x03
LITERAL, INT16, UINT16, INT32, UINT32, INT64, UINT64, DOUBLE, STRING, OPAQUE = (
    0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0F)
MAX_DEPTH = 100

ALWAYS_INLINE = frozenset((LITERAL, INT16, UINT16))
LARGE_INLINE = frozenset((LITERAL, INT16, UINT16, INT32, UINT32))

I16 = struct.Struct("<h")
U16 = struct.Struct("<H")
I32 = struct.Struct("<i")
U32 = struct.Struct("<I")
I64 = struct.Struct("<q")
U64 = struct.Struct("<Q")
DBL = struct.Struct("<d")


class JsonEncodeError(ValueError):
    """A Python value that has no binary JSON form; ``path`` is the JSON path to it."""

    def __init__(self, message: str, path: str = "$") -> None:
        super().__init__(message)
        self.message = message
        self.path = path

    def __str__(self) -> str:
        return f"{self.message} at {self.path}"


def varlen(n: int) -> bytes:
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
    canonical = max(1, int_digits(coeff, exp)) + scale
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
    return opaque(246, bytes((precision, scale)) + pack(negative, scaled, precision, scale))


def int_digits(coeff: tuple[int, ...], exp: int) -> int:
    """Number of integer-part digits of a Decimal given its coefficient digits and exponent."""
    return max(0, len(coeff) + exp) if any(coeff) else 0


def opaque(field_type: int, data: bytes) -> bytes:
    return bytes((field_type,)) + varlen(len(data)) + data


def _temporal_opaque(value: Any) -> bytes:
    try:
        if isinstance(value, JsonTimestamp):
            return opaque(7, I64.pack(datetime_packed(*datetime_fields(value))))
        if isinstance(value, _dt.datetime | MysqlDateTime):
            return opaque(12, I64.pack(datetime_packed(*datetime_fields(value))))
        if isinstance(value, _dt.date):
            return opaque(10, I64.pack(datetime_packed(value.year, value.month, value.day)))
        if isinstance(value, MysqlDate):
            y, m, d = datetime_fields(value)[:3]
            return opaque(10, I64.pack(datetime_packed(y, m, d)))
        return opaque(11, I64.pack(time_packed(time_us(value))))
    except Reject as exc:
        raise JsonEncodeError(str(exc)) from None


def scalar(value: Any) -> tuple[int, bytes]:
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
        return STRING, varlen(len(data)) + data
    if t is int or (isinstance(value, int) and not isinstance(value, JsonUInt | bool)):
        v = int(value)
        if -32768 <= v <= 32767:
            return INT16, I16.pack(v)
        if -2147483648 <= v <= 2147483647:
            return INT32, I32.pack(v)
        if -(1 << 63) <= v < (1 << 63):
            return INT64, I64.pack(v)
        if 0 <= v < (1 << 64):
            return UINT64, U64.pack(v)
        raise JsonEncodeError(f"integer {v} is beyond int64/uint64")
    if isinstance(value, JsonUInt):
        v = int(value)
        if 0 <= v <= 0xFFFF:
            return UINT16, U16.pack(v)
        if 0 <= v <= 0xFFFFFFFF:
            return UINT32, U32.pack(v)
        if 0 <= v < (1 << 64):
            return UINT64, U64.pack(v)
        raise JsonEncodeError(f"JsonUInt {v} is beyond uint64")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise JsonEncodeError(f"{value} is not a JSON number")
        return DOUBLE, DBL.pack(value)
    if isinstance(value, Decimal):
        return OPAQUE, _decimal_opaque(value)
    if isinstance(value, JsonOpaque):
        if not (isinstance(value.field_type, int) and 0 <= value.field_type <= 255):
            raise JsonEncodeError(f"JsonOpaque field_type must be 0..255, got {value.field_type!r}")
        return OPAQUE, opaque(value.field_type, bytes(value.data))
    if isinstance(value, _dt.date | _dt.timedelta | _dt.time | MysqlDate | MysqlDateTime | MysqlTime):
        return OPAQUE, _temporal_opaque(value)
    raise JsonEncodeError(f"{describe(value)} has no JSON form (wrap raw bytes in JsonOpaque)")


def node(value: Any, depth: int) -> tuple[int, bytes]:
    """(type, bytes after the type byte) of any node."""
    if isinstance(value, dict):
        return _object(value, depth + 1)
    if isinstance(value, list | tuple):
        return _array(value, depth + 1)
    return scalar(value)


def _layout(keys: list[bytes] | None, children: list[tuple[int, bytes]], large: bool) -> bytes | None:
    """Container bytes after the type byte, or None when a small container would overflow u16."""
    w = 4 if large else 2
    limit = 0xFFFFFFFF if large else 0xFFFF
    n = len(children)
    inline = LARGE_INLINE if large else ALWAYS_INLINE
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
            children.append(node(v, depth))
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
            children.append(node(v, depth))
        except JsonEncodeError as exc:
            exc.path = f"$[{i}]" + exc.path[1:]
            raise
    return _container(None, children, SMALL_ARRAY)
