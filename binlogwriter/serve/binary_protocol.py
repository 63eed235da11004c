"""Packets of the binary (prepared statement) protocol (docs/serve.md "Prepared statements").

Layouts from the MySQL source documentation ("COM_STMT_PREPARE", "COM_STMT_EXECUTE",
"Binary Protocol Resultset", "Binary Protocol Value") and the MariaDB knowledge base
("COM_STMT_PREPARE", "COM_STMT_EXECUTE", "Result Set Row"):

- COM_STMT_PREPARE_OK: ``0x00``, statement id (4), column count (2), parameter count (2), a
  filler ``0x00``, warning count (2); then one column definition per parameter and one per
  result column, each list closed by an EOF packet (serve does not announce
  CLIENT_DEPRECATE_EOF — auth.py ``SERVER_CAPABILITIES`` — so EOF packets follow definitions, as in
  its text result sets).
- COM_STMT_EXECUTE: ``0x17``, statement id (4), flags (1), iteration count (4); with
  parameters a NULL bitmap of ``(n + 7) / 8`` bytes (bit ``i`` = parameter ``i``), the
  new-params-bound flag (1) and, when it is 1, a (type, flag) byte pair per parameter (flag
  ``0x80``: unsigned); then each non-NULL value in its type's binary form: integers
  little-endian in 1/2/4/8 bytes (TINY; SHORT, YEAR; LONG, INT24; LONGLONG), FLOAT / DOUBLE as
  IEEE 754, DATE / DATETIME / TIMESTAMP and TIME as a length byte then their fields, every string
  type (VARCHAR, VAR_STRING, STRING, the BLOBs, DECIMAL, JSON, ENUM, SET, BIT, GEOMETRY) a
  length-encoded string. Serve does not announce CLIENT_QUERY_ATTRIBUTES, so no parameter
  count or names precede them. A type outside these gets the servers' ER_WRONG_ARGUMENTS
  "Incorrect arguments to mysqld_stmt_execute", as does a packet that ends too soon.
- A binary result set: column count, definitions, EOF, rows, EOF; a row is ``0x00``, a NULL
  bitmap of ``(columns + 7 + 2) / 8`` bytes whose first two bits are unused (column ``i`` is
  bit ``i + 2``), then each non-NULL value in its column type's binary form.
"""

from __future__ import annotations

import datetime as dt
import struct

from binlogwriter.serve.protocol import (
    ProtocolError,
    column_definition,
    eof_packet,
    lenenc_int,
    lenenc_str,
    read_lenenc_int,
)

__all__ = ["ExecuteError", "prepare_ok", "param_definition", "parse_execute", "sql_literal", "binary_result_set"]

ER_WRONG_ARGUMENTS = 1210
T_DECIMAL, T_TINY, T_SHORT, T_LONG, T_FLOAT, T_DOUBLE, T_NULL = 0, 1, 2, 3, 4, 5, 6
T_TIMESTAMP, T_LONGLONG, T_INT24, T_DATE, T_TIME, T_DATETIME, T_YEAR = 7, 8, 9, 10, 11, 12, 13
T_VARCHAR, T_BIT, T_VAR_STRING = 15, 16, 253
_INT_SIZES = {T_TINY: 1, T_SHORT: 2, T_YEAR: 2, T_LONG: 4, T_INT24: 4, T_LONGLONG: 8}
_STRING_TYPES = frozenset({T_DECIMAL, T_VARCHAR, T_BIT, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254, 255})
_UNSIGNED_FLAG = 0x20  # a column definition's UNSIGNED_FLAG
_BINARY_CHARSET = 63


class ExecuteError(Exception):
    """A COM_STMT_EXECUTE the server refuses (error code, message, SQLSTATE)."""

    def __init__(self, code: int, message: str, state: str = "HY000") -> None:
        super().__init__(message)
        self.code, self.state = code, state


def _bad() -> ExecuteError:
    return ExecuteError(ER_WRONG_ARGUMENTS, "Incorrect arguments to mysqld_stmt_execute")


