"""The blob family: TINYTEXT TEXT MEDIUMTEXT LONGTEXT TINYBLOB BLOB MEDIUMBLOB LONGBLOB
(type 252, values.md §6), the VECTOR type (242, MySQL 9; not a schema type: read only), and
MariaDB's ``BLOB/TEXT … COMPRESSED`` (140, read and re-encoded, not a schema type): its value
is the stored bytes — a header byte and the compressed or raw data — as mariadb-binlog prints
them (not decompressed).

Text columns → ``str``, binary → ``bytes`` (values/_strings.py has the charset rules).
A MariaDB JSON column is a LONGTEXT here too (``ColumnDesc.json_text``: Python JSON values are
stored as their text). VECTOR (UNVERIFIED layout) → ``list[float]`` of float32 values.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import construct as cs
import numpy as np

from binlogwriter.errors import SchemaError
from binlogwriter.values._common import (
    REGISTRY,
    Bound,
    Codec,
    decode_error,
    describe,
    register,
    value_error,
)
from binlogwriter.values._strings import (
    BYTES,
    Text,
    bytes_many,
    length_prefixed,
    length_prefixed_many,
    stored_bytes_bound,
    text_joined_many,
    text_renderer,
)
from binlogwriter.values._text import quote_bytes
from binlogwriter.values.base import ColumnDesc

if TYPE_CHECKING:
    from binlogwriter.schema.model import Column

__all__ = ["FAMILY", "SQL_TYPES", "TYPE_CODES", "BlobCodec", "CompressedBlobCodec", "VectorCodec", "blob_length_bytes", "meta_length_bytes", "binlog_type", "binlog_meta", "renderer",
           "truth_renderer", "arrow_type", "type_text"]

FAMILY = "blob"
SQL_TYPES = ("TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB")
TYPE_CODES = (252, 242, 140)  # 242 VECTOR: the nearest family (a length-prefixed value), read only;
# 140 MariaDB BLOB_COMPRESSED: a BLOB's layout


_BLOB_NAMES = {1: "TINY", 2: "", 3: "MEDIUM", 4: "LONG"}


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


def meta_length_bytes(codec: Codec, col: ColumnDesc, sql: str = "BLOB") -> int:
    """The metadata of a length-prefixed value (BLOB, JSON, GEOMETRY, VECTOR): its length
    prefix's width, 1..4 bytes (values.md §6); SchemaError naming the column otherwise."""
    lb = codec.parse_meta(col).length_bytes
    if not 1 <= lb <= 4:
        raise SchemaError(f"{sql} metadata must be 1..4 length bytes, got {lb} - at {col.table}.{col.name}")
    return lb


@register
class BlobCodec(Codec):
    """BLOB/TEXT (252): metadata = number of length bytes 1–4; LE length + bytes (values.md §6)."""

    type_codes = (252,)
    meta_layout = cs.Struct("length_bytes" / cs.Int8ul)

    def bind(self, col: ColumnDesc) -> Bound:
        lb = meta_length_bytes(self, col)
        t = Text(col)
        sql = _BLOB_NAMES[lb] + ("TEXT" + t.label() if t.text else "BLOB")
        limit = (1 << (8 * lb)) - 1
        read = length_prefixed(col, sql, lb)

        def encode(value: Any) -> bytes:
            if col.json_text and not isinstance(value, str | bytes | bytearray | memoryview):
                value = _json_text(col, sql, value)
            if len(value) > limit if isinstance(value, (str, *BYTES)) else False:  # before encoding
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
            fast = text_joined_many(t, values) if t.text else None
            if fast is None and not t.text and bytes_many(values) is not None:
                fast = b"".join(values), np.fromiter(map(len, values), dtype=np.int64, count=len(values)), None
            if fast is not None:  # the whole list at once: same bytes, same limit
                data, lengths, _ = fast
                if len(lengths) and int(lengths.max()) > limit:
                    return None
                return length_prefixed_many(data, lb, lengths)
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
            return length_prefixed_many(datas, lb)

        def decode(buf: Any, pos: int) -> tuple[Any, int]:
            data, end = read(buf, pos)
            return t.from_bytes(data), end

        return Bound(col, sql, encode, decode, None, "str" if t.text else "bytes", encode_many)


