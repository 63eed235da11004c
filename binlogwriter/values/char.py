"""The char family: CHAR VARCHAR BINARY VARBINARY (values.md §5, §6).

CHAR/BINARY are type 254 (metadata ``[real_type ^ ((len & 0x300) >> 4), len & 0xff]``),
VARCHAR/VARBINARY type 15 (metadata: max bytes). Text columns → ``str``, binary → ``bytes``
(values/_strings.py has the charset rules). CHAR: trailing pad is not logged; decoding a CHAR
gives the unpadded ``str``, decoding a BINARY(n) the full ``n`` bytes re-padded with 0x00.
MariaDB's ``VARCHAR … COMPRESSED`` (141, not a schema type) has VARCHAR's metadata and layout;
its value is the stored bytes (a compression header byte and the data), as mariadb-binlog
prints them (not decompressed).
"""

from __future__ import annotations

from collections.abc import Callable
from operator import methodcaller
from typing import TYPE_CHECKING, Any

import construct as cs
import numpy as np

from binlogwriter.values._common import (
    REGISTRY,
    Bound,
    Codec,
    Fixed,
    Var,
    decode_error,
    register,
    value_error,
)
from binlogwriter.values._strings import (
    STRING_META,
    Text,
    bytes_many,
    check_len,
    length_prefixed_many,
    sql_len,
    stored_bytes_bound,
    text_bytes_many,
    text_joined_many,
    text_renderer,
    where,
)
from binlogwriter.values._text import quote_bytes
from binlogwriter.values.base import ColumnDesc
from binlogwriter.values.enum_set import bind_enum, bind_set

if TYPE_CHECKING:
    from binlogwriter.schema.model import Column

__all__ = ["FAMILY", "SQL_TYPES", "TYPE_CODES", "StringCodec", "VarcharCodec", "CompressedVarcharCodec", "binlog_type", "binlog_meta", "renderer",
           "truth_renderer", "arrow_type", "type_text"]

FAMILY = "char"
SQL_TYPES = ("CHAR", "VARCHAR", "BINARY", "VARBINARY")
TYPE_CODES = (254, 253, 15, 141)  # 254/253 with ENUM/SET in the metadata go to values/enum_set.py
# CHAR/BINARY's bound codec has no vectorised encoder (VARCHAR's has): ASCII text goes through
# encode_ascii_many below, anything else through the scalar encoder (values/row.py)


@register
class StringCodec(Codec):
    """Type 254 STRING (and 253 VAR_STRING) whose real type is STRING: CHAR/BINARY (values.md §5).

    :func:`~binlogwriter.values.codec_for` sends type-254 columns whose metadata names ENUM or
    SET to :class:`EnumCodec` / :class:`SetCodec`; ``bind`` here dispatches the same way so that
    calling it directly on any type-254 column is still right.
    """

    type_codes = (254, 253)
    meta_layout = STRING_META

    def bind(self, col: ColumnDesc) -> Bound:
        m = self.parse_meta(col)
        if m.real_type == 247:
            return bind_enum(col, m.length)
        if m.real_type == 248:
            return bind_set(col, m.length)
        return _bind_char(col, m.length)


