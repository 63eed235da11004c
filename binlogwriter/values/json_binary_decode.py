"""Binary JSON decoding: document bytes -> Python value (values.md §7, ``sql-common/json_binary.h``).

The reference reader (:func:`decode_json`, re-exported by :mod:`binlogwriter.values.json_binary`
with the types table); :mod:`binlogwriter.values.json_fast` is the fast one checked against it.
An opaque node maps to a Python value only when the encoder
(:mod:`binlogwriter.values.json_binary_encode`) writes it back to the same bytes.
"""

from __future__ import annotations

import datetime as _dt
import struct
from typing import Any

from binlogwriter.values._temporal import date_value, datetime_value
from binlogwriter.values.decimal_binary import decode_decimal
from binlogwriter.values.json_binary_encode import (
    ALWAYS_INLINE,
    DBL,
    DOUBLE,
    I16,
    I32,
    I64,
    INT16,
    INT32,
    INT64,
    LARGE_ARRAY,
    LARGE_INLINE,
    LARGE_OBJECT,
    LITERAL,
    MAX_DEPTH,
    OPAQUE,
    SMALL_OBJECT,
    STRING,
    U16,
    U32,
    U64,
    UINT16,
    UINT32,
    UINT64,
    JsonEncodeError,
    int_digits,
    opaque,
    scalar,
)
from binlogwriter.values.temporal_layout import datetime_from_packed, time_from_packed
from binlogwriter.values.types import JsonDecimal, JsonOpaque, JsonTimestamp, JsonUInt


class _Bad(Exception):
    """Internal: malformed binary JSON."""



def read_varlen(buf: Any, pos: int, end: int) -> tuple[int, int]:
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


def opaque_value(ft: int, data: bytes) -> Any:
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
                        if p != max(1, int_digits(coeff, exp)) + s:
                            value = JsonDecimal(d, p)
        elif ft in (7, 10, 11, 12) and len(data) == 8:
            nr = I64.unpack(data)[0]
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
            if scalar(value)[1] == opaque(ft, data):
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
        n, pos = read_varlen(buf, pos, end)
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
        n, pos = read_varlen(buf, pos + 1, end)
        if pos + n > end:
            raise _Bad("opaque value runs past the end")
        return opaque_value(ft, bytes(buf[pos:pos + n]))
    st = _FIXED.get(t)
    if st is None:
        raise _Bad(f"unknown JSON node type {t:#04x}")
    if pos + st.size > end:
        raise _Bad("number runs past the end")
    v = st.unpack_from(buf, pos)[0]
    return JsonUInt(v) if t in (UINT16, UINT32, UINT64) else v


_FIXED = {INT16: I16, UINT16: U16, INT32: I32, UINT32: U32, INT64: I64, UINT64: U64, DOUBLE: DBL}


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
    inline = LARGE_INLINE if large else ALWAYS_INLINE
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
