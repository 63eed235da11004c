"""Column value codecs: Python values <-> the bytes of one column in a row image (values.md).

Public API::

    codec_for(col) -> Codec               # by type code; 254/253 by the real type (values.md §5)
    encode_value(col, value) -> bytes     # ValueEncodeError naming table.column and the rule
    decode_value(col, buf, pos) -> (value, new_pos)
    bind_column(col) -> Bound             # cached closures: .encode(value), .decode(buf, pos)
    string_real_type(col) -> int          # 254 STRING / 247 ENUM / 248 SET
    parse_string_meta(meta) -> (real_type, length_or_storage)
    encode_row_image(cols, present, values, null_pad=0) -> bytes          # format.md §13
    decode_row_image(cols, present, buf, pos) -> (values, null_pad, new_pos)
    row_codec(cols) -> RowImageCodec
    encode_json(value) -> bytes / decode_json(doc) -> value             # values.md §7
    decimal_size(precision, scale) -> int

Python types by column type (full table: ``docs/python-types.md``): integers ``int``; FLOAT,
DOUBLE ``float``; DECIMAL ``Decimal``; BIT ``int``; YEAR ``int``; DATE ``date``/``MysqlDate``;
DATETIME ``datetime``/``MysqlDateTime``; TIMESTAMP aware-UTC ``datetime``/zero
``MysqlDateTime``; TIME ``timedelta``; CHAR/VARCHAR/TEXT ``str`` (``bytes`` when the collation
is binary or unknown); BINARY/VARBINARY/BLOB ``bytes``; ENUM ``str``
(``int`` when members are unknown); SET ``frozenset[str]`` (``int`` when unknown); JSON
``dict``/``list``/scalars (see json_binary); GEOMETRY ``Geometry``. SQL NULL is ``None``;
a column missing from a partial image is ``ABSENT``.

Each type family (integer, floating, decimal, bit, year, date, time, datetime, timestamp,
char, blob, enum_set, json, geometry, inet_uuid) has one module here holding its codecs,
its binlog type and metadata, its mysqlbinlog text, its ground-truth form and its Arrow
type; ``values/families.py`` is their registry (docs/adding-a-type.md).
"""

from __future__ import annotations

from typing import Any

from binlogwriter.errors import ValueEncodeError
from binlogwriter.values._common import Bound, Codec
from binlogwriter.values._strings import parse_string_meta, string_real_type
from binlogwriter.values._temporal import temporal_text
from binlogwriter.values.base import ABSENT, ColumnDesc
from binlogwriter.values.decimal_binary import decimal_size
from binlogwriter.values.json_binary import decode_json, encode_json
from binlogwriter.values.registry import bind_column, codec_for
from binlogwriter.values.row import RowImageCodec, decode_row_image, encode_row_image, row_codec
from binlogwriter.values.types import (
    JSON_NULL,
    JSON_NULL_EMPTY,
    Geometry,
    JsonDecimal,
    JsonNull,
    JsonOpaque,
    JsonTimestamp,
    JsonUInt,
    MysqlDate,
    MysqlDateTime,
    MysqlTime,
)

__all__ = [
    "ABSENT",
    "ColumnDesc",
    "Codec",
    "Bound",
    "codec_for",
    "bind_column",
    "encode_value",
    "decode_value",
    "string_real_type",
    "parse_string_meta",
    "encode_row_image",
    "decode_row_image",
    "row_codec",
    "RowImageCodec",
    "encode_json",
    "decode_json",
    "decimal_size",
    "temporal_text",
    "MysqlDate",
    "MysqlDateTime",
    "MysqlTime",
    "Geometry",
    "JsonOpaque",
    "JsonUInt",
    "JsonDecimal",
    "JsonTimestamp",
    "JsonNull",
    "JSON_NULL",
    "JSON_NULL_EMPTY",
]


def encode_value(col: ColumnDesc, value: Any) -> bytes:
    """Bytes of ``value`` as column ``col`` in a row image (values.md §1–§8).

    ``None`` (SQL NULL) and ``ABSENT`` have no value bytes: they are refused here (row images
    put NULL in the null bitmap), except for the NULL type (6) whose value is always empty.
    """
    if value is None or value is ABSENT:
        if value is None and col.type_code == 6:
            return b""
        raise ValueEncodeError(f"{'None is SQL NULL' if value is None else 'ABSENT is not a value'}: "
                               "it has no value bytes (row images mark NULL in the null bitmap)",
                               table=col.table, column=col.name)
    return bind_column(col).encode(value)


def decode_value(col: ColumnDesc, buf: bytes | memoryview, pos: int = 0) -> tuple[Any, int]:
    """(value, position after it) for the value of ``col`` starting at ``buf[pos]``; DecodeError if bad."""
    return bind_column(col).decode(buf, pos)
