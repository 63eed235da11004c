"""The type -> binlog mapping of a column: the TABLE_MAP type byte, its metadata bytes, the
SIGNEDNESS bit and the value codecs' :class:`~binlogwriter.values.base.ColumnDesc`
(values.md §1 master table, §5, §6; format.md §12). :class:`~binlogwriter.schema.model.Column`
exposes these as methods.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from binlogwriter.errors import SchemaError
from binlogwriter.schema.types import (
    _BLOB_TYPES,
    _INT_TYPES,
    _MARIADB_ONLY,
    _TEMPORAL_FSP,
    _TEXT_TYPES,
    GEOMETRY_TYPES,
    T_BIT,
    T_BLOB,
    T_DATE,
    T_DOUBLE,
    T_ENUM,
    T_FLOAT,
    T_GEOMETRY,
    T_JSON,
    T_NEWDECIMAL,
    T_SET,
    T_STRING,
    T_VARCHAR,
    T_YEAR,
    is_mariadb,
)
from binlogwriter.values.base import ColumnDesc

if TYPE_CHECKING:
    from binlogwriter.schema.model import Column

__all__ = ["binlog_type", "binlog_meta", "blob_length_bytes", "is_unsigned_in_binlog", "column_desc"]


def _set_storage(n: int) -> int:
    b = (n + 7) // 8
    return 8 if b > 4 else max(b, 1)


def binlog_type(col: Column, flavor: str = "mysql80") -> int:
    """The TABLE_MAP column type byte (values.md §1)."""
    t = col.type
    if t in _INT_TYPES:
        return _INT_TYPES[t]
    simple = {"DECIMAL": T_NEWDECIMAL, "FLOAT": T_FLOAT, "DOUBLE": T_DOUBLE, "BIT": T_BIT,
              "YEAR": T_YEAR, "DATE": T_DATE, "CHAR": T_STRING, "BINARY": T_STRING,
              "VARCHAR": T_VARCHAR, "VARBINARY": T_VARCHAR, "ENUM": T_STRING, "SET": T_STRING}
    if t in simple:
        return simple[t]
    if t in _TEMPORAL_FSP:
        return _TEMPORAL_FSP[t]
    if t in _TEXT_TYPES or t in _BLOB_TYPES:
        return T_BLOB
    if t == "JSON":
        return T_BLOB if is_mariadb(flavor) else T_JSON
    if t in GEOMETRY_TYPES:
        return T_GEOMETRY
    if t in _MARIADB_ONLY:
        return T_STRING
    raise SchemaError(f"column {col.name!r}: no binlog type for {t}")

def blob_length_bytes(col: Column, flavor: str = "mysql80") -> int:
    """Length-prefix width of a TEXT/BLOB/JSON/GEOMETRY value (values.md §6)."""
    t = col.type
    for i, prefix in enumerate(("TINY", "", "MEDIUM", "LONG")):
        if t in (prefix + "TEXT", prefix + "BLOB"):
            return i + 1
    return 4

def binlog_meta(col: Column, flavor: str = "mysql80") -> bytes:
    """The column's metadata bytes in TABLE_MAP (values.md §1 master table, §5, §6)."""
    t = col.type
    if t in _INT_TYPES or t in ("YEAR", "DATE"):
        return b""
    if t == "FLOAT":
        return b"\x04"
    if t == "DOUBLE":
        return b"\x08"
    if t == "DECIMAL":
        return bytes((col.precision if col.precision is not None else 10, col.scale or 0))
    if t == "BIT":
        m = col.length if col.length is not None else 1
        return bytes((m % 8, m // 8))
    if t in _TEMPORAL_FSP:
        return bytes((col.fsp or 0,))
    if t in ("CHAR", "BINARY") or t in _MARIADB_ONLY:
        n = col.byte_length(flavor) or 0
        return bytes((T_STRING ^ ((n & 0x300) >> 4), n & 0xFF))
    if t in ("VARCHAR", "VARBINARY"):
        return (col.byte_length(flavor) or 0).to_bytes(2, "little")
    if t == "ENUM":
        return bytes((T_ENUM, 1 if len(col.members) <= 255 else 2))
    if t == "SET":
        return bytes((T_SET, _set_storage(len(col.members))))
    if t in _TEXT_TYPES or t in _BLOB_TYPES or t == "JSON" or t in GEOMETRY_TYPES:
        return bytes((blob_length_bytes(col, flavor),))
    raise SchemaError(f"column {col.name!r}: no binlog metadata for {t}")

def is_unsigned_in_binlog(col: Column, flavor: str = "mysql80") -> bool:
    """SIGNEDNESS bit: UNSIGNED flag; YEAR is 0 on MySQL, 1 on MariaDB (mariadb.md)."""
    if col.type == "YEAR":
        return is_mariadb(flavor)
    return col.is_numeric and col.unsigned

def column_desc(col: Column, flavor: str = "mysql80", table: str | None = None) -> ColumnDesc:
    """The value codecs' view of this column (values/base.py)."""
    return ColumnDesc(
        type_code=binlog_type(col, flavor),
        meta=binlog_meta(col, flavor),
        unsigned=is_unsigned_in_binlog(col, flavor),
        collation=col.collation_id(flavor),
        enum_values=col.members if col.type == "ENUM" else None,
        set_values=col.members if col.type == "SET" else None,
        fsp=(col.fsp or 0) if col.type in _TEMPORAL_FSP else None,
        nullable=col.nullable,
        name=col.name,
        table=table,
        flavor=flavor,
        json_text=col.type == "JSON" and is_mariadb(flavor),
    )