def _bind_char(col: ColumnDesc, field_length: int) -> Bound:
    t = Text(col)
    sql = sql_len("CHAR", "BINARY", field_length, t)
    wide = field_length > 255
    lb = 2 if wide else 1
    repad = t.binary
    pad = t.pad_unit

    def encode(value: Any) -> bytes:
        bad = t.too_long(value, field_length, padded=True)
        if bad is not None:
            raise value_error(col, sql, bad)
        try:
            data, chars = t.to_bytes(value)
        except ValueError as exc:
            raise value_error(col, sql, str(exc)) from None
        stripped = t.strip(data)
        if chars is not None and len(stripped) != len(data):
            # trailing pad is not part of a CHAR value: count characters without it
            chars = len(value.rstrip(" ")) if isinstance(value, str) else len(t.from_bytes(stripped))
        data = stripped
        check_len(col, sql, t, data, chars, field_length)
        return len(data).to_bytes(lb, "little") + data

    def decode(buf: Any, pos: int) -> tuple[Any, int]:
        if pos + lb > len(buf):
            raise decode_error(col, f"{sql} length needs {lb} bytes at {pos}")
        n = buf[pos] if not wide else buf[pos] | buf[pos + 1] << 8
        start = pos + lb
        end = start + n
        if end > len(buf):
            raise decode_error(col, f"{sql} value of {n} bytes at {start} runs past the end ({len(buf)})")
        data = bytes(buf[start:end])
        if pad and data.endswith(pad):
            # no server logs a CHAR's trailing pad (Field_string::pack strips it): the value
            # would encode to other bytes — the event is kept raw (values.md §5)
            from binlogwriter.layouts.control import NonCanonical

            raise NonCanonical(f"{where(col)}: {sql} value of {n} bytes at {start} ends "
                               f"with the pad {pad.hex()} the server strips")
        if repad:
            return data.ljust(field_length, b"\x00"), end
        return t.from_bytes(data), end

    def encode_many(values: list) -> list | None:
        # length (1 or 2 bytes LE) then the value without its trailing pad (values.md §5):
        # text in a charset whose pad is the single byte 0x20 (a space is that byte alone,
        # never part of another character), or BINARY bytes without trailing 0x00
        if t.text and pad == b" ":
            if set(map(type, values)) - {str}:
                return None
            got = text_bytes_many(t, list(map(_RSTRIP_SPACE, values)))
            if got is None:
                return None
            datas, chars = got
            if len(chars) and int(chars.max()) * t.mbmaxlen > field_length:
                return None  # the scalar encoder checks the exact rule
        elif t.binary and bytes_many(values) is not None:
            datas, chars = list(map(_RSTRIP_ZERO, values)), None
        else:
            return None
        lengths = np.fromiter(map(len, datas), dtype=np.int64, count=len(datas))
        if len(lengths) and int(lengths.max()) > field_length:
            return None
        return length_prefixed_many(datas, lb, lengths)

    return Bound(col, sql, encode, decode, None, "str" if t.text else "bytes", encode_many)


_RSTRIP_SPACE = methodcaller("rstrip", " ")
_RSTRIP_ZERO = methodcaller("rstrip", b"\x00")


@register
class VarcharCodec(Codec):
    """VARCHAR/VARBINARY (15): metadata = max bytes (u16 LE); 1 length byte if max ≤ 255 else 2 (§6)."""

    type_codes = (15,)
    meta_layout = cs.Struct("max_bytes" / cs.Int16ul)

    def bind(self, col: ColumnDesc) -> Bound:
        max_bytes = self.parse_meta(col).max_bytes
        t = Text(col)
        sql = sql_len("VARCHAR", "VARBINARY", max_bytes, t)
        wide = max_bytes > 255
        lb = 2 if wide else 1

        def encode(value: Any) -> bytes:
            bad = t.too_long(value, max_bytes)
            if bad is not None:
                raise value_error(col, sql, bad)
            try:
                data, chars = t.to_bytes(value)
            except ValueError as exc:
                raise value_error(col, sql, str(exc)) from None
            if len(data) > max_bytes or (chars is not None and chars * t.mbmaxlen > max_bytes):
                check_len(col, sql, t, data, chars, max_bytes)
            return len(data).to_bytes(lb, "little") + data

        def encode_many(values: list) -> list | None:
            # length (1 or 2 bytes LE) then the bytes in the column's charset (values.md §6)
            mb = t.mbmaxlen
            fast = text_joined_many(t, values) if t.text else None
            if fast is None and not t.text and bytes_many(values) is not None:
                fast = b"".join(values), np.fromiter(map(len, values), dtype=np.int64, count=len(values)), None
            if fast is not None:  # the whole list at once: same bytes, same checks
                data, lengths, chars = fast
                if len(lengths) and (int(lengths.max()) > max_bytes
                                     or (chars is not None and int(chars.max()) * mb > max_bytes)):
                    return None
                return length_prefixed_many(data, lb, lengths)
            to_bytes = t.to_bytes
            datas = []
            for v in values:
                try:
                    data, chars = to_bytes(v)
                except ValueError:
                    return None
                if len(data) > max_bytes or (chars is not None and chars * mb > max_bytes):
                    return None  # the scalar encoder checks the exact rule
                datas.append(data)
            return length_prefixed_many(datas, lb)

        def decode(buf: Any, pos: int) -> tuple[Any, int]:
            if pos + lb > len(buf):
                raise decode_error(col, f"{sql} length needs {lb} bytes at {pos}")
            n = buf[pos] if not wide else buf[pos] | buf[pos + 1] << 8
            start = pos + lb
            end = start + n
            if end > len(buf):
                raise decode_error(col, f"{sql} value of {n} bytes at {start} runs past the end ({len(buf)})")
            return t.from_bytes(bytes(buf[start:end])), end

        return Bound(col, sql, encode, decode, None, "str" if t.text else "bytes", encode_many)


