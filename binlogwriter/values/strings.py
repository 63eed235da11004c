"""CHAR/BINARY, ENUM, SET (254 with the real-type trick), VARCHAR (15), BLOB/TEXT (252),
GEOMETRY (255) and VECTOR (242) (values.md §5, §6, §8, §9).

Python types (the column's collation comes from ``ColumnDesc.collation``, charsets.md):

* Text columns (collation known, not ``binary``, charset with a Python codec) → ``str``.
  Encoders take ``str`` (encoded in the column charset; characters the charset cannot hold,
  e.g. an emoji in utf8mb3/ucs2/latin1, are refused) or ``bytes`` already in that charset.
  Bytes that do not decode in the charset decode to ``bytes`` (nothing is lost).
* Binary columns (collation 63) → ``bytes``. Encoders take bytes-like values, or ``str``
  (stored as its UTF-8 bytes).
* Unknown collation (None, an id no server has, or a charset without a Python codec such as
  dec8) → ``bytes`` both ways, stored as given.
* CHAR: trailing pad is not logged (spaces for text charsets — the 2/4-byte space code unit
  for ucs2/utf16/utf16le/utf32 — and 0x00 for BINARY); decoding a CHAR gives the unpadded
  ``str`` (what MySQL returns), decoding a BINARY(n) gives the full ``n`` bytes re-padded with
  0x00 (what MySQL returns; MariaDB UUID/INET6/INET4 are BINARY(16)/(4)). With an unknown
  collation the bytes are stored and returned as given.
* Lengths are checked in bytes against the metadata and, for text, in characters against
  ``max bytes / mbmaxlen`` ("VARCHAR(10) utf8mb4 holds 10 characters, got 11").
* ENUM → the member ``str``; index 0 (the invalid-value entry) → ``''``; ``int`` index when the
  members are unknown (``ColumnDesc.enum_values`` None) or the index is past the last member.
  Encoders take a member ``str`` (exact match) or an ``int`` index.
* SET → ``frozenset`` of member ``str``; ``int`` bitmask when the members are unknown or a bit
  has no member. Encoders take any iterable of members, a comma-separated ``str``, or an
  ``int`` bitmask.
* GEOMETRY → :class:`~binlogwriter.values.types.Geometry` (SRID + WKB). Encoders also take
  ``bytes`` = 4-byte LE SRID followed by WKB.
* VECTOR (MySQL 9, UNVERIFIED layout) → ``list[float]`` of float32 values.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable
from typing import Any

import construct as cs
import numpy as np

from binlogwriter.charsets import Collation, find_collation
from binlogwriter.errors import SchemaError
from binlogwriter.values._common import (
    Bound,
    Codec,
    Fixed,
    Var,
    decode_error,
    describe,
    register,
    value_error,
)
from binlogwriter.values.base import ColumnDesc
from binlogwriter.values.types import Geometry

__all__ = ["StringCodec", "EnumCodec", "SetCodec", "VarcharCodec", "BlobCodec", "GeometryCodec", "VectorCodec",
           "parse_string_meta", "string_real_type", "column_collation"]

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_BYTES = (bytes, bytearray, memoryview)

STRING_META = cs.Struct(
    "byte0" / cs.Int8ul,
    "byte1" / cs.Int8ul,
    "real_type" / cs.Computed(lambda this: this.byte0 | 0x30 if (this.byte0 & 0x30) != 0x30 else this.byte0),
    "length" / cs.Computed(lambda this: this.byte1 | ((((this.byte0 & 0x30) ^ 0x30) << 4)
                                                      if (this.byte0 & 0x30) != 0x30 else 0)),
)
"""Type 254/253 metadata ``[real_type ^ ((len & 0x300) >> 4), len & 0xff]`` (values.md §5)."""


def parse_string_meta(meta: bytes) -> tuple[int, int]:
    """(real type, second value) of type-254 metadata: for STRING the byte length, for
    ENUM/SET the storage bytes (values.md §5)."""
    m = STRING_META.parse(bytes(meta))
    return m.real_type, m.length


def string_real_type(col: ColumnDesc) -> int:
    """The real type of a type-254 (or 253) column: 254 STRING, 247 ENUM or 248 SET.

    Other type codes are returned unchanged.
    """
    if col.type_code not in (253, 254) or len(col.meta) != 2:
        return col.type_code
    return parse_string_meta(col.meta)[0]


def column_collation(col: ColumnDesc) -> Collation | None:
    """The column's collation, or None when it is unknown (strings then stay bytes)."""
    if col.collation is None:
        return None
    return find_collation(col.collation, col.flavor)


