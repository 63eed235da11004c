"""The geometry family: GEOMETRY POINT LINESTRING POLYGON MULTIPOINT MULTILINESTRING
MULTIPOLYGON GEOMETRYCOLLECTION (type 255, values.md §8).

GEOMETRY → :class:`~binlogwriter.values.types.Geometry` (SRID + WKB). Encoders also take
``bytes`` = 4-byte LE SRID followed by WKB.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import construct as cs

from binlogwriter.values._common import (
    Bound,
    Codec,
    decode_error,
    describe,
    register,
    value_error,
)
from binlogwriter.values._strings import (
    BYTES,
    length_prefixed,
)
from binlogwriter.values._text import quote_bytes
from binlogwriter.values.base import ColumnDesc
from binlogwriter.values.blob import blob_length_bytes, meta_length_bytes
from binlogwriter.values.types import Geometry

if TYPE_CHECKING:
    from binlogwriter.schema.model import Column

__all__ = ["FAMILY", "SQL_TYPES", "TYPE_CODES", "GeometryCodec", "binlog_type", "binlog_meta", "renderer",
           "truth_renderer", "arrow_type", "type_text"]

FAMILY = "geometry"
SQL_TYPES = ("GEOMETRY", "POINT", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON",
             "GEOMETRYCOLLECTION")
TYPE_CODES = (255,)
# no vectorised encoder: geometry values go through the scalar encoder; row images fall back
# to it column by column (values/row.py)


@register
class GeometryCodec(Codec):
    """GEOMETRY (255): 4-byte LE length (metadata: length bytes, 4) + SRID u32 LE + WKB (§8)."""

    type_codes = (255,)
    meta_layout = cs.Struct("length_bytes" / cs.Int8ul)

    def bind(self, col: ColumnDesc) -> Bound:
        sql = "GEOMETRY"
        lb = meta_length_bytes(self, col, sql)
        limit = (1 << (8 * lb)) - 1
        read = length_prefixed(col, sql, lb)

        def encode(value: Any) -> bytes:
            if isinstance(value, Geometry):
                if not (isinstance(value.srid, int) and 0 <= value.srid < 1 << 32):
                    raise value_error(col, sql, f"SRID must be a u32, got {value.srid!r}")
                if not isinstance(value.wkb, BYTES):
                    raise value_error(col, sql, f"WKB must be bytes, got {describe(value.wkb)}")
                data = value.to_bytes()
            elif isinstance(value, BYTES):
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


# -- schema -> binlog (values.md §1, §8) ------------------------------------------------

def binlog_type(col: Column, flavor: str = "mysql80") -> int:
    """GEOMETRY 255 (values.md §1)."""
    return 255


def binlog_meta(col: Column, flavor: str = "mysql80") -> bytes:
    """The number of length bytes: 4 (values.md §8)."""
    return bytes((blob_length_bytes(col, flavor),))


# -- mysqlbinlog text (values/render.py) -------------------------------------------------

def renderer(col: ColumnDesc, family: str = "mariadb") -> Callable[[Any], str]:
    """Quoted from the stored bytes (SRID + WKB). Its ``stored_layout`` (length bytes, least
    length) tells printers working from row bytes that the text is the stored value quoted:
    a little-endian length then at least the 4-byte SRID (values.md §8)."""
    def geometry_text(v: Any) -> str:
        return quote_bytes(v.to_bytes() if isinstance(v, Geometry) else v, family)
    if len(col.meta) == 1:
        geometry_text.stored_layout = (col.meta[0], 4)  # type: ignore[attr-defined]
    return geometry_text


# -- exports and typed truth (read/export.py) --------------------------------------------

def arrow_type(col: ColumnDesc) -> Any:
    """The Arrow type of the values in exports and typed truth: binary (SRID + WKB)."""
    import pyarrow as pa

    return pa.binary()


# -- ground truth (docs/output.md "Canonical row form") -----------------------------------

def truth_renderer(col: Column, flavor: str) -> Callable[[Any], Any]:
    """``0x`` hex of SRID + WKB."""
    return lambda v: "0x" + (v.to_bytes() if isinstance(v, Geometry) else bytes(v)).hex()


def type_text(type_code: int, meta: int, family: str = "mariadb") -> str | None:
    """The ``-vv`` comment type."""
    return "GEOMETRY"