def prepare_ok(stmt_id: int, columns: int, params: int, warnings: int = 0) -> bytes:
    """The COM_STMT_PREPARE_OK packet (module docstring)."""
    return struct.pack("<BIHHBH", 0, stmt_id, columns, params, 0, warnings)


def param_definition() -> bytes:
    """A parameter's column definition: name ``?``, VAR_STRING of the binary charset (the type
    a parameter whose type the statement does not fix has)."""
    return column_definition("?", org_name="", charset=_BINARY_CHARSET, length=0, ctype=T_VAR_STRING, flags=0x80)


def _temporal(data: bytes, pos: int, kind: int) -> tuple[object, int]:
    n = data[pos]
    body = data[pos + 1: pos + 1 + n]
    if len(body) != n or n not in ((0, 8, 12) if kind == T_TIME else (0, 4, 7, 11)):
        raise _bad()
    pos += 1 + n
    if kind == T_TIME:
        neg, days, h, m, s, us = struct.unpack("<BIBBBI", body.ljust(12, b"\x00"))
        hours = days * 24 + h
        return f"{'-' if neg else ''}{hours:02d}:{m:02d}:{s:02d}" + (f".{us:06d}" if us else ""), pos
    y, mo, d, h, mi, s, us = struct.unpack("<HBBBBBI", body.ljust(11, b"\x00"))
    if kind == T_DATE:
        return f"{y:04d}-{mo:02d}-{d:02d}", pos
    return f"{y:04d}-{mo:02d}-{d:02d} {h:02d}:{mi:02d}:{s:02d}" + (f".{us:06d}" if us else ""), pos


def _value(data: bytes, pos: int, kind: int, unsigned: bool) -> tuple[object, int]:
    """(value, next position) of one parameter of ``kind`` at ``pos`` (module docstring)."""
    if kind in _INT_SIZES:
        size = _INT_SIZES[kind]
        if pos + size > len(data):
            raise _bad()
        return int.from_bytes(data[pos: pos + size], "little", signed=not unsigned), pos + size
    if kind in (T_FLOAT, T_DOUBLE):
        fmt = "<f" if kind == T_FLOAT else "<d"
        size = struct.calcsize(fmt)
        if pos + size > len(data):
            raise _bad()
        return struct.unpack_from(fmt, data, pos)[0], pos + size
    if kind in (T_DATE, T_DATETIME, T_TIMESTAMP, T_TIME):
        if pos >= len(data):
            raise _bad()
        return _temporal(data, pos, kind)
    if kind in _STRING_TYPES:
        try:
            n, pos = read_lenenc_int(data, pos)
        except ProtocolError:
            raise _bad() from None
        if pos + n > len(data):
            raise _bad()
        return data[pos: pos + n], pos + n
    raise _bad()


def parse_execute(payload: bytes, nparams: int, types: list[tuple[int, int]] | None,
                  long_data: dict[int, bytes] | None = None) -> tuple[list[object], list[tuple[int, int]]]:
    """(parameter values, their (type, flag) pairs) of a COM_STMT_EXECUTE ``payload`` (the
    statement id already read) for a statement of ``nparams`` parameters; ``types``: the pairs
    bound by the previous execution (reused when the new-params-bound flag is 0). A parameter
    in ``long_data`` (COM_STMT_SEND_LONG_DATA) takes that value and has none in the packet.
    Values: None (NULL), int, float, bytes (strings), str (temporals)."""
    pos = 10  # command, statement id, flags, iteration count
    if len(payload) < pos:
        raise _bad()
    if not nparams:
        return [], []
    long_data = long_data or {}
    nb = (nparams + 7) // 8
    if len(payload) < pos + nb + 1:
        raise _bad()
    nulls = payload[pos: pos + nb]
    pos += nb
    bound = payload[pos]
    pos += 1
    if bound:
        if len(payload) < pos + 2 * nparams:
            raise _bad()
        types = [(payload[pos + 2 * i], payload[pos + 2 * i + 1]) for i in range(nparams)]
        pos += 2 * nparams
    elif types is None or len(types) != nparams:
        raise _bad()  # no types were ever bound
    values: list[object] = []
    for i, (kind, flag) in enumerate(types):
        if i in long_data:
            values.append(long_data[i])
        elif nulls[i // 8] >> (i % 8) & 1 or kind == T_NULL:
            values.append(None)
        else:
            v, pos = _value(payload, pos, kind, bool(flag & 0x80))
            values.append(v)
    return values, types


_ESCAPE = {"\\": "\\\\", "'": "\\'", "\0": "\\0", "\n": "\\n", "\r": "\\r", "\x1a": "\\Z"}


def sql_literal(v: object) -> str:
    """``v`` as the SQL literal the statement text gets in place of its ``?`` (MySQL reference
    manual "String Literals": backslash, quote, NUL, newline, return and Ctrl-Z escaped)."""
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):  # a whole number as the integer literal (mysql2 binds numbers as DOUBLE)
        text = repr(v)
        return text[:-2] if text.endswith(".0") else text
    text = v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)
    return "'" + "".join(_ESCAPE.get(c, c) for c in text) + "'"


