"""Helpers shared by the string-like families (char, enum_set, blob, geometry, json,
inet_uuid): type-254 metadata, a column's charset rules, length prefixes (values.md §5, §6,
§8, §9). The codecs are in values/char.py, enum_set.py, blob.py, geometry.py, json.py.

Python types (the column's collation comes from ``ColumnDesc.collation``, charsets.md):

* Text columns (collation known, not ``binary``, charset with a Python codec) → ``str``.
  Encoders take ``str`` (encoded in the column charset; characters the charset cannot hold,
  e.g. an emoji in utf8mb3/ucs2/latin1, are refused) or ``bytes`` already in that charset.
  Bytes that do not decode in the charset decode to ``bytes`` (nothing is lost).
* Binary columns (collation 63) → ``bytes``. Encoders take bytes-like values, or ``str``
  (stored as its UTF-8 bytes).
* Unknown collation (None, an id no server has) → ``bytes`` both ways, stored as given.
  Every charset the servers know has a codec (binlogwriter/charsets.py builds those Python
  lacks from the server's tables).
* CHAR: trailing pad is not logged (spaces for text charsets — the 2/4-byte space code unit
  for ucs2/utf16/utf16le/utf32 — and 0x00 for BINARY); decoding a CHAR gives the unpadded
  ``str`` (what MySQL returns), decoding a BINARY(n) gives the full ``n`` bytes re-padded with
  0x00 (what MySQL returns; MariaDB UUID/INET6/INET4 are BINARY(16)/(4)). With an unknown
  collation the bytes are stored and returned as given.
* Lengths are checked in bytes against the metadata and, for text, in characters against
  ``max bytes / mbmaxlen`` ("VARCHAR(10) utf8mb4 holds 10 characters, got 11").
* ENUM → the member ``str``; index 0 (the invalid-value entry) → ``''`` (``int`` 0 when ``''`` is
  also a member: the two must stay apart); ``int`` index when the
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
from collections.abc import Callable
from operator import methodcaller
from typing import TYPE_CHECKING, Any

import construct as cs
import numpy as np

from binlogwriter.charsets import BMP_ONLY_CHARSETS, Collation, find_collation
from binlogwriter.values._common import (
    Bound,
    Fixed,
    Var,
    decode_error,
    describe,
    value_error,
)
from binlogwriter.values._text import SPECIAL_MARIADB, SPECIAL_MYSQL, UTF8_CODECS, quote_bytes
from binlogwriter.values.base import ColumnDesc

if TYPE_CHECKING:
    pass

__all__ = ["parse_string_meta", "string_real_type", "column_collation", "plain_string_layout", "char_pad",
           "text_renderer"]

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
BYTES = (bytes, bytearray, memoryview)

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


class Text:
    """How one column's strings turn into stored bytes and back (charsets.md rules)."""

    def __init__(self, col: ColumnDesc) -> None:
        coll = column_collation(col)
        self.coll = coll
        self.binary = coll is not None and coll.is_binary
        self.text = coll is not None and not coll.is_binary and coll.codec is not None
        self.raw = not (self.binary or self.text)  # bytes as given
        self.mbmaxlen = coll.mbmaxlen if coll is not None else 1
        self.charset = coll.charset if coll is not None else None
        self.bmp_only = self.charset in BMP_ONLY_CHARSETS
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
        if isinstance(value, BYTES):
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
        if not isinstance(value, (str, *BYTES)):
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


def text_bytes_many(t: Text, values: list) -> tuple[list[bytes], np.ndarray] | None:
    """(stored bytes, character counts) of many ``str`` values of a text column, as
    :meth:`_Text.to_bytes` gives them one by one (charsets.md: the column charset's Python
    codec; utf8mb3/ucs2 refuse characters beyond the BMP), computed by C-level maps over
    the whole list. None when a value is not a ``str``, when the charset has no codec or is
    latin1 (cp1252 with its holes kept: :meth:`Collation.encode`) and a value is not ASCII,
    or when a value does not encode: the scalar encoder then runs and raises the exact error."""
    if not t.text or t.coll is None or t.coll.codec is None:
        return None
    if set(map(type, values)) - {str}:
        return None
    codec = t.coll.codec
    if t.charset == "latin1":  # cp1252 with its holes: only ASCII text is encoded here
        if not "".join(values).isascii():
            return None
        codec = "ascii"
    elif t.bmp_only and _ASTRAL.search("".join(values)) is not None:
        return None
    try:
        datas = list(map(methodcaller("encode", codec), values))
    except UnicodeError:
        return None
    return datas, np.fromiter(map(len, values), dtype=np.int64, count=len(values))


def text_joined_many(t: Text, values: list) -> tuple[bytes, np.ndarray, np.ndarray] | None:
    """:func:`text_bytes_many` joined: (the stored bytes of every value back to back, each
    value's byte length, each one's character count), or None where it gives None. ASCII
    values in a UTF-8, ASCII or latin1 column (one byte a character in each, the same byte)
    are joined as text and encoded once; other values and codecs go value by value
    (:func:`text_bytes_many`: a text mixing in multilingual values encodes faster value by
    value than joined, a wide character widening the whole joined text)."""
    if not t.text or t.coll is None or t.coll.codec is None:
        return None
    if (t.coll.codec in UTF8_CODECS or t.charset == "latin1") and not set(map(type, values)) - {str} \
            and all(map(str.isascii, values)):
        chars = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
        return "".join(values).encode("ascii"), chars, chars
    got = text_bytes_many(t, values)
    if got is None:
        return None
    datas, chars = got
    return b"".join(datas), np.fromiter(map(len, datas), dtype=np.int64, count=len(datas)), chars