class _Text:
    """How one column's strings turn into stored bytes and back (charsets.md rules)."""

    def __init__(self, col: ColumnDesc) -> None:
        coll = column_collation(col)
        self.coll = coll
        self.binary = coll is not None and coll.is_binary
        self.text = coll is not None and not coll.is_binary and coll.codec is not None
        self.raw = not (self.binary or self.text)  # bytes as given
        self.mbmaxlen = coll.mbmaxlen if coll is not None else 1
        self.charset = coll.charset if coll is not None else None
        self.bmp_only = self.charset in ("utf8mb3", "ucs2")
        cs_ = self.charset
        if coll is None:
            self.pad_unit = b""
        elif self.binary:
            self.pad_unit = b"\x00"
        elif cs_ in ("ucs2", "utf16"):
            self.pad_unit = b"\x00 "
        elif cs_ == "utf16le":
            self.pad_unit = b" \x00"
        elif cs_ == "utf32":
            self.pad_unit = b"\x00\x00\x00 "
        else:
            self.pad_unit = b" "

    def label(self) -> str:
        if self.coll is None or self.binary:
            return ""
        return " " + (self.charset or "")

    def to_bytes(self, value: Any) -> tuple[bytes, int | None]:
        """(stored bytes, number of characters or None when unknown); raises ValueError with the rule."""
        if isinstance(value, str):
            if self.text:
                assert self.coll is not None
                if self.bmp_only:
                    m = _ASTRAL.search(value)
                    if m:
                        raise ValueError(f"character {m.group()!r} (U+{ord(m.group()):04X}) cannot be "
                                         f"stored in {self.charset}")
                try:
                    return self.coll.encode(value), len(value)
                except UnicodeEncodeError as exc:
                    bad = value[exc.start:exc.end]
                    raise ValueError(f"character {bad!r} (U+{ord(bad[0]):04X}) cannot be stored in "
                                     f"{self.charset}") from None
            if self.binary:
                return value.encode("utf-8"), None
            raise ValueError(f"column charset {'unknown' if self.coll is None else self.charset} has no "
                             f"Python codec: pass bytes, got {describe(value)}")
        if isinstance(value, _BYTES):
            data = bytes(value)
            if self.text:
                try:
                    return data, len(self.coll.decode(data))  # type: ignore[union-attr]
                except (UnicodeDecodeError, ValueError):
                    return data, None
            return data, None
        raise ValueError(f"needs {'str or bytes' if self.text else 'bytes'}, got {describe(value)}")

    def too_long(self, value: Any, max_bytes: int, padded: bool = False) -> str | None:
        """The length rule a value breaks, from its length alone (O(1), before any charset
        encoding: a character is at least one byte in every charset), or None when only
        its encoding can tell. ``padded`` (CHAR): trailing pad is dropped, so a value ending
        with it is left to the exact check."""
        if not isinstance(value, (str, *_BYTES)):
            return None
        n = len(value)
        if n <= max_bytes:
            return None
        if padded:
            pad = " " if isinstance(value, str) else self.pad_unit
            if pad and value[-len(pad):] == pad:
                return None
        if isinstance(value, str):
            if self.text and self.mbmaxlen > 1:
                return f"holds {max_bytes // self.mbmaxlen} characters, got {n}"
            return f"holds {max_bytes} bytes, got {n} characters"
        return f"holds {max_bytes} bytes, got {n}"

    def from_bytes(self, data: bytes) -> Any:
        if self.text:
            try:
                return self.coll.decode(data)  # type: ignore[union-attr]
            except (UnicodeDecodeError, ValueError):
                return data
        return data

    def strip(self, data: bytes) -> bytes:
        unit = self.pad_unit
        if not unit:
            return data
        if len(unit) == 1:
            return data.rstrip(unit)
        n = len(unit)
        end = len(data)
        while end >= n and data[end - n:end] == unit:
            end -= n
        return data[:end]