@register
class CompressedVarcharCodec(Codec):
    """MariaDB VARCHAR COMPRESSED (141): VARCHAR's metadata (max bytes, u16 LE) and layout (1
    length byte if max ≤ 255 else 2; values.md §6); the value is the stored bytes
    (``bytes``: the compression header byte and the data), which mariadb-binlog prints."""

    type_codes = (141,)
    meta_layout = cs.Struct("max_bytes" / cs.Int16ul)

    def bind(self, col: ColumnDesc) -> Bound:
        max_bytes = self.parse_meta(col).max_bytes
        return stored_bytes_bound(col, f"VARCHAR({max_bytes}) COMPRESSED", 2 if max_bytes > 255 else 1, max_bytes)


_ASCII_SAME = frozenset({"utf8mb4", "utf8mb3", "utf8", "latin1", "ascii"})


def _ascii_target(col: ColumnDesc) -> tuple[int, bool, Text] | None:
    """(max bytes, whether trailing spaces are stripped — CHAR, the column's text) of a
    CHAR/VARCHAR column whose charset writes ASCII as itself, else None."""
    if col.type_code == 15:
        try:
            max_bytes = VarcharCodec.meta_layout.parse(bytes(col.meta)).max_bytes
        except Exception:  # noqa: BLE001 - bad metadata: the scalar path reports it
            return None
        strip = False
    elif col.type_code in (254, 253):
        try:
            m = STRING_META.parse(bytes(col.meta))
        except Exception:  # noqa: BLE001
            return None
        if m.real_type != 254:
            return None
        max_bytes = m.length
        strip = True
    else:
        return None
    t = Text(col)
    if not t.text or t.charset not in _ASCII_SAME:
        return None
    return max_bytes, strip, t