def bytes_many(values: list) -> list[bytes] | None:
    """Many values of a binary column as stored (``bytes(value)``, what :meth:`_Text.to_bytes`
    gives a bytes-like value), or None when one is not ``bytes``."""
    if set(map(type, values)) - {bytes}:
        return None
    return values


def check_len(col: ColumnDesc, sql: str, t: Text, data: bytes, chars: int | None,
              max_bytes: int) -> None:
    if len(data) > max_bytes:
        raise value_error(col, sql, f"holds {max_bytes} bytes, got {len(data)}")
    if chars is not None and t.text and t.mbmaxlen > 1:
        max_chars = max_bytes // t.mbmaxlen
        if chars > max_chars:
            raise value_error(col, sql, f"holds {max_chars} characters, got {chars}")


def sql_len(kind_text: str, kind_bin: str, max_bytes: int, t: Text) -> str:
    if t.binary or t.coll is None:
        return f"{kind_bin}({max_bytes})"
    return f"{kind_text}({max_bytes // t.mbmaxlen}){t.label()}"


def where(col: ColumnDesc) -> str:
    return ".".join(p for p in (col.table, col.name) if p) or "column"


def length_prefixed_many(datas: list[bytes] | bytes, lb: int, lengths: np.ndarray | None = None) -> list:
    """Vectorised ``lb``-byte little-endian length prefixes followed by the bytes (``datas``:
    the values' bytes, or all of them joined with their ``lengths``)."""
    if lengths is None:
        lengths = np.fromiter(map(len, datas), dtype=np.int64, count=len(datas))
    prefix = lengths.astype("<u8").view(np.uint8).reshape(-1, 8)[:, :lb]
    return [Fixed(prefix), Var(datas if isinstance(datas, bytes) else b"".join(datas), lengths)]


def length_prefixed(col: ColumnDesc, sql: str, lb: int):
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


def stored_bytes_bound(col: ColumnDesc, sql: str, lb: int, limit: int) -> Bound:
    """Bound codec of a MariaDB ``… COMPRESSED`` column (mariadb.md): ``lb``-byte LE length then
    the stored bytes (the compression header byte and the data), kept as ``bytes`` both ways,
    as mariadb-binlog prints them (not decompressed); at most ``limit`` bytes."""

    def encode(value: Any) -> bytes:
        if not isinstance(value, BYTES):
            raise value_error(col, sql, f"needs the stored bytes, got {describe(value)}")
        if len(value) > limit:
            raise value_error(col, sql, f"holds {limit} bytes, got {len(value)}")
        return len(value).to_bytes(lb, "little") + bytes(value)

    return Bound(col, sql, encode, length_prefixed(col, sql, lb), None, "bytes")


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
        t = Text(col)
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
        return Text(col).pad_unit
    except Exception:  # noqa: BLE001 - malformed metadata: the bound codec reports it
        return b""


def text_renderer(col: ColumnDesc, family: str = "mariadb") -> Callable[[Any], str]:
    """mysqlbinlog's text of CHAR/BINARY, VARCHAR/VARBINARY, TEXT/BLOB: quoted from their
    stored bytes (text re-encoded in its charset; BINARY(n) without the 0x00 pad the server
    does not log), bytes < 0x20 as ``\\xNN`` (MySQL also ``'`` and ``\\``)."""
    t = col.type_code
    text = Text(col)
    binary_char = t in (253, 254) and text.binary
    if text.text and text.coll is not None and text.coll.codec in UTF8_CODECS:
        # text decoded as UTF-8 / ASCII re-encodes to the bytes it came from, which print
        # as that same text: only the escapes need looking for (bytes kept when they did
        # not decode go the general way)
        special = SPECIAL_MARIADB if family == "mariadb" else SPECIAL_MYSQL

        def utf8_text(v: Any) -> str:
            if type(v) is str and special.search(v) is None:
                return "'" + v + "'"
            return quote_bytes(v.encode("utf-8") if isinstance(v, str) else bytes(v), family)
        utf8_text.plain_text = special.search  # type: ignore[attr-defined]  # compiled printers inline the first branch
        utf8_text.quotes_stored_bytes = True  # type: ignore[attr-defined]  # quote_bytes of what the codec read
        return utf8_text

    def string_text(v: Any) -> str:
        if isinstance(v, str):
            raw = text.coll.encode(v) if text.text and text.coll is not None else v.encode("utf-8")
        else:
            raw = bytes(v)
            if binary_char:  # BINARY(n) decodes re-padded; the server logs it unpadded
                raw = raw.rstrip(b"\x00")
        return quote_bytes(raw, family)
    # the values of a plain length-prefixed layout (plain_string_layout) print as their stored
    # bytes quoted: the codecs re-encode text to exactly those bytes (values.md §5)
    string_text.quotes_stored_bytes = not binary_char  # type: ignore[attr-defined]
    return string_text