@register
class CompressedBlobCodec(Codec):
    """MariaDB BLOB/TEXT COMPRESSED (140): a BLOB's metadata (1–4 length bytes) and layout
    (values.md §6); the value is the stored bytes (``bytes``: the compression header byte and
    the data), which mariadb-binlog prints as they are."""

    type_codes = (140,)
    meta_layout = cs.Struct("length_bytes" / cs.Int8ul)

    def bind(self, col: ColumnDesc) -> Bound:
        lb = meta_length_bytes(self, col)
        return stored_bytes_bound(col, _BLOB_NAMES[lb] + "BLOB COMPRESSED", lb, (1 << (8 * lb)) - 1)


@register
class VectorCodec(Codec):
    """VECTOR (242, MySQL 9.0+): 4-byte LE length + float32 LE values (layout UNVERIFIED, values.md §1)."""

    type_codes = (242,)
    meta_layout = cs.Struct("length_bytes" / cs.Int8ul)

    def bind(self, col: ColumnDesc) -> Bound:
        sql = "VECTOR"
        lb = meta_length_bytes(self, col, sql)
        read = length_prefixed(col, sql, lb)

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


# -- schema -> binlog (values.md §1, §6) ------------------------------------------------

def binlog_type(col: Column, flavor: str = "mysql80") -> int:
    """BLOB 252 (values.md §1)."""
    return 252


def blob_length_bytes(col: Column, flavor: str = "mysql80") -> int:
    """Length-prefix width of a TEXT/BLOB/JSON/GEOMETRY value (values.md §6)."""
    t = col.type
    for i, prefix in enumerate(("TINY", "", "MEDIUM", "LONG")):
        if t in (prefix + "TEXT", prefix + "BLOB"):
            return i + 1
    return 4


def binlog_meta(col: Column, flavor: str = "mysql80") -> bytes:
    """The number of length bytes, 1–4 (values.md §6)."""
    return bytes((blob_length_bytes(col, flavor),))


# -- mysqlbinlog text (values/render.py) -------------------------------------------------

def renderer(col: ColumnDesc, family: str = "mariadb") -> Callable[[Any], str]:
    """Quoted from the stored bytes (values/_strings.py text_renderer; COMPRESSED: the bytes
    as stored); VECTOR has no printer."""
    if col.type_code == 242:
        raise ValueError(f"Don't know how to handle column type: 242 meta: {bytes(col.meta).hex()}")
    if col.type_code == 140:
        return lambda v: quote_bytes(bytes(v), family)
    return text_renderer(col, family)


# -- exports and typed truth (read/export.py) --------------------------------------------

def arrow_type(col: ColumnDesc) -> Any:
    """The Arrow type of the values in exports and typed truth: string for TEXT, binary for
    BLOB, a list of float32 for VECTOR."""
    import pyarrow as pa

    if col.type_code == 242:
        return pa.list_(pa.float32())
    # this family's codec for the column's type code (registered by this module)
    return pa.string() if REGISTRY[col.type_code].bind(col).python_type == "str" else pa.binary()


# -- ground truth (docs/output.md "Canonical row form") -----------------------------------

def truth_renderer(col: Column, flavor: str) -> Callable[[Any], Any]:
    """TEXT as is, BLOB as ``0x`` hex."""
    if col.type.endswith("TEXT"):
        return str
    return lambda v: "0x" + bytes(v).hex()


_BLOB_TEXT = {1: "TINYBLOB/TINYTEXT", 2: "BLOB/TEXT", 3: "MEDIUMBLOB/MEDIUMTEXT", 4: "LONGBLOB/LONGTEXT"}


def type_text(type_code: int, meta: int, family: str = "mariadb") -> str | None:
    """The ``-vv`` comment type of BLOB (252) by its length-prefix size, `` COMPRESSED`` after
    it for MariaDB's 140; None for the codes mysqlbinlog has no name for (VECTOR); ValueError
    for an unknown prefix size."""
    if type_code not in (252, 140):
        return None
    if meta not in _BLOB_TEXT:
        raise ValueError(f"!! Unknown BLOB packlen={meta}")
    return _BLOB_TEXT[meta] + (" COMPRESSED" if type_code == 140 else "")