def _check_len(col: ColumnDesc, sql: str, t: _Text, data: bytes, chars: int | None,
               max_bytes: int) -> None:
    if len(data) > max_bytes:
        raise value_error(col, sql, f"holds {max_bytes} bytes, got {len(data)}")
    if chars is not None and t.text and t.mbmaxlen > 1:
        max_chars = max_bytes // t.mbmaxlen
        if chars > max_chars:
            raise value_error(col, sql, f"holds {max_chars} characters, got {chars}")


def _sql_len(kind_text: str, kind_bin: str, max_bytes: int, t: _Text) -> str:
    if t.binary or t.coll is None:
        return f"{kind_bin}({max_bytes})"
    return f"{kind_text}({max_bytes // t.mbmaxlen}){t.label()}"


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
            return _bind_enum(col, m.length)
        if m.real_type == 248:
            return _bind_set(col, m.length)
        return _bind_char(col, m.length)


@register
class EnumCodec(Codec):
    """ENUM: type 254 with metadata ``f7 <storage 1|2>``; value = 1-based index, LE (values.md §6)."""

    type_codes = (247,)
    meta_layout = STRING_META

    def bind(self, col: ColumnDesc) -> Bound:
        return _bind_enum(col, self.parse_meta(col).length)


@register
class SetCodec(Codec):
    """SET: type 254 with metadata ``f8 <storage 1,2,3,4,8>``; value = LE bitmask (values.md §6)."""

    type_codes = (248,)
    meta_layout = STRING_META

    def bind(self, col: ColumnDesc) -> Bound:
        return _bind_set(col, self.parse_meta(col).length)


def _bind_char(col: ColumnDesc, field_length: int) -> Bound:
    t = _Text(col)
    sql = _sql_len("CHAR", "BINARY", field_length, t)
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
        _check_len(col, sql, t, data, chars, field_length)
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

            raise NonCanonical(f"{_where(col)}: {sql} value of {n} bytes at {start} ends "
                               f"with the pad {pad.hex()} the server strips")
        if repad:
            return data.ljust(field_length, b"\x00"), end
        return t.from_bytes(data), end

    return Bound(col, sql, encode, decode, None, "str" if t.text else "bytes")


def _members_text(members: tuple[str, ...]) -> str:
    shown = ",".join(repr(m) for m in members[:5])
    return shown + (f",… ({len(members)} members)" if len(members) > 5 else "")


def _where(col: ColumnDesc) -> str:
    return ".".join(p for p in (col.table, col.name) if p) or "column"