def _too_long(t: Text, max_bytes: int, longest: int) -> bool:
    """An ASCII value of ``longest`` bytes (as many characters) does not fit: the scalar
    encoder's checks (bytes, and characters times the charset's widest)."""
    return longest > max_bytes or (t.mbmaxlen > 1 and longest > max_bytes // t.mbmaxlen)


def encode_ascii_many(col: ColumnDesc, mat: np.ndarray) -> list | None:
    """Vectorised CHAR/VARCHAR values given as ASCII text, one (n, width) uint8 row per
    value (values.md §5, §6): the same bytes as the scalar encoders of those strings —
    length prefix (1 byte, 2 when the column holds more than 255 bytes), the bytes (ASCII
    is its own encoding in these charsets), CHAR without its trailing spaces. None when
    the column is not such a text column or a value would not fit (the scalar encoder
    then runs and raises)."""
    target = _ascii_target(col)
    if target is None or mat.ndim != 2:
        return None
    max_bytes, strip, t = target
    n, w = mat.shape
    if n and w and int(mat.max()) >= 128:
        return None
    lengths = np.full(n, w, dtype=np.int64)
    if strip and w and (mat[:, w - 1] == 0x20).any():  # else no value ends in a space: all full width
        nonsp = mat != 0x20
        last = w - np.argmax(nonsp[:, ::-1], axis=1)
        lengths = np.where(nonsp.any(axis=1), last, 0).astype(np.int64)
    if _too_long(t, max_bytes, int(lengths.max()) if n else 0):
        return None
    lb = 2 if max_bytes > 255 else 1
    prefix = lengths.astype("<u8").view(np.uint8).reshape(-1, 8)[:, :lb]
    if not n or int(lengths.min()) == w:
        return [Fixed(prefix), Fixed(mat)]
    flat = mat[np.arange(w)[None, :] < lengths[:, None]]
    return [Fixed(prefix), Var(flat, lengths)]


def encode_runs_many(col: ColumnDesc, at: np.ndarray, flat: np.ndarray) -> list | None:
    """Vectorised VARCHAR/CHAR values given as byte runs (ColumnArray "runs": value
    ``r`` is ``flat[at[r, 0]:at[r, 0] + at[r, 1]]``): the bytes :func:`encode_ascii_many`
    writes for the same texts — length prefix (1 or 2 bytes), the bytes (values.md §5,
    §6). None when the column is not such a text column, a byte is not ASCII, a value does
    not fit, or a CHAR value ends in a space (the scalar encoder strips it): the scalar
    encoder then runs (and raises)."""
    from binlogwriter.batch.scatter import run_indices

    target = _ascii_target(col)
    if target is None or at.ndim != 2:
        return None
    max_bytes, strip, t = target
    starts, lengths = at[:, 0], at[:, 1]
    n = len(at)
    data = np.asarray(flat, dtype=np.uint8)[run_indices(starts, lengths)] if n else np.zeros(0, np.uint8)
    if len(data) and int(data.max()) >= 128:
        return None
    if strip and n:
        ends = np.cumsum(lengths)
        last = ends[lengths > 0] - 1
        if len(last) and (data[last] == 0x20).any():
            return None
    if _too_long(t, max_bytes, int(lengths.max()) if n else 0):
        return None
    lb = 2 if max_bytes > 255 else 1
    prefix = lengths.astype("<u8").view(np.uint8).reshape(-1, 8)[:, :lb]
    return [Fixed(prefix), Var(data, lengths.astype(np.int64))]


# -- schema -> binlog (values.md §1, §5, §6) ------------------------------------------------

def binlog_type(col: Column, flavor: str = "mysql80") -> int:
    """CHAR/BINARY STRING 254, VARCHAR/VARBINARY VARCHAR 15 (values.md §1)."""
    return 254 if col.type in ("CHAR", "BINARY") else 15


def binlog_meta(col: Column, flavor: str = "mysql80") -> bytes:
    """CHAR/BINARY ``[254 ^ ((len & 0x300) >> 4), len & 0xff]`` (values.md §5); VARCHAR and
    VARBINARY the max bytes, u16 LE (§6)."""
    n = col.byte_length(flavor) or 0
    if col.type in ("CHAR", "BINARY"):
        return bytes((254 ^ ((n & 0x300) >> 4), n & 0xFF))
    return n.to_bytes(2, "little")


# -- mysqlbinlog text (values/render.py) -------------------------------------------------

def renderer(col: ColumnDesc, family: str = "mariadb") -> Callable[[Any], str]:
    """Quoted from the stored bytes (values/_strings.py text_renderer; COMPRESSED: the bytes
    as stored)."""
    if col.type_code == 141:
        return lambda v: quote_bytes(bytes(v), family)
    return text_renderer(col, family)


# -- exports and typed truth (read/export.py) --------------------------------------------

def arrow_type(col: ColumnDesc) -> Any:
    """The Arrow type of the values in exports and typed truth: string for text columns,
    binary for the others."""
    import pyarrow as pa

    # this family's codec for the column's type code (registered by this module)
    return pa.string() if REGISTRY[col.type_code].bind(col).python_type == "str" else pa.binary()


# -- ground truth (docs/output.md "Canonical row form") -----------------------------------

def truth_renderer(col: Column, flavor: str) -> Callable[[Any], Any]:
    """CHAR without trailing spaces, VARCHAR as is, BINARY as ``0x`` hex padded with 0x00 to
    n bytes as the server stores it, VARBINARY as ``0x`` hex."""
    t = col.type
    if t == "CHAR":
        return lambda v: v.rstrip(" ")
    if t == "VARCHAR":
        return str
    if t == "BINARY":
        n = col.char_length() or 1
        return lambda v: "0x" + bytes(v).ljust(n, b"\0").hex()
    return lambda v: "0x" + bytes(v).hex()


def type_text(type_code: int, meta: int, family: str = "mariadb") -> str | None:
    """The ``-vv`` comment type: ``VARSTRING(max bytes)`` for 15/253, ``STRING(length)`` for
    254, whose length a long CHAR hides partly in the metadata's first byte (values.md §5)."""
    if type_code == 141:
        return f"VARSTRING({meta}) COMPRESSED"
    if type_code != 254:
        return f"VARSTRING({meta})"
    length = meta
    if meta >= 256:
        byte0, byte1 = meta >> 8, meta & 0xFF
        length = byte1 | (((byte0 & 0x30) ^ 0x30) << 4) if (byte0 & 0x30) != 0x30 else byte1
    return f"STRING({length})"