def _column_type(definition: bytes) -> tuple[int, int]:
    """(type, flags) of a ColumnDefinition41 payload."""
    pos = 0
    for _ in range(6):  # catalog, schema, table, org_table, name, org_name
        n, pos = read_lenenc_int(definition, pos)
        pos += n
    _fixed, pos = read_lenenc_int(definition, pos)
    _charset, _length, kind, flags = struct.unpack_from("<HIBH", definition, pos)
    return kind, flags


def _binary_value(text: bytes, kind: int, flags: int) -> bytes:
    if kind in _INT_SIZES:
        return int(text).to_bytes(_INT_SIZES[kind], "little", signed=not flags & _UNSIGNED_FLAG)
    if kind == T_DOUBLE:
        return struct.pack("<d", float(text))
    if kind == T_FLOAT:
        return struct.pack("<f", float(text))
    if kind in (T_DATE, T_DATETIME, T_TIMESTAMP):
        d = dt.datetime.fromisoformat(text.decode("ascii"))
        return bytes([11]) + struct.pack("<HBBBBBI", d.year, d.month, d.day, d.hour, d.minute, d.second,
                                         d.microsecond)
    return lenenc_str(text)


def binary_row(values: list[bytes | None], columns: list[tuple[int, int]]) -> bytes:
    """A binary result set row of ``values`` (text forms; None is NULL) for columns of the
    given (type, flags) (module docstring)."""
    bitmap = bytearray((len(columns) + 7 + 2) // 8)
    body = []
    for i, (v, (kind, flags)) in enumerate(zip(values, columns, strict=True)):
        if v is None:
            bitmap[(i + 2) // 8] |= 1 << ((i + 2) % 8)
        else:
            body.append(_binary_value(v, kind, flags))
    return b"\x00" + bytes(bitmap) + b"".join(body)


def _text_row(payload: bytes, ncols: int) -> list[bytes | None]:
    out: list[bytes | None] = []
    pos = 0
    for _ in range(ncols):
        if payload[pos] == 0xFB:
            out.append(None)
            pos += 1
        else:
            n, pos = read_lenenc_int(payload, pos)
            out.append(payload[pos: pos + n])
            pos += n
    return out


def binary_result_set(text: list[bytes]) -> list[bytes]:
    """The binary form of the answer ``text`` a COM_QUERY would get: an OK or ERR packet as it
    is; a text result set (count, definitions, EOF, rows, EOF) with its rows re-encoded."""
    if not text or text[0][:1] in (b"\x00", b"\xff"):
        return text
    ncols, _ = read_lenenc_int(text[0], 0)
    defs = text[1: 1 + ncols]
    columns = [_column_type(d) for d in defs]
    rows = text[2 + ncols: -1]
    return [lenenc_int(ncols), *defs, eof_packet(),
            *(binary_row(_text_row(r, ncols), columns) for r in rows), eof_packet()]


def column_definitions(text: list[bytes]) -> list[bytes]:
    """The column definitions of a text result set ``text`` ([] for an OK or ERR packet)."""
    if not text or text[0][:1] in (b"\x00", b"\xff"):
        return []
    ncols, _ = read_lenenc_int(text[0], 0)
    return text[1: 1 + ncols]