def _distinct(members: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """ENUM/SET members, or None (values as int index / bitmask) when two members have the
    same name: no server accepts that, and a name would not say which index it stands for."""
    if members is not None and len(set(members)) != len(members):
        return None
    return members


def _bind_enum(col: ColumnDesc, storage: int) -> Bound:
    if storage not in (1, 2):
        raise SchemaError(f"ENUM storage must be 1 or 2 bytes, metadata says {storage}"
                          f" - at {col.table}.{col.name}")
    members = _distinct(col.enum_values)
    sql = f"ENUM({_members_text(members)})" if members is not None else "ENUM"
    index = {m: i + 1 for i, m in enumerate(members)} if members is not None else {}
    limit = len(members) if members is not None else (1 << (8 * storage)) - 1

    def encode(value: Any) -> bytes:
        if isinstance(value, str):
            i = index.get(value)
            if i is None:
                if value == "":
                    i = 0
                elif members is None:
                    raise value_error(col, sql, f"members unknown: pass the int index, got {value!r}")
                else:
                    raise value_error(col, sql, f"{value!r} is not a member")
        elif isinstance(value, int) and not isinstance(value, bool):
            i = value
            if not 0 <= i <= limit:
                raise value_error(col, sql, f"index {i} is out of range 0..{limit}")
        else:
            raise value_error(col, sql, f"needs a member str or int index, got {describe(value)}")
        return i.to_bytes(storage, "little")

    def decode(buf: Any, pos: int) -> tuple[Any, int]:
        end = pos + storage
        if end > len(buf):
            raise decode_error(col, f"ENUM needs {storage} bytes at {pos}")
        i = buf[pos] if storage == 1 else buf[pos] | buf[pos + 1] << 8
        if members is None:
            return i, end
        if i == 0:
            return "", end
        if i <= len(members):
            return members[i - 1], end
        return i, end

    return Bound(col, sql, encode, decode, storage, "str | int")


def _bind_set(col: ColumnDesc, storage: int) -> Bound:
    if storage not in (1, 2, 3, 4, 8):
        raise SchemaError(f"SET storage must be 1, 2, 3, 4 or 8 bytes, metadata says {storage}"
                          f" - at {col.table}.{col.name}")
    members = _distinct(col.set_values)
    if members is not None and len(members) > 8 * storage:
        raise SchemaError(f"SET with {len(members)} members does not fit {storage} bytes"
                          f" - at {col.table}.{col.name}")
    sql = f"SET({_members_text(members)})" if members is not None else "SET"
    bit = {m: 1 << i for i, m in enumerate(members)} if members is not None else {}
    nbits = len(members) if members is not None else 8 * storage

    def encode(value: Any) -> bytes:
        if isinstance(value, int) and not isinstance(value, bool):
            mask = value
            if not 0 <= mask < (1 << nbits):
                raise value_error(col, sql, f"bitmask {mask:#x} has bits beyond the {nbits} members")
        else:
            if isinstance(value, str):
                items: Iterable[Any] = value.split(",") if value else ()
            elif isinstance(value, set | frozenset | list | tuple):
                items = value
            else:
                raise value_error(col, sql, f"needs a set of members, a str or an int bitmask, "
                                            f"got {describe(value)}")
            if members is None:
                raise value_error(col, sql, "members unknown: pass the int bitmask")
            mask = 0
            for item in items:
                b = bit.get(item) if isinstance(item, str) else None
                if b is None:
                    raise value_error(col, sql, f"{item!r} is not a member")
                mask |= b
        return mask.to_bytes(storage, "little")

    def decode(buf: Any, pos: int) -> tuple[Any, int]:
        end = pos + storage
        if end > len(buf):
            raise decode_error(col, f"SET needs {storage} bytes at {pos}")
        mask = int.from_bytes(buf[pos:end], "little")
        if members is None or mask >> len(members):
            return mask, end
        return frozenset(m for i, m in enumerate(members) if mask >> i & 1), end

    return Bound(col, sql, encode, decode, storage, "frozenset[str] | int")


@register
class VarcharCodec(Codec):
    """VARCHAR/VARBINARY (15): metadata = max bytes (u16 LE); 1 length byte if max ≤ 255 else 2 (§6)."""

    type_codes = (15,)
    meta_layout = cs.Struct("max_bytes" / cs.Int16ul)

    def bind(self, col: ColumnDesc) -> Bound:
        max_bytes = self.parse_meta(col).max_bytes
        t = _Text(col)
        sql = _sql_len("VARCHAR", "VARBINARY", max_bytes, t)
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
                _check_len(col, sql, t, data, chars, max_bytes)
            return len(data).to_bytes(lb, "little") + data

        def encode_many(values: list) -> list | None:
            # length (1 or 2 bytes LE) then the bytes in the column's charset (values.md §6)
            to_bytes = t.to_bytes
            datas = []
            mb = t.mbmaxlen
            for v in values:
                try:
                    data, chars = to_bytes(v)
                except ValueError:
                    return None
                if len(data) > max_bytes or (chars is not None and chars * mb > max_bytes):
                    return None  # the scalar encoder checks the exact rule
                datas.append(data)
            return _length_prefixed_many(datas, lb)

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


def _length_prefixed_many(datas: list[bytes], lb: int) -> list:
    """Vectorised ``lb``-byte little-endian length prefixes followed by the bytes."""
    lengths = np.fromiter(map(len, datas), dtype=np.int64, count=len(datas))
    prefix = lengths.astype("<u8").view(np.uint8).reshape(-1, 8)[:, :lb]
    return [Fixed(prefix), Var(b"".join(datas), lengths)]


_BLOB_NAMES = {1: "TINY", 2: "", 3: "MEDIUM", 4: "LONG"}


def _length_prefixed(col: ColumnDesc, sql: str, lb: int):
    """Decoder for ``lb``-byte LE length + bytes, returning the raw bytes."""

    def read(buf: Any, pos: int) -> tuple[bytes, int]:
        start = pos + lb
        if start > len(buf):
            raise decode_error(col, f"{sql} length needs {lb} bytes at {pos}")
        n = int.from_bytes(buf[pos:start], "little")
        end = start + n
        if end > len(buf):
            raise decode_error(col, f"{sql} value of {n} bytes at {start} runs past the end ({len(buf)})")
        return bytes(buf[start:end]), end

    return read


def _json_text(col: ColumnDesc, sql: str, value: Any) -> str:
    """A Python JSON value as the text a MariaDB JSON (LONGTEXT) column stores."""
    import json
    from decimal import Decimal

    def default(o: Any) -> Any:
        if isinstance(o, Decimal):
            return float(o)
        raise TypeError(f"{type(o).__name__} is not JSON")

    try:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=default,
                          allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise value_error(col, sql, f"not a JSON value: {exc}") from None


@register
class BlobCodec(Codec):
    """BLOB/TEXT (252): metadata = number of length bytes 1–4; LE length + bytes (values.md §6)."""

    type_codes = (252,)
    meta_layout = cs.Struct("length_bytes" / cs.Int8ul)

    def bind(self, col: ColumnDesc) -> Bound:
        lb = self.parse_meta(col).length_bytes
        if not 1 <= lb <= 4:
            raise SchemaError(f"BLOB metadata must be 1..4 length bytes, got {lb} - at {col.table}.{col.name}")
        t = _Text(col)
        sql = _BLOB_NAMES[lb] + ("TEXT" + t.label() if t.text else "BLOB")
        limit = (1 << (8 * lb)) - 1
        read = _length_prefixed(col, sql, lb)

        def encode(value: Any) -> bytes:
            if col.json_text and not isinstance(value, str | bytes | bytearray | memoryview):
                value = _json_text(col, sql, value)
            if len(value) > limit if isinstance(value, (str, *_BYTES)) else False:  # before encoding
                raise value_error(col, sql, f"holds {limit} bytes, got {len(value)}"
                                  + (" characters" if isinstance(value, str) else ""))
            try:
                data, _ = t.to_bytes(value)
            except ValueError as exc:
                raise value_error(col, sql, str(exc)) from None
            if len(data) > limit:
                raise value_error(col, sql, f"holds {limit} bytes, got {len(data)}")
            return len(data).to_bytes(lb, "little") + data

        def encode_many(values: list) -> list | None:
            # ``lb``-byte length then the bytes (values.md §6); JSON-as-text values go one by one
            to_bytes = t.to_bytes
            datas = []
            for v in values:
                if col.json_text and not isinstance(v, str | bytes | bytearray | memoryview):
                    return None
                try:
                    data, _ = to_bytes(v)
                except ValueError:
                    return None
                if len(data) > limit:
                    return None
                datas.append(data)
            return _length_prefixed_many(datas, lb)

        def decode(buf: Any, pos: int) -> tuple[Any, int]:
            data, end = read(buf, pos)
            return t.from_bytes(data), end

        return Bound(col, sql, encode, decode, None, "str" if t.text else "bytes", encode_many)


@register
class GeometryCodec(Codec):
    """GEOMETRY (255): 4-byte LE length (metadata: length bytes, 4) + SRID u32 LE + WKB (§8)."""

    type_codes = (255,)
    meta_layout = cs.Struct("length_bytes" / cs.Int8ul)

    def bind(self, col: ColumnDesc) -> Bound:
        lb = self.parse_meta(col).length_bytes
        if not 1 <= lb <= 4:
            raise SchemaError(f"GEOMETRY metadata must be 1..4 length bytes, got {lb}"
                              f" - at {col.table}.{col.name}")
        sql = "GEOMETRY"
        limit = (1 << (8 * lb)) - 1
        read = _length_prefixed(col, sql, lb)

        def encode(value: Any) -> bytes:
            if isinstance(value, Geometry):
                if not (isinstance(value.srid, int) and 0 <= value.srid < 1 << 32):
                    raise value_error(col, sql, f"SRID must be a u32, got {value.srid!r}")
                if not isinstance(value.wkb, _BYTES):
                    raise value_error(col, sql, f"WKB must be bytes, got {describe(value.wkb)}")
                data = value.to_bytes()
            elif isinstance(value, _BYTES):
                data = bytes(value)
                if len(data) < 4:
                    raise value_error(col, sql, f"raw geometry needs a 4-byte SRID, got {len(data)} bytes")
            else:
                raise value_error(col, sql, f"needs a Geometry or bytes, got {describe(value)}")
            if len(data) > limit:
                raise value_error(col, sql, f"holds {limit} bytes, got {len(data)}")
            return len(data).to_bytes(lb, "little") + data

        def decode(buf: Any, pos: int) -> tuple[Any, int]:
            data, end = read(buf, pos)
            if len(data) < 4:
                raise decode_error(col, f"GEOMETRY value of {len(data)} bytes has no SRID")
            return Geometry(int.from_bytes(data[:4], "little"), data[4:]), end

        return Bound(col, sql, encode, decode, None, "Geometry")


@register
class VectorCodec(Codec):
    """VECTOR (242, MySQL 9.0+): 4-byte LE length + float32 LE values (layout UNVERIFIED, values.md §1)."""

    type_codes = (242,)
    meta_layout = cs.Struct("length_bytes" / cs.Int8ul)

    def bind(self, col: ColumnDesc) -> Bound:
        lb = self.parse_meta(col).length_bytes
        if not 1 <= lb <= 4:
            raise SchemaError(f"VECTOR metadata must be 1..4 length bytes, got {lb}"
                              f" - at {col.table}.{col.name}")
        sql = "VECTOR"
        read = _length_prefixed(col, sql, lb)

        def encode(value: Any) -> bytes:
            if not isinstance(value, list | tuple):
                raise value_error(col, sql, f"needs a list of floats, got {describe(value)}")
            try:
                data = struct.pack(f"<{len(value)}f", *value)
            except (struct.error, OverflowError, TypeError) as exc:
                raise value_error(col, sql, f"values must be float32: {exc}") from None
            return len(data).to_bytes(lb, "little") + data

        def decode(buf: Any, pos: int) -> tuple[Any, int]:
            data, end = read(buf, pos)
            if len(data) % 4:
                raise decode_error(col, f"VECTOR value of {len(data)} bytes is not a float32 array")
            return list(struct.unpack(f"<{len(data) // 4}f", data)), end

        return Bound(col, sql, encode, decode, None, "list[float]")


def plain_string_layout(col: ColumnDesc) -> tuple[int, str | None] | None:
    """``(length bytes, Python codec or None)`` when a column's value is a little-endian
    length then that many bytes, decoded as the bound codec decodes it: with the codec when
    the collation has one (bytes kept when they do not decode), as bytes otherwise (values.md
    §5, §6). None for every other shape (BINARY(n) re-padded, latin1's cp1252 holes, ENUM,
    SET, GEOMETRY, …). Compiled row readers inline these columns; for a CHAR they also
    check :func:`char_pad`."""
    try:
        code = col.type_code
        if code in (253, 254):
            real, length = parse_string_meta(col.meta)
            if real != 254:
                return None
            lb = 2 if length > 255 else 1
        elif code == 15:
            lb = 2 if int.from_bytes(bytes(col.meta[:2]), "little") > 255 else 1
        elif code == 252:
            lb = col.meta[0]
            if not 1 <= lb <= 4:
                return None
        else:
            return None
        t = _Text(col)
    except Exception:  # noqa: BLE001 - malformed metadata: the bound codec reports it
        return None
    if t.binary and code in (253, 254):
        return None
    if t.text:
        if t.charset == "latin1" or t.coll is None or t.coll.codec is None:
            return None
        return lb, t.coll.codec
    return lb, None


def char_pad(col: ColumnDesc) -> bytes:
    """The pad unit a CHAR column's logged value may not end with (servers strip it before
    logging, values.md §5; the bound decoder keeps such an event raw), b"" for every other
    column. Compiled row readers that inline a CHAR check it and fall back to the bound
    decoder, which raises."""
    try:
        if col.type_code not in (253, 254) or parse_string_meta(col.meta)[0] != 254:
            return b""
        return _Text(col).pad_unit
    except Exception:  # noqa: BLE001 - malformed metadata: the bound codec reports it
        return b""


__all__ += ["plain_string_layout", "char_pad"]


_ASCII_SAME = frozenset({"utf8mb4", "utf8mb3", "utf8", "latin1", "ascii"})


def encode_ascii_many(col: ColumnDesc, mat: np.ndarray) -> list | None:
    """Vectorised CHAR/VARCHAR values given as ASCII text, one (n, width) uint8 row per
    value (values.md §5, §6): the same bytes as the scalar encoders of those strings —
    length prefix (1 byte, 2 when the column holds more than 255 bytes), the bytes (ASCII
    is its own encoding in these charsets), CHAR without its trailing spaces. None when
    the column is not such a text column or a value would not fit (the scalar encoder
    then runs and raises)."""
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
    t = _Text(col)
    if not t.text or t.charset not in _ASCII_SAME or mat.ndim != 2:
        return None
    n, w = mat.shape
    if n and w and int(mat.max()) >= 128:
        return None
    lengths = np.full(n, w, dtype=np.int64)
    if strip and w:
        nonsp = mat != 0x20
        last = w - np.argmax(nonsp[:, ::-1], axis=1)
        lengths = np.where(nonsp.any(axis=1), last, 0).astype(np.int64)
    longest = int(lengths.max()) if n else 0
    if longest > max_bytes or (t.mbmaxlen > 1 and longest > max_bytes // t.mbmaxlen):
        return None
    lb = 2 if max_bytes > 255 else 1
    prefix = lengths.astype("<u8").view(np.uint8).reshape(-1, 8)[:, :lb]
    if not n or int(lengths.min()) == w:
        return [Fixed(prefix), Fixed(mat)]
    flat = mat[np.arange(w)[None, :] < lengths[:, None]]
    return [Fixed(prefix), Var(flat, lengths)]
